import { sql, type RawBuilder } from 'kysely';
import { budgetCondition, type QueryBudget } from '../../db/query-budget.js';
import type { Db, Matches, NameKind, PendingRow, SearchEngine, TextQuery, Viewer } from './engine.js';
import { leastFor } from '../pricing/index.js';

// SQLite: FTS5 (better-sqlite3 builds it in). A match's rank is its tier (engine.ts): which columns
// hold every word, read from FTS5 column filters. Autocomplete's shortlist (`top`) is chosen by bm25,
// whose column weights follow the table's columns (title, tags, persons, publisher, series), and ranked
// by tier like every other match.

const KIND_CODE: Record<NameKind, number> = { person: 1, publisher: 2, series: 3 };
const ROWS_PER_INSERT = 400;

/** FTS5 query text from folded terms: each one quoted (so AND, NEAR, column filters are plain words). */
export function ftsQuery({ terms, prefix }: TextQuery): string {
  return terms.map((term, index) => `"${term}"${prefix && index === terms.length - 1 ? '*' : ''}`).join(' ');
}

/**
 * The text columns of each tier: every word in the title, in the title and persons, anywhere. A text
 * is always matched within columns: the sixth, `hidden`, holds the visibility words (migration 1710).
 */
const TIER_COLUMNS = ['title', '{title persons}', '{title tags persons publisher series}'];
const ALL_TIERS = TIER_COLUMNS.length - 1;

/** FTS5 query text that matches only where every word is in the tier's columns. */
const tierQuery = (query: TextQuery, tier = ALL_TIERS) => `${TIER_COLUMNS[tier]} : (${ftsQuery(query)})`;

/**
 * A product document's `hidden` words, from search_product `sp`: one for each store and audience that
 * does not see the product (catalogue/visibility.ts's rule; a product without a row is hidden everywhere),
 * `0r` (public catalogue) or `0b` (business catalogue) and the store code in hex. Migration 1710 wrote
 * the first ones with the same expression.
 */
const HIDDEN_WORDS = sql`coalesce((select group_concat(word, ' ') from (
  select '0r' || hex(ws.code) as word from web_store ws
    where not coalesce(sp.is_active = 1 and sp.hidden_web = 0 and instr(' ' || sp.stores || ' ', ' ' || ws.code || ' ') > 0, 0)
  union all
  select '0b' || hex(ws.code) from web_store ws
    where not coalesce(sp.is_active = 1 and sp.hidden_business = 0 and instr(' ' || sp.stores || ' ', ' ' || ws.code || ' ') > 0, 0))), '')`;

/** The `hidden` word of a store and audience (R public, B business catalogue). */
const hiddenWord = (storeCode: string, audience: 'R' | 'B') =>
  `0${audience.toLowerCase()}${Buffer.from(storeCode, 'utf8').toString('hex')}`;

/** FTS5 query text of the tier's matches that a store's audience sees: those without its `hidden` word. */
const visibleQuery = (query: TextQuery, tier: number, storeCode: string, audience: 'R' | 'B') =>
  `${tierQuery(query, tier)} NOT hidden : "${hiddenWord(storeCode, audience)}"`;

/** FTS5 query text of a product match: the text anywhere, and with a viewer only where the document lacks its `hidden` word. */
const productMatch = (query: TextQuery, viewer: Viewer | undefined) =>
  viewer ? visibleQuery(query, ALL_TIERS, viewer.storeCode, viewer.audience) : tierQuery(query);

/** The products of a tier (and of the tiers above it), unranked. */
const tierMatches = (query: TextQuery, tier: number) =>
  sql`(select rowid as id from search_product_fts where search_product_fts match ${tierQuery(query, tier)})` as Matches;

/**
 * A match's tier (engine.ts) from its id: the rowids of the title's and of the title's and persons' matches are read
 * once each (a list SQLite keeps for the statement), against bm25's reading of every match's sizes and hits.
 */
