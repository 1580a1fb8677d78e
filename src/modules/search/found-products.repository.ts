import { sql } from 'kysely';
import { audienceKey } from '../catalogue/index.js';
import type { Db, Matches, SearchEngine } from './engine.js';
import { WALK_MIN_TITLED, walkedRelevancePage, walkPays, walkTiers } from './relevance-walk.repository.js';
import { forCounting, ordered, plainText, priceFor, scopedProducts, sortKeys, type SearchScope, type SearchSort } from './search-query.js';

// The reads of the products a search finds (search.service.ts decides which and caches them);
// the query itself is compiled by search-query.ts.

/**
 * Whether the scope finds any product at all. On PostgreSQL a common word's matches read whole and
 * looked up made this cost as much as the page it decides on (36 ms for 10,000 matches of 200,000
 * products); joined as they come, it stops at the first visible one (4 ms, the index scan).
 */
export async function findsAny(db: Db, engine: SearchEngine, scope: SearchScope): Promise<boolean> {
  const any = await scopedProducts(db, engine, scope, undefined, true).select('sp.id').limit(1).execute();
  return any.length > 0;
}

export async function countFound(db: Db, engine: SearchEngine, scope: SearchScope): Promise<number> {
  return (await indexCounts(db, engine, scope))?.total ?? countRows(db, engine, scope);
}

/** The count read from the found products' rows. */
async function countRows(db: Db, engine: SearchEngine, scope: SearchScope): Promise<number> {
  const row = await scopedProducts(db, engine, scope)
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * What the text index alone counts of a text without filters (SQLite): the products the caller sees, and with
 * `titledUpTo` those with every word in the title, up to that many; undefined where the rows must be counted.
 */
async function indexCounts(db: Db, engine: SearchEngine, scope: SearchScope, titledUpTo?: number) {
  const query = plainText(scope);
  const counts = query && engine.countVisibleMatches(query, scope.storeCode, audienceKey(scope.caller), scope.budget, titledUpTo);
  const row = counts && (await counts.execute(db)).rows[0];
  if (!row || row.n === null) return undefined;
  return { total: Number(row.n), titled: row.titled === null ? null : Number(row.titled) };
}

/** A page of found ids, and the total where it came with them (null: not counted, or an empty page). */
type FoundIds = { ids: number[]; total: number | null };

/** Which page of what: the products found, their order and the page's window. */
interface PageOf {
  scope: SearchScope;
  sort: SearchSort;
  offset: number;
  limit: number;
}

/**
 * One page of the found ids in `sort` order, and with `withTotal` the count of all of them where it comes cheaply with
 * the page (null: not counted, or an empty page).
 */
export async function foundPage(
  db: Db,
  engine: SearchEngine,
  scope: SearchScope,
  sort: SearchSort,
  offset: number,
  limit: number,
  withTotal: boolean,
): Promise<FoundIds> {
  const page = { scope, sort, offset, limit };
  const tiers = sort === 'relevance' ? walkTiers(engine, scope, offset, limit) : undefined;
  if (tiers) {
    // Counted by the text index where it can (nothing waits to be folded), with the title matches: they say whether a
    // walk pays (on 376 frequent words of 200,000 products, gating by the total instead made 95 of them 1.5-2 ms slower).
    const counted = await indexCounts(db, engine, scope, WALK_MIN_TITLED);
    const total = counted?.total ?? (await countRows(db, engine, forCounting(scope)));
    const walked = walkPays(counted?.titled) ? await walkedRelevancePage(db, engine, scope, tiers, offset, limit) : undefined;
    return { ids: walked ?? (await rankedPage(db, engine, page, false)).ids, total };
  }
  if (withTotal && engine.name === 'sqlite') {
    // Without a text the products are most of the catalogue: keeping them all costs more than counting them apart
    // (88 -> 125 ms on 200,000), so the page comes without its total and the caller counts.
    return scope.text.kind === 'match' ? pageWithCount(db, engine, page) : rankedPage(db, engine, page, false);
  }
  return rankedPage(db, engine, page, withTotal);
}

/** The page as one ordered query over every product found (PostgreSQL counts them in the same pass). */
async function rankedPage(db: Db, engine: SearchEngine, { scope, sort, offset, limit }: PageOf, withTotal: boolean): Promise<FoundIds> {
  const price = priceFor(engine, scope, sort);
  const columns = withTotal ? [sql<number>`sp.id`.as('id'), sql<number>`count(*) over ()`.as('total')] : [sql<number>`sp.id`.as('id')];
  const rows = (await ordered(scopedProducts(db, engine, scope, price).select(columns), sort, scope, price)
    .offset(offset)
    .limit(limit)
    .execute()) as Array<{
    id: number;
    total?: number;
  }>;
  return { ids: rows.map((row) => Number(row.id)), total: rows[0]?.total === undefined ? null : Number(rows[0].total) };
}

/**
 * SQLite: the page and the count in one pass over the found products. Every match is visited once
 * (its row and its rank), kept with its sort keys, then counted and sorted for the page: a separate
 * count visited every match a second time (a third of a common word's cost), and `count(*) over ()`
 * keeps SQLite from sorting only the page's rows.
 */
async function pageWithCount(db: Db, engine: SearchEngine, { scope, sort, offset, limit }: PageOf): Promise<FoundIds> {
  const price = priceFor(engine, scope, sort);
  const keys = sortKeys(sort, scope, price);
  const key = (index: number) => sql.ref(`k${index}`);
  const found = scopedProducts(db, engine, scope, price).select([
    sql<number>`sp.id`.as('id'),
    ...keys.map((k, index) => (typeof k.value === 'string' ? sql`${sql.ref(k.value)}` : k.value).as(`k${index}`)),
  ]);
  const order = sql.join(keys.map((k, index) => sql`${key(index)} ${sql.raw(k.direction)}`));
  const rows = await sql<{ id: number; total: number }>`with h as materialized ${found}
    select id, (select count(*) from h) as total from h order by ${order} limit ${limit} offset ${offset}`.execute(db);
  return { ids: rows.rows.map((row) => Number(row.id)), total: rows.rows[0] === undefined ? null : Number(rows.rows[0].total) };
}

/** Whether there are more than `n` matches (read up to n + 1 of them, unranked, whoever sees them). */
export async function matchesMoreThan(db: Db, matches: Matches, n: number): Promise<boolean> {
  const rows = await sql`select 1 from ${matches} as m limit 1 offset ${n}`.execute(db);
  return rows.rows.length > 0;
}

/** The best `limit` found ids by relevance. */
export async function bestFound(db: Db, engine: SearchEngine, scope: SearchScope, limit: number): Promise<number[]> {
  const rows = await ordered(scopedProducts(db, engine, scope).select('sp.id'), 'relevance', scope, undefined)
    .limit(limit)
    .execute();
  return rows.map((row) => Number((row as { id: number }).id));
}
