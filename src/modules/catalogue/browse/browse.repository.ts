import { sql, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
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
 *
 * Neither side finds a name whose prefix has non-ASCII letters of both cases ("Õnne Pä" of "Õnne
 * Pärl", "Фёдор" of "Фёдор Достоевский": SQLite's upper() leaves the "ä", lower() the "Õ"), so on
 * SQLite a third side matches the name itself with a GLOB that takes either case of each letter
 * ("[Õõ][Nn][Nn][Ee] [Pp][Ää]*"); with the byte range, upper(name) starts with a case of the first letter.
 */
export function startsWith(column: string, prefix: string, engine: Engine, byteRange: boolean): Expression<SqlBool> {
  const ref = sql.ref(column);
  const upper = sql`upper(${ref})`;
  const inRange = (folding: RawBuilder<unknown>, folded: string) => sql`(${folding} >= ${folded} and ${folding} < ${folded} || x'ff')`;
  const side = (fold: 'upper' | 'lower', folded: string) => {
    const folding = sql`${sql.raw(fold)}(${ref})`;
    const like = sql`${folding} like ${`${escapeLike(folded)}%`} escape '\\'`;
    if (!byteRange) return like;
    return sql`(${inRange(folding, folded)} and ${like})`;
  };
  const sides = [side('upper', prefix.toUpperCase()), side('lower', prefix.toLowerCase())];
  if (engine === 'sqlite') {
    const glob = sql`${ref} glob ${eitherCaseGlob(prefix)}`;
    // SQLite's upper() folds ASCII only: the first letter's cases, so folded, start upper(name).
    const firsts = [...new Set(caseVariants([...prefix][0]!).map(asciiUpper))];
    sides.push(
      byteRange
        ? sql`((${sql.join(
            firsts.map((first) => inRange(upper, first)),
            sql` or `,
          )}) and ${glob})`
        : glob,
    );
  }
  return sql<SqlBool>`(${sql.join(sides, sql` or `)})`;
}

/** The character and its upper- and lower-case forms that are single characters. */
function caseVariants(char: string): string[] {
  return [...new Set([char, char.toUpperCase(), char.toLowerCase()])].filter((variant) => [...variant].length === 1);
}

const asciiUpper = (text: string) => text.replace(/[a-z]/g, (c) => c.toUpperCase());

/** A GLOB pattern of names starting with `prefix` in any case of each letter; GLOB's own characters taken literally. */
function eitherCaseGlob(prefix: string): string {
  let pattern = '';
  for (const char of prefix) {
    const variants = caseVariants(char);
    pattern += variants.length > 1 || '*?['.includes(char) ? `[${variants.join('')}]` : char;
  }
  return `${pattern}*`;
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
  const engine = engineOf(db);
  const byteRange = prefixRange && engine === 'sqlite';
  const { q: qColumns, letter: letterColumn } = typeof columns === 'string' ? { q: [columns], letter: columns } : columns;
  if (q !== undefined) {
    const sides = qColumns.map((column) => startsWith(column, q, engine, byteRange));
    query = query.where(sides.length === 1 ? sides[0]! : sql<SqlBool>`(${sql.join(sides, sql` or `)})`);
  }
  if (letter !== undefined) query = query.where(startsWith(letterColumn, letter, engine, byteRange));
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