const tierOf = (id: RawBuilder<unknown>, query: TextQuery) =>
  sql<number>`(case when ${id} in ${tierMatches(query, 0)} then 0 when ${id} in ${tierMatches(query, 1)} then 1 else 2 end)`;

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
    async narrowsToViewer(db) {
      // Only a visibility change makes words stale: a text change is folded with its product's words anew.
      return (await sql`select 1 from search_pending where kind = 'visibility' limit 1`.execute(db)).rows.length === 0;
    },
    matchProducts(query, top, budget, viewer) {
      const text = productMatch(query, viewer);
      if (top === 0)
        return sql`(select rowid as id, 0 as rank from search_product_fts where search_product_fts match ${text} ${withinBudget(budget)})` as Matches;
      if (top === undefined) {
        return sql`(select rowid as id, ${tierOf(sql`rowid`, query)} as rank
          from search_product_fts where search_product_fts match ${text} ${withinBudget(budget)})` as Matches;
      }
      // The best `top` by bm25, ranked by tier: relevance orders them as it orders a search's (a text rank weighs a
      // word's repeats and a document's length, which a tier and then sales do not). `order by 2`: bm25 as computed once.
      return sql`(select s.id, ${tierOf(sql`s.id`, query)} as rank from (select rowid as id, bm25(search_product_fts, 100.0, 3.0, 5.0, 1.0, 1.0)
        from search_product_fts where search_product_fts match ${text} ${withinBudget(budget)} order by 2 limit ${top}) as s)` as Matches;
    },
    tierMatches: (query) => [tierMatches(query, 0), tierMatches(query, 1)],
    countVisibleMatches(query, storeCode, audience, budget, titledUpTo) {
      // While a product's text or visibility waits to be folded its words may be stale: no count (the caller counts rows).
      const visible = (tier: number, words: TextQuery) => visibleQuery(words, tier, storeCode, audience);
      const count = (tier: number, upTo?: number, words = query) => {
        const matches = sql`from search_product_fts where search_product_fts match ${visible(tier, words)} ${withinBudget(budget)}`;
        return upTo === undefined
          ? sql<number>`(select count(*) ${matches})`
          : sql<number>`(select count(*) from (select 1 ${matches} limit ${upTo}))`;
      };
      // The title matches up to `upTo`. A prefix makes FTS5 read and merge the lists of every indexed word it starts
      // (~130 µs for a common word on 200,000 products); a word typed whole is mostly found as itself, so the titles
      // that hold the last word whole are counted first, and the prefix's only where they are fewer: the same number.
      const titled = (upTo: number) => {
        if (!query.prefix) return count(0, upTo);
        const whole = count(0, upTo, { ...query, prefix: false });
        return sql<number>`(case when ${whole} >= ${upTo} then ${upTo} else ${count(0, upTo)} end)`;
      };
      const unlessPending = (
        counted: RawBuilder<number>,
      ) => sql`case when exists (select 1 from search_pending where kind in ('product', 'visibility'))
        then null else ${counted} end`;
      return sql<{ n: number | null; titled: number | null }>`select ${unlessPending(count(ALL_TIERS))} as n,
        ${titledUpTo === undefined ? sql`null` : unlessPending(titled(titledUpTo))} as titled`;
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
        await sql`insert into search_product_fts (rowid, title, tags, persons, publisher, series, hidden)
          select d.column1, d.column2, d.column3, d.column4, d.column5, d.column6, ${HIDDEN_WORDS}
          from (values ${sql.join(rows)}) as d left join search_product sp on sp.id = d.column1`.execute(trx);
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
      // Text changes first, visibility changes with what room is left (engine.ts).
      const claim = async (kinds: RawBuilder<boolean>, upTo: number) =>
        (
          await sql<PendingRow>`delete from search_pending where rowid in (select rowid from search_pending where ${kinds} limit ${upTo})
            returning kind, entity_id`.execute(trx)
        ).rows;
      const changes = await claim(sql`kind <> 'visibility'`, limit);
      return changes.length < limit ? [...changes, ...(await claim(sql`kind = 'visibility'`, limit - changes.length))] : changes;
    },
    least: leastFor('sqlite').least,
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
