import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool, type Transaction } from 'kysely';
import { isPostgres } from './row-lock.js';

type AnyTables = Record<string, Record<string, unknown>>;

/** Rows one statement of deleteInBatches deletes at most, unless the caller gives its own. */
export const DELETE_BATCH_SIZE = 5_000;

export interface BatchedDelete<DB, T extends keyof DB & string> {
  /** The table's primary key, a column or the columns of a composite key: how a batch's rows are named. */
  key: (keyof DB[T] & string) | readonly (keyof DB[T] & string)[];
  /** Which rows go; unqualified columns (and `<table>.<column>` refs) are the batch's own row. */
  where: (eb: ExpressionBuilder<DB, T>) => Expression<SqlBool>;
  /**
   * The indexed column the condition is a range of (e.g. `created_at`): each batch then reads its
   * rows from that index's start and stops after `batchSize`, rather than finding every matching row.
   */
  orderBy?: keyof DB[T] & string;
  batchSize?: number;
}

/**
 * Deletes `table`'s rows matching `where`, `batchSize` at a time, until a batch deletes fewer than
 * that; returns how many went. Each batch is a statement of its own,
 * `delete from t where key in (select key from t where ... order by ... limit N)` (on PostgreSQL by
 * `ctid`, see below), so on SQLite the
 * write lock is released between batches and other writers go on: one delete of a backlog (after
 * downtime) held it for as long as the whole backlog took. Given a transaction, the batches run in
 * it and the lock is held throughout: pass the handle.
 */
export async function deleteInBatches<DB, T extends keyof DB & string>(
  db: Kysely<DB> | Transaction<DB>,
  table: T,
  { key, where, orderBy, batchSize = DELETE_BATCH_SIZE }: BatchedDelete<DB, T>,
): Promise<number> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, not ${batchSize}`);
  const keys: readonly string[] = typeof key === 'string' ? [key] : key;
  // The options are type-checked at the caller, against its table; the query is built on a handle of any tables.
  const untyped = db as unknown as Kysely<AnyTables>;
  const name: string = table;
  const condition = where as unknown as (eb: ExpressionBuilder<AnyTables, string>) => Expression<SqlBool>;
  const postgres = isPostgres(untyped);
  let deleted = 0;
  for (;;) {
    const result = await untyped
      .deleteFrom(name)
      .where((eb) => {
        const batchOf = (columns: readonly string[]) => {
          let batch = eb.selectFrom(name).select(columns).where(condition);
          if (orderBy !== undefined) batch = batch.orderBy(orderBy);
          return batch.limit(batchSize);
        };
        // On PostgreSQL the batch is an array of row addresses computed once and deleted by a Tid
        // Scan. Written as `key in (select key ...)`, statistics taken while the table was near empty
        // can have the planner join the table to its batch by a nested loop over both, quadratic in
        // the backlog (modules/search's claim took 10 s a batch so). A row updated meanwhile has
        // moved and is left for the next run, as it may no longer match.
        if (postgres) return sql<SqlBool>`ctid = any(array(${batchOf(['ctid'])}))`;
        // A composite key as a row value, `(a, b) in (select a, b ...)`, which SQLite takes too.
        return keys.length === 1
          ? eb(keys[0]!, 'in', batchOf(keys))
          : sql<SqlBool>`(${sql.join(keys.map((column) => sql.ref(column)))}) in (${batchOf(keys)})`;
      })
      .executeTakeFirst();
    const count = Number(result.numDeletedRows);
    deleted += count;
    if (count < batchSize) return deleted;
  }
}
