import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** True for PostgreSQL's and SQLite's unique-constraint (and primary-key) violations. */
export function isUniqueViolation(error: unknown): boolean {
  const err = error as { code?: string; message?: string } | undefined;
  const code = err?.code ?? '';
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
  return /UNIQUE constraint failed/.test(err?.message ?? '');
}

/**
 * Runs `work` in a transaction of its own, again (up to three times in all) when it ends on a unique
 * violation. For a write that looks a key up and inserts it when it is not there (a registration of
 * a new email, an upsert by code): two at once on PostgreSQL both see none and one insert wins the
 * unique index; the loser runs again and then finds the winner's row, as if it had come after it.
 */
export async function inTransactionRetryingOnUniqueViolation<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= 3 || !isUniqueViolation(error)) throw error;
    }
  }
}
