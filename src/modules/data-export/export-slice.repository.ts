import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ExportTable, Slice } from './collection.js';
import type { CreatedWindow } from './created-window.js';

// The SQL every export collection shares: the page of a table a slice selects, and its count.

/**
 * Applies a slice to a query over `table`: the window, the keyset seek, the export order and the
 * limit. Every exported table has an index on (created_at, id), so a seek reads only its page.
 * The seek is spelled out (not a row-value comparison) so both engines use that index for it.
 */
export function applySlice<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: ExportTable,
  slice: Slice,
): SelectQueryBuilder<DB, TB, O> {
  const created = sql.ref(`${table}.created_at`);
  const id = sql.ref(`${table}.id`);
  let q = query;
  if (slice.window.from !== undefined) q = q.where(sql<boolean>`${created} >= ${slice.window.from}`);
  if (slice.window.to !== undefined) q = q.where(sql<boolean>`${created} <= ${slice.window.to}`);
  if (slice.after !== undefined) {
    const { createdAt, id: afterId } = slice.after;
    q = q.where(sql<boolean>`${created} >= ${createdAt} and (${created} > ${createdAt} or ${id} > ${afterId})`);
  }
  q = q.orderBy(created).orderBy(id).limit(slice.limit);
  return slice.offset > 0 ? q.offset(slice.offset) : q;
}

/** How many rows of `table` are in the window. */
export async function countInWindow(db: Kysely<Database>, table: ExportTable, window: CreatedWindow): Promise<number> {
  const created = sql.ref(`${table}.created_at`);
  let query = db.selectFrom(table).select(sql<number | string>`count(*)`.as('n'));
  if (window.from !== undefined) query = query.where(sql<boolean>`${created} >= ${window.from}`);
  if (window.to !== undefined) query = query.where(sql<boolean>`${created} <= ${window.to}`);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}
