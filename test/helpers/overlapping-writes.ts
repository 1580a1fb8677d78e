import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../src/db/schema.js';

/**
 * Runs `first` in a transaction that stays open (uncommitted) while `second` starts in another
 * transaction, then commits the first and waits for both. On PostgreSQL the second writes while
 * the first's rows are in flight, which is where kept tables (triggers) can miss each other's
 * rows; on SQLite the second waits for the write lock. Either way both must commit.
 */
export async function overlappingWrites(
  db: Kysely<Database>,
  first: (trx: Transaction<Database>) => Promise<unknown>,
  second: (trx: Transaction<Database>) => Promise<unknown>,
  overlapMs = 300,
): Promise<void> {
  let wrote!: () => void;
  const firstWrote = new Promise<void>((resolve) => (wrote = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const one = db.transaction().execute(async (trx) => {
    await first(trx);
    wrote();
    await released;
  });
  await Promise.race([firstWrote, one]);
  const two = db.transaction().execute(async (trx) => {
    await second(trx);
  });
  // Long enough for the second to reach the rows (or locks) the first holds.
  await new Promise((resolve) => setTimeout(resolve, overlapMs));
  release();
  await Promise.all([one, two]);
}
