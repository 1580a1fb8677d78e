import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import type { DatabaseHandle } from './database.js';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';

/** How `storefront migrate` meets a lock it cannot take (PostgreSQL; config MIGRATE_LOCK_TIMEOUT_MS, MIGRATE_LOCK_RETRIES). */
export interface LockPatience {
  /** How long one statement of a migration waits for a lock before the migration gives up and rolls back (ms); 0: it waits. */
  timeoutMs: number;
  /** How many times a migration that gave up is run again, each after a pause as long as the timeout. */
  retries: number;
  /** Told what a migration waited for: each time it gave up, and (timeout 0) each new wait seen. */
  onWait?: (text: string) => void;
}

/**
 * Brings the schema to the newest version; throws with the failing migration's name.
 *
 * SQLite: Kysely's Migrator runs them there without a transaction (its SQLite adapter has no
 * transactional DDL) and without a lock: a migration that fails halfway keeps the statements before
 * the failing one, and two runs at once on one file (a `serve` and a command starting together) can
 * both run the same migration, one of them failing. PostgreSQL: each
 * migration in a transaction of its own, committed before the next begins, so what one locks (an
 * `alter table`, a plain `create index`, a backfill's rows) is let go at its own end, not held
 * until the last pending one commits; a migration stays atomic with its own data changes. Each
 * statement there waits at most `patience.timeoutMs` for a lock: a migration that gives up rolls
 * back alone, the run pauses as long (the requests that queued behind its wait are served) and runs
 * it again, up to `patience.retries` times, then throws naming what it waited for. The ones
 * before it stay committed (docs/deployment.md, Migrations).
 */
export async function migrateToLatest(handle: DatabaseHandle, patience: LockPatience = { timeoutMs: 0, retries: 0 }): Promise<string[]> {
  if (handle.engine === 'sqlite') return applied(await migrator(handle.db).migrateToLatest());
  // A database none ran on is used by nobody yet: one transaction there, with nothing to wait for (each
  // migration's own took twice as long, 14 s rather than 7 s for ~120 on a loaded 2-core host: Kysely's
  // checks per run).
  // One look first: an up-to-date database (every process's start, every test app) takes no lock
  // and starts no watch, where migrateUp's own checks cost ~85 ms more.
  const pending = (await pendingMigrations(handle)).length;
  if (pending === 0) return [];
  if (pending === Object.keys(migrations).length) {
    return applied(await migrator(handle.db).migrateToLatest());
  }
  const done: string[] = [];
  for (let attempt = 1; ; attempt += 1) {
    const watch = lockWatch(handle.db, patience);
    let result: MigrationResultSet;
    try {
      result = await migrator(handle.db, (up) => lockTimed(up, patience.timeoutMs, watch)).migrateUp();
    } finally {
      watch.stop();
    }
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    if (result.error !== undefined && isLockTimeout(result.error) && failed !== undefined) {
      const what = watch.seen() ?? 'a lock (the session holding it ended before it was seen)';
      const waited = `Migration ${failed} waited ${patience.timeoutMs} ms (MIGRATE_LOCK_TIMEOUT_MS) for ${what}`;
      if (attempt > patience.retries) {
        const before = done.length === 0 ? 'none applied before it' : `${done.length} applied before it stay applied`;
        throw new Error(
          `${waited} and gave up ${attempt} time${attempt === 1 ? '' : 's'}; it rolled back (${before}). ` +
            'End or wait out the session holding the lock (pg_stat_activity), then run storefront migrate again ' +
            '(MIGRATE_LOCK_TIMEOUT_MS=0 waits as long as it takes).',
          { cause: result.error },
        );
      }
      patience.onWait?.(`${waited}; it rolled back, trying again in ${patience.timeoutMs} ms (retry ${attempt} of ${patience.retries})`);
      await new Promise((resolve) => setTimeout(resolve, patience.timeoutMs));
      continue;
    }
    const ran = applied(result);
    if (ran.length === 0) return done;
    done.push(...ran);
    attempt = 0;
  }
}

function migrator(db: Kysely<Database>, wrap: (up: Migration['up']) => Migration['up'] = (up) => up): Migrator {
  const wrapped = Object.fromEntries(Object.entries(migrations).map(([name, m]) => [name, { ...m, up: wrap(m.up) }]));
  return new Migrator({ db, provider: { getMigrations: async () => wrapped } });
}

