import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Caller } from '../caller.js';

// What the catalogue's own lists (authors, publishers, series, campaigns, quotes, ...) share:
// name-prefix matching and counting (their caches: name-index.service.ts).

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `column` starts with `prefix`, ignoring case. Both engines may fold only ASCII (SQLite always,
 * PostgreSQL under the C locale), so the column is compared upper-cased with the upper-cased prefix
 * and lower-cased with the lower-cased one: "õun" finds "Õunapuu" through the first, "ÕUN" finds
 * "õunapuu" through the second. The prefix is bound, its wildcards escaped.
 */
export function startsWith(column: string, prefix: string): Expression<SqlBool> {
  const ref = sql.ref(column);
  const upper = `${escapeLike(prefix.toUpperCase())}%`;
  const lower = `${escapeLike(prefix.toLowerCase())}%`;
  return sql<SqlBool>`(upper(${ref}) like ${upper} escape '\\' or lower(${ref}) like ${lower} escape '\\')`;
}

/** A name filter from the query: a trimmed prefix, or undefined when empty. */
export function prefixOf(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** What the name-ordered lists (authors, publishers, series) are narrowed by. */
export interface NameFilter {
  storeCode: string;
  caller: Caller;
  /** Name prefix. */
  q?: string;
  letter?: string;
}

/** The query narrowed to names starting with the filter's prefix and letter. */
export function withNamePrefix<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  column: string,
  { q, letter }: NameFilter,
) {
  for (const prefix of [q, letter]) if (prefix !== undefined) query = query.where(startsWith(column, prefix));
  return query;
}

/** How many rows the query gives (its selection replaced by a count). */
export async function countRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): Promise<number> {
  // The row type of a selection on a query of any schema is beyond the compiler: it is this.
  const row = (await query
    .clearSelect()
    .select(sql<number | string>`count(*)`.as('n'))
    .executeTakeFirstOrThrow()) as { n: number | string };
  return Number(row.n);
}
