import { sql } from 'kysely';
import type { Db } from './database.js';

// Part of a transaction that may be undone while the rest goes on: a step that must take its rows
// in the documented lock order to find out whether it can happen at all (a late settle learns that
// its gift cards no longer cover the order only when it reaches them, after the order's stream and
// stock). Undoing it rolls back its writes and, on PostgreSQL, lets go of the locks it took.

let made = 0;

/** What a step under a savepoint answers: its result, and whether its writes stay. */
export interface SavepointOutcome<T> {
  keep: boolean;
  result: T;
}

/**
 * Runs `step` under a savepoint of `trx`'s open transaction: kept when it answers `keep`, otherwise
 * rolled back to where it started. An error thrown by the step is thrown on (the caller's
 * transaction then rolls back whole).
 */
export async function underSavepoint<T>(trx: Db, step: () => Promise<SavepointOutcome<T>>): Promise<T> {
  if (!trx.isTransaction) throw new Error('underSavepoint: not inside a transaction');
  made = (made + 1) % 1_000_000;
  const name = sql.raw(`"step_${made}"`);
  await sql`savepoint ${name}`.execute(trx);
  const { keep, result } = await step();
  if (!keep) await sql`rollback to ${name}`.execute(trx);
  await sql`release ${name}`.execute(trx);
  return result;
}
