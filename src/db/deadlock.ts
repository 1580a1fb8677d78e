import type { Kysely, Transaction } from 'kysely';
import type { Logger } from '../infra/logger.js';
import type { Database } from './schema.js';

/** True for PostgreSQL's deadlock_detected: it ended this transaction to free another (SQLite has one writer at a time). */
export function isDeadlock(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === '40P01';
}

const ATTEMPTS = 4;

/**
 * Runs `work` in a transaction of its own, again (up to four times in all, after a short random
 * wait) when PostgreSQL ended it on a deadlock. For batch writers that run beside each other (a
 * supplier's feed, the back office's import, their deactivations): an edit of a product's child rows
 * takes the product's refresh lock before its row, an update of the product the other way round, and
 * no writer can order that across its statements, so two of them can each wait for the other. (Rows
 * that many products shared, the category totals, no longer exist: migration 2026_12_10_1010.) The one
 * PostgreSQL ended rolled back whole; `work` must only write the database (mails and
 * jobs through the outbox, in it) and keep nothing across attempts, so a second run is as if first.
 */
export async function inTransactionRetryingOnDeadlock<T>(
  db: Kysely<Database>,
  log: Logger,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isDeadlock(error)) throw error;
      // Jittered, so the two do not meet again in step; the other has usually committed by then.
      const wait = Math.round(20 * attempt * (0.5 + Math.random()));
      log.warn({ attempt, waitMs: wait }, 'transaction ended on a deadlock (40P01); running it again');
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
