import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';

// Forcing an interleaving on PostgreSQL: a test holds a row or table, starts the requests that race,
// and lets go only once they all wait on a lock, which is when each has read what it read unlocked.

/** Sessions of this database waiting on a lock (PostgreSQL). */
export async function lockWaiters(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
  return Number(rows[0]!.n);
}

/** Polls `done` every 10 ms for up to 10 s; throws naming `what` when it never holds. */
export async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 1000; tries += 1) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`waited too long for ${what}`);
}
