import { PostgresAdapter, type SelectQueryBuilder } from 'kysely';
import type { Db } from './database.js';

/**
 * Whether `db` (any handle or transaction) runs on PostgreSQL, where the code has `db` and not the
 * `DatabaseHandle` with its `engine`. A row lock is taken only where it holds (`lockedOnPostgres` says why).
 */
export function isPostgres(db: Pick<Db, 'getExecutor'>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** How strongly rows are locked: `no key update` and `share` are lockRowsOnPostgres's. */
export type RowLockStrength = 'update' | 'no key update' | 'share';

/**
 * The query with `FOR UPDATE` (or `FOR NO KEY UPDATE`, `FOR SHARE`: see lockRowsOnPostgres) on PostgreSQL, so the rows it reads stay locked until the transaction
 * ends; on SQLite the query unchanged, because a SQLite write transaction is serial already (it
 * starts with `begin immediate` and holds the database's write lock from then), and SQLite rejects
 * `for update`. Where the locked rows must also be filtered or returned by a write, an update that
 * sets a column to itself (`set((eb) => ({ col: eb.ref('col') }))`) takes the same lock on both
 * engines and needs no engine test.
 */
export function lockedOnPostgres<DB, TB extends keyof DB, O>(
  db: Db,
  query: SelectQueryBuilder<DB, TB, O>,
  strength: RowLockStrength = 'update',
): SelectQueryBuilder<DB, TB, O> {
  if (!isPostgres(db)) return query;
  if (strength === 'share') return query.forShare();
  return strength === 'update' ? query.forUpdate() : query.forNoKeyUpdate();
}

/**
 * Takes the rows' locks until the transaction ends on PostgreSQL; on SQLite runs nothing, its write
 * transaction holding the database's lock already (lockedOnPostgres). `no key update` is the weaker
 * lock that inserts referencing the rows (which take a key-share lock on them) do not wait for.
 * `share` keeps the rows as read: every writer of them waits (an UPDATE takes `no key update`), other
 * share lockers do not. A transaction that holds a row in share mode and then updates it waits for any other
 * holder of the share lock, which may be doing the same (a deadlock): take the write's lock at once instead.
 */
export async function lockRowsOnPostgres<DB, TB extends keyof DB, O>(
  db: Db,
  query: SelectQueryBuilder<DB, TB, O>,
  strength: RowLockStrength = 'update',
): Promise<void> {
  if (isPostgres(db)) await lockedOnPostgres(db, query, strength).execute();
}
