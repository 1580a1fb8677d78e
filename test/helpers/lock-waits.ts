import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { engine } from './test-app.js';

// Forcing an interleaving on PostgreSQL: a test holds a row or table, starts the requests that race,
// and lets go only once they all wait on a lock, which is when each has read what it read unlocked.

/** Sessions of this database waiting on a lock (PostgreSQL). */
export async function lockWaiters(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * Sessions of this database waiting for a lock on `table` itself (a table lock another holds, such as a
 * test's `lock table ... in share mode` that makes its writers wait), not on one of its rows (PostgreSQL).
 */
export async function tableLockWaiters(db: Kysely<Database>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from pg_locks
    where locktype = 'relation' and not granted and relation = ${table}::regclass
      and database = (select oid from pg_database where datname = current_database())`.execute(db);
  return Number(rows[0]!.n);
}

/**
 * Polls `done` every 10 ms for up to 30 s; throws naming `what` when it never holds. A request that
 * uploads a file took 14 s to reach its lock once on a loaded 2-core machine (the whole suite on
 * PostgreSQL beside a type check), past the 10 s this waited before.
 */
export async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 3000; tries += 1) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`waited too long for ${what}`);
}

/**
 * Runs `requests` (two or more at once) so that each has read what it reads before its first write:
 * on PostgreSQL with `table` held in share mode (read, not written) until at least two of them wait
 * on a lock, then let go; unless the code's own lock made one wait for another's commit, every one
 * has read the others' state as it was. SQLite runs one write transaction at a time: there they
 * just run at once.
 */
export async function withTableHeld<T>(db: Kysely<Database>, table: string, requests: () => Promise<T>): Promise<T> {
  if (engine !== 'postgres') return requests();
  let answers: { done: T } | { failed: unknown } | undefined;
  await db.transaction().execute(async (trx) => {
    await sql`lock table ${sql.table(table)} in share mode`.execute(trx);
    void requests().then(
      (done) => (answers = { done }),
      (failed: unknown) => (answers = { failed }),
    );
    await until('the requests to wait on a lock', async () => (await lockWaiters(db)) >= 2);
  });
  await until('their answers', () => answers !== undefined);
  if ('failed' in answers!) throw answers.failed;
  return answers!.done;
}

/**
 * Runs `first` until it waits on a lock, then `second` until it waits too, then lets go: on PostgreSQL
 * with `table` held in share mode (read, not written), so `first` holds whatever it locked before its
 * write of `table` when `second` starts, and `second` meets it there. Answers both once both ended.
 * SQLite runs one write transaction at a time: there `first` runs to its end before `second` starts.
 */
export async function firstHoldingThenSecond<A, B>(
  db: Kysely<Database>,
  table: string,
  first: () => Promise<A>,
  second: () => Promise<B>,
): Promise<[A, B]> {
  if (engine !== 'postgres') return [await first(), await second()];
  let running: [Promise<A>, Promise<B>] | undefined;
  await db.transaction().execute(async (trx) => {
    await sql`lock table ${sql.table(table)} in share mode`.execute(trx);
    const one = first();
    // Handled now, thrown where both are awaited: the lock is let go first.
    one.catch(() => {});
    await until('the first to wait on a lock', async () => (await lockWaiters(db)) >= 1);
    const two = second();
    two.catch(() => {});
    await until('the second to wait on a lock', async () => (await lockWaiters(db)) >= 2);
    running = [one, two];
  });
  return Promise.all(running!);
}

/**
 * Runs `work` while writes to `table` wait: the table locked on PostgreSQL, SQLite's one connection
 * held. For what must hold while the database does not take writes (memory caps of what waits).
 */
export async function whileWritesWait(db: Kysely<Database>, table: string, work: () => Promise<void>): Promise<void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const blocker = db.transaction().execute(async (trx) => {
    if (engine === 'postgres') await sql`lock table ${sql.table(table)} in exclusive mode`.execute(trx);
    holding();
    await released;
  });
  await held;
  try {
    await work();
  } finally {
    release();
    await blocker;
  }
}
