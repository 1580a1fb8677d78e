import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { countRows } from '../browse/browse.repository.js';

// What the store's curated lists (campaigns, product lists) share in SQL: paging in display order
// and finding one by id or by back-office code.

export type ByIdOrCode = { id: number } | { code: string };

/** One page of the lists `query` selects (the list table aliased `alias`), in display order, and their total. */
export async function pageOfLists<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  alias: string,
  offset: number,
  limit: number,
) {
  const ordered = query.orderBy(sql.ref(`${alias}.position`)).orderBy(sql.ref(`${alias}.id`));
  const [total, rows] = await Promise.all([countRows(query), ordered.offset(offset).limit(limit).execute()]);
  return { rows, total };
}

/** The list `query` selects with this id or code (the list table aliased `alias`). */
export function listByIdOrCode<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, alias: string, by: ByIdOrCode) {
  const [column, value] = 'id' in by ? ['id', by.id] : ['code', by.code];
  return query.where(sql<SqlBool>`${sql.ref(`${alias}.${column}`)} = ${value}`).executeTakeFirst();
}
