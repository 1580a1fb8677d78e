import { sql } from 'kysely';
import { budgetCondition, type QueryBudget } from '../../db/query-budget.js';
import type { Db, Matches, NameKind, PendingRow, SearchEngine, TextQuery } from './engine.js';

// SQLite: FTS5 (better-sqlite3 builds it in). Column weights of bm25 follow the table's columns
// (title, tags, persons, publisher, series): a title match outranks the rest by far. bm25 is
// negative, lower is better, which is the rank order the interface asks for.

const KIND_CODE: Record<NameKind, number> = { person: 1, publisher: 2, series: 3 };
const ROWS_PER_INSERT = 400;

/** FTS5 query text from folded terms: each one quoted (so AND, NEAR, column filters are plain words). */
export function ftsQuery({ terms, prefix }: TextQuery): string {
  return terms.map((term, index) => `"${term}"${prefix && index === terms.length - 1 ? '*' : ''}`).join(' ');
}

/** The time budget's check on the rows of an FTS5 match (`and ...`), or nothing without a budget. */
function withinBudget(budget: QueryBudget | undefined) {
  const condition = budgetCondition({ engine: 'sqlite' }, budget, 'rowid');
  return condition ? sql`and ${condition}` : sql``;
}

export function createSqliteEngine(): SearchEngine {
  return {
    name: 'sqlite',
    countsWithPage: (textMatch) => textMatch,
    looksUpMatches: false,
    matchProducts(query, top, budget) {
      if (top === 0)
        return sql`(select rowid as id, 0 as rank from search_product_fts where search_product_fts match ${ftsQuery(query)} ${withinBudget(budget)})` as Matches;
      // `order by 2`: the rank column as computed once (a second bm25() call would score every match again).
      const best = top === undefined ? sql`` : sql`order by 2 limit ${top}`;
      return sql`(select rowid as id, bm25(search_product_fts, 100.0, 3.0, 5.0, 1.0, 1.0) as rank
        from search_product_fts where search_product_fts match ${ftsQuery(query)} ${withinBudget(budget)} ${best})` as Matches;
    },
    similarProducts: () => undefined,
    matchNames(kind, query, top, budget) {
      const best = top === undefined ? sql`` : sql`order by 2 limit ${top}`;
      return sql`(select rowid / 4 as id, bm25(search_name_fts) as rank
        from search_name_fts where search_name_fts match ${ftsQuery(query)} and rowid % 4 = ${KIND_CODE[kind]} ${withinBudget(budget)} ${best})` as Matches;
    },
    similarNames: () => undefined,
    async writeProducts(trx, documents, removed) {
      const ids = [...removed, ...documents.map((d) => d.id)];
      await deleteRowids(trx, 'search_product_fts', ids);
      for (let start = 0; start < documents.length; start += ROWS_PER_INSERT) {
        const rows = documents
          .slice(start, start + ROWS_PER_INSERT)
          .map((d) => sql`(${d.id}, ${d.title}, ${d.tags}, ${d.persons}, ${d.publisher}, ${d.series})`);
        await sql`insert into search_product_fts (rowid, title, tags, persons, publisher, series) values ${sql.join(rows)}`.execute(trx);
      }
    },
    async writeNames(trx, kind, documents, removed) {
      const rowid = (id: number) => id * 4 + KIND_CODE[kind];
      await deleteRowids(trx, 'search_name_fts', [...removed, ...documents.map((d) => d.id)].map(rowid));
      for (let start = 0; start < documents.length; start += ROWS_PER_INSERT) {
        const rows = documents.slice(start, start + ROWS_PER_INSERT).map((d) => sql`(${rowid(d.id)}, ${d.name})`);
        await sql`insert into search_name_fts (rowid, name) values ${sql.join(rows)}`.execute(trx);
      }
    },
    async hasDocuments(db) {
      return (await sql`select 1 from search_product_fts limit 1`.execute(db)).rows.length > 0;
    },
    async clear(trx) {
      await sql`delete from search_product_fts`.execute(trx);
      await sql`delete from search_name_fts`.execute(trx);
    },
    async optimize(db) {
      await sql`insert into search_product_fts (search_product_fts) values ('optimize')`.execute(db);
      await sql`insert into search_name_fts (search_name_fts) values ('optimize')`.execute(db);
    },
    async claimPending(trx, limit) {
      // Callers hold the write lock (a transaction is `begin immediate`): nobody else can claim these.
      const result = await sql<PendingRow>`delete from search_pending where rowid in (select rowid from search_pending limit ${limit})
        returning kind, entity_id`.execute(trx);
      return result.rows;
    },
    least(...values) {
      // min() of one argument would be the aggregate.
      return values.length === 1 ? sql<number>`${values[0]}` : sql<number>`min(${sql.join(values)})`;
    },
    contains(haystack, needle) {
      return sql<boolean>`instr(${haystack}, ${needle}) > 0`;
    },
    isMissingIndex(error) {
      const message = error instanceof Error ? error.message : '';
      return /no such (table|module)|no such column: search_|fts5/.test(message) && /search_|fts5/.test(message);
    },
  };
}

async function deleteRowids(trx: Db, table: 'search_product_fts' | 'search_name_fts', rowids: number[]): Promise<void> {
  for (let start = 0; start < rowids.length; start += 500) {
    await sql`delete from ${sql.table(table)} where rowid in (${sql.join(rowids.slice(start, start + 500))})`.execute(trx);
  }
}
