import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ExportTable, Slice } from './collection.js';
import { byUpdate, type ExportWindow } from './export-window.js';

// The SQL every export collection shares: the page of a table a slice selects, and its count.

/** The window's conditions on `table`: its creation window, and its update window when it has one. */
function inWindow<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: ExportTable,
  window: ExportWindow,
): SelectQueryBuilder<DB, TB, O> {
  const created = sql.ref(`${table}.created_at`);
  const updated = sql.ref(`${table}.updated_at`);
  let q = query;
  if (window.from !== undefined) q = q.where(sql<boolean>`${created} >= ${window.from}`);
  if (window.to !== undefined) q = q.where(sql<boolean>`${created} <= ${window.to}`);
  if (window.updatedFrom !== undefined) q = q.where(sql<boolean>`${updated} >= ${window.updatedFrom}`);
  if (window.updatedTo !== undefined) q = q.where(sql<boolean>`${updated} <= ${window.updatedTo}`);
  return q;
}

/**
 * Applies a slice to a query over `table`: the window, the keyset seek, the export order and the
 * limit. The order is (created_at, id), or (updated_at, id) for a window with an update bound;
 * every exported table has an index on the first, and those that take an update window on the
 * second, so a seek reads only its page. The seek is spelled out (not a row-value comparison) so
 * both engines use that index for it.
 */
export function applySlice<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: ExportTable,
  slice: Slice,
): SelectQueryBuilder<DB, TB, O> {
  const time = sql.ref(`${table}.${byUpdate(slice.window) ? 'updated_at' : 'created_at'}`);
  const id = sql.ref(`${table}.id`);
  let q = inWindow(query, table, slice.window);
  if (slice.after !== undefined) {
    const { time: afterTime, id: afterId } = slice.after;
    q = q.where(sql<boolean>`${time} >= ${afterTime} and (${time} > ${afterTime} or ${id} > ${afterId})`);
  }
  q = q.orderBy(time).orderBy(id).limit(slice.limit);
  return slice.offset > 0 ? q.offset(slice.offset) : q;
}

/** How many rows of `table` are in the window. */
export async function countInWindow(db: Kysely<Database>, table: ExportTable, window: ExportWindow): Promise<number> {
  const query = inWindow(db.selectFrom(table).select(sql<number | string>`count(*)`.as('n')), table, window);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}
