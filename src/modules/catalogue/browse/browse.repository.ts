import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { isPostgres } from '../../../db/row-lock.js';
import type { Caller } from '../caller.js';

// What the catalogue's own lists (authors, publishers, series, campaigns, quotes, ...) share:
// name-prefix matching and counting (their caches: name-index.service.ts).

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `column` starts with `prefix`, ignoring case. Both engines may fold only ASCII (SQLite always,
 * PostgreSQL under the C locale), so the column is compared upper-cased with the upper-cased prefix
 * and lower-cased with the lower-cased one: "õun" finds "Õunapuu" through the first, "ÕUN" finds
 * "õunapuu" through the second. The prefix is bound, its wildcards escaped. Both expressions are
 * indexed for authors and publishers (migration 1641): PostgreSQL reads a LIKE prefix from such an
 * index itself; SQLite cannot, so there each side also gets the byte range of its prefix (a folded
 * name starts with the folded prefix exactly when it lies in [prefix, prefix || x'ff'), no UTF-8
 * byte being 0xff), which answers the same and reads only the names of the prefix.
 */
export function startsWith(column: string, prefix: string, byteRange: boolean): Expression<SqlBool> {
  const ref = sql.ref(column);
  const side = (fold: 'upper' | 'lower', folded: string) => {
    const folding = sql`${sql.raw(fold)}(${ref})`;
    const like = sql`${folding} like ${`${escapeLike(folded)}%`} escape '\\'`;
    if (!byteRange) return like;
    return sql`(${folding} >= ${folded} and ${folding} < ${folded} || x'ff' and ${like})`;
  };
  return sql<SqlBool>`(${side('upper', prefix.toUpperCase())} or ${side('lower', prefix.toLowerCase())})`;
}

export type Engine = 'sqlite' | 'postgres';

/** The engine `db` runs on (startsWith's byte range is for SQLite). */
export function engineOf<DB>(db: Kysely<DB>): Engine {
  return isPostgres(db) ? 'postgres' : 'sqlite';
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
  /**
   * SQLite: read the prefix's names from the folded-name indexes and sort them (best for a count, and
   * for a page of a prefix few names have), or, when false, walk every name in order up to the page's
   * end (best for a page of a prefix thousands of names have). The answer is the same. Default true.
   */
  prefixRange?: boolean;
}

/**
 * The columns a list's name filter reads: the name for both (publishers, series), or, for persons, the
 * sort name (surname first) for the letter and either the name or the sort name for `q`.
 */
export interface NameColumns {
  /** `q` matches the start of any of these. */
  q: readonly string[];
  letter: string;
}

/** The query narrowed to names starting with the filter's prefix and letter (`column`: both on that column). */
export function withNamePrefix<DB, TB extends keyof DB, O>(
  db: Kysely<DB>,
  query: SelectQueryBuilder<DB, TB, O>,
  columns: string | NameColumns,
  { q, letter, prefixRange = true }: NameFilter,
) {
  const byteRange = prefixRange && engineOf(db) === 'sqlite';
  const { q: qColumns, letter: letterColumn } = typeof columns === 'string' ? { q: [columns], letter: columns } : columns;
  if (q !== undefined) {
    const sides = qColumns.map((column) => startsWith(column, q, byteRange));
    query = query.where(sides.length === 1 ? sides[0]! : sql<SqlBool>`(${sql.join(sides, sql` or `)})`);
  }
  if (letter !== undefined) query = query.where(startsWith(letterColumn, letter, byteRange));
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