/** A migration's up that first sets its transaction's lock timeout and tells `watch` which session to watch. */
function lockTimed(up: Migration['up'], timeoutMs: number, watch?: LockWatch): Migration['up'] {
  return async (db) => {
    const { rows } = await sql<{
      pid: number;
    }>`select set_config('lock_timeout', ${String(timeoutMs)}, true), pg_backend_pid() as pid`.execute(db);
    watch?.start(Number(rows[0]!.pid));
    await up(db);
  };
}

/** lock_not_available: a statement gave up on lock_timeout. */
const isLockTimeout = (error: unknown) => (error as { code?: unknown } | null)?.code === '55P03';

interface LockWatch {
  start(pid: number): void;
  /** What the migration's session was last seen waiting for. */
  seen(): string | undefined;
  stop(): void;
}

/**
 * Looks, on another connection of the pool, at what the migration's session waits for: a few times
 * within the lock timeout (every second with none), so that when it gives up the message can name
 * the table and the session holding it. One small read of pg_locks a poll, only while a migration runs.
 */
function lockWatch(db: Kysely<Database>, patience: LockPatience): LockWatch {
  const everyMs = patience.timeoutMs === 0 ? 1000 : Math.min(1000, Math.max(20, Math.floor(patience.timeoutMs / 4)));
  let timer: NodeJS.Timeout | undefined;
  let last: string | undefined;
  let stopped = false;
  const told = new Set<string>();
  const poll = async (pid: number) => {
    const now = await waitingFor(db, pid).catch(() => undefined);
    if (stopped) return;
    if (now !== undefined) {
      last = now;
      if (patience.timeoutMs === 0 && !told.has(now)) {
        told.add(now);
        patience.onWait?.(`The migration waits for ${now}`);
      }
    }
    timer = setTimeout(() => void poll(pid), everyMs);
  };
  return {
    start(pid) {
      timer = setTimeout(() => void poll(pid), everyMs);
    },
    seen: () => last,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** What session `pid` waits for now ("table client_account, held by pid 123 (idle in transaction, its transaction 40 s old): select ..."), if it waits. */
async function waitingFor(db: Kysely<Database>, pid: number): Promise<string | undefined> {
  const { rows } = await sql<{
    relation: string | null;
    locktype: string;
    holder: number | null;
    state: string | null;
    age_s: number | null;
    query: string | null;
  }>`
    select w.relation::regclass::text as relation, w.locktype, b.pid as holder, b.state,
      floor(extract(epoch from clock_timestamp() - b.xact_start))::int as age_s, left(b.query, 80) as query
    from pg_locks w
    left join lateral unnest(pg_blocking_pids(w.pid)) as h(pid) on true
    left join pg_stat_activity b on b.pid = h.pid
    where w.pid = ${pid} and not w.granted
    limit 1`.execute(db);
  const row = rows[0];
  if (row === undefined) return undefined;
  const what = row.relation !== null ? `table ${row.relation}` : `a ${row.locktype} lock`;
  if (row.holder === null) return what;
  const age = row.age_s === null ? '' : `, its transaction ${row.age_s} s old`;
  return `${what}, held by pid ${row.holder} (${row.state ?? 'unknown state'}${age}): ${(row.query ?? '').replace(/\s+/g, ' ').trim()}`;
}

function applied({ error, results = [] }: MigrationResultSet): string[] {
  const failed = results.find((result) => result.status === 'Error');
  if (error) {
    const where = failed ? ` in migration ${failed.migrationName}` : '';
    throw new Error(`Migration failed${where}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** Migrations this build has that the database has not run yet. */
export async function pendingMigrations(handle: DatabaseHandle): Promise<string[]> {
  return (await migrator(handle.db).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * Makes the schema the one this build's code expects, before a process or a command uses it. The
 * embedded database migrates itself; PostgreSQL is shared by every process of a release and is
 * migrated by an operator, explicitly (`storefront migrate`), so a build that finds migrations
 * pending there refuses, naming the command: code run against the schema it does not expect fails
 * midway on a table or column it cannot find ("relation "job" does not exist").
 */
export async function prepareSchema(handle: DatabaseHandle): Promise<void> {
  if (handle.engine === 'sqlite') {
    await migrateToLatest(handle);
    return;
  }
  const pending = await pendingMigrations(handle);
  if (pending.length === 0) return;
  // A count and the first and last name: a fresh database lacks every migration, and ~80 names on one line hide the command.
  const names = pending.length <= 2 ? pending.join(', ') : `${pending[0]} ... ${pending.at(-1)}`;
  throw new Error(
    `The database needs ${pending.length} migration${pending.length === 1 ? '' : 's'} (${names}); run: storefront migrate (npm run cli -- migrate in a checkout)`,
  );
}
