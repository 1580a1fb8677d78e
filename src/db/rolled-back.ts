import type { Db } from './database.js';

/** Carries the work's answer out of the transaction it rolls back. */
class RollBack<T> extends Error {
  constructor(readonly answer: T) {
    super('rolled back on purpose');
  }
}

/**
 * Runs the work in a transaction and rolls it back, answering what the work answered: what a
 * change would do (its checks, its refusals, what it would return), without doing it. A refusal
 * the work throws comes out as thrown.
 */
export async function rolledBack<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  try {
    await db.transaction().execute(async (trx) => {
      throw new RollBack(await work(trx));
    });
  } catch (error) {
    if (error instanceof RollBack) return error.answer as T;
    throw error;
  }
  throw new Error('unreachable: the transaction always throws');
}
