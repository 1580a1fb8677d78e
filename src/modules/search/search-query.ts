import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { productFilterConditions, visibleSearchProduct, type Caller, type ProductFilter } from '../catalogue/index.js';
import { budgetCondition, type QueryBudget } from '../../db/query-budget.js';
import { int } from '../../db/sql-int.js';
import { callerPriceSql, showsDiscounts, type PriceSql, type StoreDiscounts } from '../pricing/index.js';
import type { Db, Matches, SearchEngine, TextQuery } from './engine.js';

// The products a search finds, as one query over search_product (alias sp): visibility for the
// caller, the text match (joined as m), every filter and every sort. Facets run the same query.

export const LANGUAGE_GROUPS = ['ET', 'EN', 'RU', 'OTHER'] as const;
export type LanguageGroup = (typeof LANGUAGE_GROUPS)[number];
export const AVAILABILITY_FILTERS = ['web', 'shop', 'soon'] as const;
export type AvailabilityFilter = (typeof AVAILABILITY_FILTERS)[number];
export const SEARCH_SORTS = ['relevance', 'price', '-price', 'discount', 'name', 'newest', 'sales'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

/** "New products": released within this many days (and not in the future). */
export const NEW_PRODUCT_DAYS = 90;

/** The lists' filter (catalogue/product-filter.ts, one definition for both) and what only search offers. */
export interface SearchFilter extends ProductFilter {
  bindings?: string[];
  languages?: LanguageGroup[];
  /** On the caller's price, in cents, inclusive. */
  priceMinCents?: number;
  priceMaxCents?: number;
  /** On the discount the caller's card shows, whole percent (business and wholesale: the list-price discount, shownDiscount). */
  minDiscount?: number;
  /** Any of these. */
  availability?: AvailabilityFilter[];
  /** In stock in any of these shops (codes). */
  shopCodes?: string[];
  preorder?: boolean;
  /** Released in the last NEW_PRODUCT_DAYS days: releasedSince, counted from the search's time. */
  newOnly?: boolean;
}

/**
 * How the text narrows the products: not at all, an EAN/ISBN lookup, or a match (ranked, and the
 * same products unranked for counting, where the order does not matter; `query`: the words of an
 * exact match, for what the engine reads from its index alone: counts and walked pages; `titleKey`:
 * an exact match's title key, query-text.ts, whose products relevance puts first).
 */
export type TextFilter =
  | { kind: 'none' }
  | { kind: 'codes'; codes: string[] }
  | { kind: 'match'; matches: Matches; unranked: Matches; query?: TextQuery; titleKey?: string };

/**
 * The words of a scope that is an exact text match and nothing else (no filter): what an engine can count and
 * walk from its text index alone (found-products.repository.ts, relevance-walk.repository.ts).
 */
export function plainText(scope: SearchScope): TextQuery | undefined {
  const { text } = scope;
  return text.kind === 'match' && Object.keys(scope.filter).length === 0 ? text.query : undefined;
}

/** The scope for counting: the same products, without the cost of ranking them. */
export function forCounting(scope: SearchScope): SearchScope {
  return scope.text.kind === 'match' ? { ...scope, text: { ...scope.text, matches: scope.text.unranked } } : scope;
}

export interface SearchScope {
  storeCode: string;
  caller: Caller;
  store: StoreDiscounts;
  now: number;
  text: TextFilter;
  filter: SearchFilter;
  /** The request's time budget: on SQLite the scan of search_product checks it (db/query-budget.ts). */
  budget?: QueryBudget;
}

// The query joins derived tables (matches, campaign prices) whose columns Kysely cannot type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Query = SelectQueryBuilder<any, any, object>;

/**
 * Relevance's first key: 0 in stock, 1 out for now, 2 for good. The expression of search_product_relevance_idx
 * (migration 1700) too, which SQLite uses only for this same expression (a table alias aside).
 */
export const availabilityClass = (column: RawBuilder<unknown>) =>
  sql<number>`(case ${column} when 'TEMPORARILY_OUT_OF_STOCK' then 1 when 'PERMANENTLY_OUT_OF_STOCK' then 2 else 0 end)`;
const OUT_OF_STOCK_LAST = availabilityClass(sql.ref('sp.availability'));

/** Relevance's key after the availability class: 0 where the product's title is the text's (its title key), else 1. */
const exactTitleFirst = (titleKey: string) => sql<number>`(case when sp.title_key = ${titleKey} then 0 else 1 end)`;

/**
 * A shortlist of matches (autocomplete's best few hundred by text rank) with the products titled exactly the text
 * added, read by search_product_title_key_idx: a text rank need not favour them (ts_rank weighs a word's repeats,
 * not a title's length), and relevance puts them first. Their rank where the shortlist has none: 0, the title tier
 * (engine.ts), which is theirs: every word of the text is in their title.
 */
export function withExactTitles(shortlist: Matches, titleKey: string): Matches {
  return sql`(select id, min(rank) as rank from (select s.id, s.rank from ${shortlist} as s
    union all select t.id, 0 from search_product as t where t.title_key = ${titleKey}) as u group by id)` as Matches;
}

/** Whether the query needs the caller's price (a price filter, the discounted filter, a price or discount sort). */
export function needsPrice(filter: SearchFilter, sort?: SearchSort): boolean {
  return (
    filter.priceMinCents !== undefined ||
    filter.priceMaxCents !== undefined ||
    filter.minDiscount !== undefined ||
    filter.discounted === true ||
    sort === 'price' ||
    sort === '-price' ||
    sort === 'discount'
  );
}

/**
 * The visible products of the scope, with the text match joined as `m` and the price joins when
 * the filter or the caller (`price`, to sort or select by the same expressions) needs them.
 * `firstOnly`: the query only asks whether there is one, so the matches are joined as they come
 * (the first visible one ends it) instead of read whole first (engine.looksUpMatches).
 */
export function scopedProducts(db: Db, engine: SearchEngine, scope: SearchScope, given?: PriceSql, firstOnly = false): Query {
  const { filter } = scope;
  const price = given ?? priceFor(engine, scope);
  const kysely = db as Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const { text } = scope;
  let query: Query;
  if (text.kind === 'match' && engine.looksUpMatches && !firstOnly) {
    query = kysely
      .with(
        (cte) => cte('m').materialized(),
        () => text.matches,
      )
      .selectFrom('search_product as sp')
      .innerJoin('m', 'm.id', 'sp.id')
      .where(sql<SqlBool>`sp.id = any(array(select id from m))`);
  } else {
    query = kysely.selectFrom('search_product as sp');
    if (text.kind === 'match') query = query.innerJoin(text.matches.as('m'), 'm.id', 'sp.id');
  }
  for (const join of price?.joins ?? []) query = query.leftJoin(join.table.as(join.alias), `${join.alias}.product_id`, 'sp.id');
  query = query.where(visibleSearchProduct(scope.storeCode, scope.caller, engine.contains));
  const withinBudget = budgetCondition({ engine: engine.name }, scope.budget, 'sp.id');
  if (withinBudget) query = query.where(withinBudget);
  if (scope.text.kind === 'codes') {
    const codes = scope.text.codes;
    // One IN over a union (not two ORed): both engines then look the codes up by index.
    query = query.where(
      'sp.id',
      'in',
      db
        .selectFrom('product')
        .select('id')
        .where('ean', 'in', codes)
        .union(db.selectFrom('product_alt_code').select('product_id as id').where('code', 'in', codes)),
    );
  }
  const shared = filter.newOnly ? { ...filter, releasedSince: newSince(scope.now, filter.releasedSince) } : filter;
  // `discounted`: what a retail caller's cards show, as the lists take it (product-query.ts).
  const cardDiscount = price && showsDiscounts(scope.caller.kind) ? price.discount : undefined;
  for (const condition of productFilterConditions(db, shared, { alias: 'sp', storeCode: scope.storeCode, now: scope.now, cardDiscount }))
    query = query.where(condition);
  if (filter.bindings?.length) query = query.where('sp.binding_code', 'in', filter.bindings);
  if (filter.languages?.length) query = query.where(languageCondition(filter.languages));
  if (filter.availability?.length) query = query.where(availabilityCondition(filter.availability));
  if (filter.shopCodes?.length) query = query.where(inShops(filter.shopCodes));
  if (filter.preorder) query = query.where('sp.delivery_time', '=', 'PREORDER');
  if (price && filter.priceMinCents !== undefined) query = query.where(sql<SqlBool>`${price.price} >= ${int(filter.priceMinCents)}`);
  if (price && filter.priceMaxCents !== undefined) query = query.where(sql<SqlBool>`${price.price} <= ${int(filter.priceMaxCents)}`);
  if (price && filter.minDiscount !== undefined)
    query = query.where(sql<SqlBool>`${shownDiscount(scope, price)} >= ${int(filter.minDiscount)}`);
  return query;
}

/** The start of "new products" at `now`; a later releasedSince of the filter still holds. */
function newSince(now: number, releasedSince: number | undefined): number {
  const since = now - NEW_PRODUCT_DAYS * 86_400_000;
  return releasedSince === undefined ? since : Math.max(since, releasedSince);
}

/**
 * The discount minDiscount and the discount sort go by, as the lists' discount sort and the
 * discounted filter take it: what a guest's or retail customer's cards show, and for business and
 * wholesale customers, whose cards show none, the product's list-price discount (as stored, which
 * the import rounds as pricing does). By their cards' 0 a business client's search by discount came
 * back in id order, and minDiscount found nothing, while their discounted products (the component
 * and the main page's block) are the books with a list-price discount.
 */
function shownDiscount(scope: SearchScope, price: PriceSql): RawBuilder<number> {
  return showsDiscounts(scope.caller.kind) ? price.discount : sql<number>`sp.discount_percent`;
}

/** The price expressions for the caller, or undefined when nothing in the query needs them. */
export function priceFor(engine: SearchEngine, scope: SearchScope, sort?: SearchSort): PriceSql | undefined {
  return needsPrice(scope.filter, sort) ? callerPrice(engine, scope) : undefined;
}

/**
 * The caller's price expressions for the scope. On SQLite a text search prices its matches by
 * looking each one's campaign prices up by index: the join read every running campaign price of
 * the store and indexed them for every query (6 ms of a 10 ms two-filter count on 200,000
 * products). Without a text the rows are the whole catalogue, where the join is the cheaper;
 * PostgreSQL hashes the join either way.
 */
export function callerPrice(engine: SearchEngine, scope: SearchScope): PriceSql {
  return callerPriceSql(engine, scope, engine.name === 'sqlite' && scope.text.kind !== 'none' ? 'lookup' : 'join');
}

/** One key of a sort: an expression over the query's tables and its direction. */
export interface SortKey {
  value: RawBuilder<unknown> | string;
  direction: 'asc' | 'desc';
}

/** The keys of a sort, most significant first (the id last, so every order is total). */
export function sortKeys(sort: SearchSort, scope: SearchScope, price: PriceSql | undefined): SortKey[] {
  switch (sort) {
    case 'price':
      return [
        { value: price!.price, direction: 'asc' },
        { value: 'sp.id', direction: 'asc' },
      ];
    case '-price':
      return [
        { value: price!.price, direction: 'desc' },
        { value: 'sp.id', direction: 'desc' },
      ];
    case 'discount':
      return [
        { value: shownDiscount(scope, price!), direction: 'desc' },
        { value: 'sp.id', direction: 'desc' },
      ];
    case 'name':
      return [
        { value: 'sp.name', direction: 'asc' },
        { value: 'sp.id', direction: 'asc' },
      ];
    case 'newest':
      return [
        { value: sql`case when sp.released_at is null then 1 else 0 end`, direction: 'asc' },
        { value: 'sp.released_at', direction: 'desc' },
        { value: 'sp.id', direction: 'desc' },
      ];
    case 'sales':
      return [
        { value: 'sp.sales_count', direction: 'desc' },
        { value: 'sp.id', direction: 'desc' },
      ];
    case 'relevance':
    default:
      // Out of stock sinks; then a title that is the text itself, the text's rank (title matches first), what sells.
      return [
        { value: OUT_OF_STOCK_LAST, direction: 'asc' },
        ...(scope.text.kind === 'match' && scope.text.titleKey !== undefined
          ? [{ value: exactTitleFirst(scope.text.titleKey), direction: 'asc' } as const]
          : []),
        ...(scope.text.kind === 'match' ? [{ value: 'm.rank', direction: 'asc' } as const] : []),
        { value: 'sp.sales_count', direction: 'desc' },
        { value: 'sp.id', direction: 'desc' },
      ];
  }
}

export function ordered(query: Query, sort: SearchSort, scope: SearchScope, price: PriceSql | undefined): Query {
  let result = query;
  for (const key of sortKeys(sort, scope, price)) result = result.orderBy(key.value, key.direction);
  return result;
}

function languageCondition(groups: LanguageGroup[]) {
  const named = groups.filter((group) => group !== 'OTHER');
  const other = groups.includes('OTHER');
  return sql<SqlBool>`(${named.length > 0 ? sql`sp.language in (${sql.join(named)})` : sql`1 = 0`}
    ${other ? sql`or (sp.language is not null and sp.language not in ('ET', 'EN', 'RU'))` : sql``})`;
}

function availabilityCondition(wanted: AvailabilityFilter[]) {
  const parts = wanted.map((value) => {
    switch (value) {
      case 'web':
        return sql`sp.availability = 'AVAILABLE'`;
      case 'soon':
        return sql`sp.availability = 'COMING_SOON'`;
      case 'shop':
        return sql`exists (select 1 from shop_stock ss inner join shop s on s.id = ss.shop_id
          where ss.product_id = sp.id and ss.quantity > 0 and s.is_active = ${true} and s.is_listed = ${true})`;
    }
  });
  return sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
}

function inShops(codes: string[]) {
  return sql<SqlBool>`exists (select 1 from shop_stock ss inner join shop s on s.id = ss.shop_id
    where ss.product_id = sp.id and ss.quantity > 0 and s.is_active = ${true} and s.is_listed = ${true} and s.code in (${sql.join(codes)}))`;
}

export type { Kysely };
