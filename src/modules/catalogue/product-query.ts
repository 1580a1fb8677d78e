import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ProductTable } from './catalogue.tables.js';
import type { BoundedCache } from '../../infra/bounded-cache.js';
import type { Caller } from './caller.js';
import { pricingKey, showsDiscounts, type LeastFunction, type StoreDiscounts } from '../pricing/index.js';
import { cardDiscountSql, discountLevels, discountOrderedIds, type DiscountScope } from './discount-order.js';
import { priceOrderedIds, type PriceOf } from './price-order.js';
import { priceStreams, sortedPricePage } from './price-streams.js';
import { productFilterConditions, type ProductFilter } from './product-filter.js';
import { audienceKey, visibleProduct } from './visibility.js';

// The filter is defined once, for lists and search alike; this file compiles it over `product`.
export type { ProductFilter } from './product-filter.js';

export const PRODUCT_SORTS = ['newest', 'price', '-price', 'name', 'discount', 'sales', 'position', 'seriesNumber'] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

export interface ProductPageQuery {
  storeCode: string;
  caller: Caller;
  filter: ProductFilter;
  sort: ProductSort;
  offset: number;
  limit: number;
  now: number;
}

/**
 * What ordering by the caller's price takes besides the query: the store's discounts, the store's
 * campaigns running at the query's time (a list kept while one ran is not the order after it
 * ends), and the price of products as their cards show it.
 */
export interface ListPricing {
  store: StoreDiscounts;
  runningCampaignIds(): Promise<number[]>;
  priceOf: PriceOf;
  /** The engine's least() for the price as SQL (a deep page). */
  least: LeastFunction;
  /** Pages from this offset on are sorted in SQL instead of merged from the streams (config catalogueListPriceSqlFromOffset). */
  sqlFromOffset: number;
}

export interface ProductListCaches {
  counts: BoundedCache<string, number>;
  pages: BoundedCache<string, number[]>;
  /** A list's discount levels for a retail caller ([discount, count] pairs: discount-order.ts). */
  levels: BoundedCache<string, Array<[number, number]>>;
}

/**
 * A list kept in the database in the list's own order with its total (a category's subtree in the
 * default order, browse/category-listing.repository.ts); `count` is undefined while it is stale.
 */
export interface KeptList {
  count(): Promise<number | undefined>;
  page(offset: number, limit: number): Promise<number[]>;
}

/**
 * Ids of one page of visible products and how many there are in all. Both are kept per filter for
 * the cache period: a shopper paging through a category, and the next shopper doing the same,
 * should not make the database count the category again.
 */
export async function productPage(
  db: Kysely<Database>,
  caches: ProductListCaches,
  query: ProductPageQuery,
  kept?: KeptList,
  pricing?: ListPricing,
): Promise<{ ids: number[]; total: number }> {
  // A retail caller's discount sort and discounted filter go by the discounts their cards show: the
  // list is then one of the caller's pricing inputs, and so are its keys.
  const discounts = await cardDiscounts(db, query, pricing);
  const filterKey = `${query.storeCode}|${audienceKey(query.caller)}|${JSON.stringify(query.filter)}${query.filter.discounted && discounts ? `|${discounts.key}` : ''}`;
  if (query.sort === 'discount' && discounts !== undefined) return discountPage(caches, query, discounts, filterKey);
  // The kept list answers in the default order only; a stale one leaves both halves to the query.
  const keptTotal = kept === undefined ? undefined : await kept.count();
  const total = await caches.counts.get(filterKey, async () => keptTotal ?? countQuery(db, query, discounts));
  // A page past the end is empty without asking: page=10000000 must not make the database walk the list.
  if (query.offset >= total || query.limit === 0) return { ids: [], total };
  if (query.sort === 'price' || query.sort === '-price') {
    if (pricing === undefined) throw new Error('a list sorted by price needs the prices its cards show');
    return { ids: await pricedPage(db, caches, query, pricing, filterKey, discounts), total };
  }
  const ids = await caches.pages.get(`${filterKey}|${query.sort}|${query.offset}|${query.limit}`, async () => {
    if (kept !== undefined && keptTotal !== undefined && query.sort === 'newest') return kept.page(query.offset, query.limit);
    const rows = await ordered(visibleProducts(db, query, discounts), query)
      .select('p.id')
      .offset(query.offset)
      .limit(query.limit)
      .execute();
    return rows.map((row) => row.id);
  });
  return { ids, total };
}

/** The card discounts of a retail caller's list by discount (sort or filter), and the key of what they depend on. */
interface CardDiscounts extends Omit<DiscountScope, 'visible'> {
  key: string;
}

// Business and wholesale cards show no discount (domain notes: no strike-through prices): their lists
// keep the product's own list-price discount, which they are sold below the list price by at least.
const cardsShowDiscounts = (caller: Caller) => showsDiscounts(caller.kind);

async function cardDiscounts(
  db: Kysely<Database>,
  query: ProductPageQuery,
  pricing: ListPricing | undefined,
): Promise<CardDiscounts | undefined> {
  if (!cardsShowDiscounts(query.caller) || (query.sort !== 'discount' && !query.filter.discounted)) return undefined;
  if (pricing === undefined) throw new Error('a list by discount needs the discounts its cards show');
  const campaignIds = await pricing.runningCampaignIds();
  return {
    db,
    least: pricing.least,
    price: { caller: query.caller, store: pricing.store, storeCode: query.storeCode, now: query.now, runningCampaignIds: campaignIds },
    key: pricingInputs(query.caller, pricing.store, campaignIds),
  };
}

/** What a caller's prices (and so their cards' discounts) depend on besides the product: the key part of a list kept by them. */
function pricingInputs(caller: Caller, store: StoreDiscounts, campaignIds: readonly number[]): string {
  return `${pricingKey(caller)}|${store.guestDiscountPercent}/${store.loggedInDiscountPercent}|${campaignIds.join(',')}`;
}

/**
 * A page in the order of the discount the retail caller's cards show, equal discounts by id, newest
 * first (discount-order.ts): the list's levels are kept per filter and pricing inputs, and so are its pages.
 */
async function discountPage(
  caches: ProductListCaches,
  query: ProductPageQuery,
  discounts: CardDiscounts,
  filterKey: string,
): Promise<{ ids: number[]; total: number }> {
  // The levels of the list without the discounted filter, which is its levels above 0: the discounted
  // block shares them with the list sorted by discount, and no row is priced twice.
  const { discounted, ...rest } = query.filter;
  const whole = { ...query, filter: rest };
  const scope: DiscountScope = { ...discounts, visible: () => visibleProducts(discounts.db, whole, discounts) };
  const levelsKey = `${query.storeCode}|${audienceKey(query.caller)}|${JSON.stringify(rest)}|discount|${discounts.key}`;
  const all = await caches.levels.get(levelsKey, () => discountLevels(scope));
  const levels = discounted ? all.filter(([level]) => level > 0) : all;
  const count = (of: ReadonlyArray<[number, number]>) => of.reduce((sum, [, n]) => sum + n, 0);
  const [total, listSize] = [count(levels), count(all)];
  if (query.offset >= total || query.limit === 0) return { ids: [], total };
  const ids = await caches.pages.get(`${filterKey}|discount|${discounts.key}|${query.offset}|${query.limit}`, () =>
    discountOrderedIds(scope, levels, listSize, query.offset, query.limit),
  );
  return { ids, total };
}

/**
 * A page in the order of the caller's price, the one its cards show (campaign, store, client, company
 * and own prices included), ties by id, as search orders it: merged from indexed streams (price-order.ts),
 * so a cold first page reads a few dozen rows, not the list. The page is kept per pricing inputs and
 * running campaigns, so a campaign starting or ending reorders it at once.
 */
async function pricedPage(
  db: Kysely<Database>,
  caches: ProductListCaches,
  query: ProductPageQuery,
  pricing: ListPricing,
  filterKey: string,
  discounts: CardDiscounts | undefined,
): Promise<number[]> {
  const { caller } = query;
  const { store } = pricing;
  // Wholesale prices have no campaigns: their lists need not be kept once per campaign window.
  const campaignIds = caller.kind === 'WHOLESALE' ? [] : await pricing.runningCampaignIds();
  return caches.pages.get(
    `${filterKey}|${query.sort}|${pricingInputs(caller, store, campaignIds)}|${query.offset}|${query.limit}`,
    async () => {
      const direction = query.sort === 'price' ? 'asc' : 'desc';
      const visible = () => visibleProducts(db, query, discounts);
      const scope = { db, visible, caller, store, now: query.now, campaignIds, direction } as const;
      // A merge costs about its page's end in products priced in JS; past a few hundred, sorting in SQL the products
      // that can come first (price-streams.ts sortedPricePage) costs less.
      if (query.offset >= pricing.sqlFromOffset) {
        return sortedPricePage({ ...scope, storeCode: query.storeCode, least: pricing.least }, query.offset, query.limit);
      }
      const ids = await priceOrderedIds(priceStreams(scope), pricing.priceOf, direction, query.offset + query.limit);
      return ids.slice(query.offset);
    },
  );
}

async function countQuery(
  db: Kysely<Database>,
  query: Pick<ProductPageQuery, 'storeCode' | 'caller' | 'filter' | 'now'>,
  discounts?: CardDiscounts,
): Promise<number> {
  const row = await visibleProducts(db, { ...query, sort: 'newest', offset: 0, limit: 0 }, discounts)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

type ProductQuery = SelectQueryBuilder<Database & { p: ProductTable }, 'p', object>;

/**
 * Active products of the store that the caller's audience may see, narrowed by the filter; `discounted`
 * by the discount a retail caller's cards show (`discounts`, which such a list must give).
 */
function visibleProducts(
  db: Kysely<Database>,
  { storeCode, caller, filter, now }: ProductPageQuery,
  discounts?: CardDiscounts,
): ProductQuery {
  if (filter.discounted && cardsShowDiscounts(caller) && discounts === undefined)
    throw new Error('a retail list of discounted products needs the discounts its cards show');
  const cardDiscount = discounts === undefined ? undefined : cardDiscountSql(discounts, 'lookup').discount;
  let query = db.selectFrom('product as p').where(visibleProduct(storeCode, caller));
  for (const condition of productFilterConditions(db, filter, { alias: 'p', storeCode, now, cardDiscount })) query = query.where(condition);
  return query;
}

// The price sorts are not here: they are merged from streams (pricedPage).
function ordered(query: ProductQuery, { sort, filter }: ProductPageQuery): ProductQuery {
  switch (sort) {
    case 'name':
      return query.orderBy('p.name', 'asc').orderBy('p.id', 'asc');
    case 'discount':
      // Business and wholesale lists only: a retail caller's is ordered by their cards' discounts (discountPage).
      return query.orderBy('p.discount_percent', 'desc').orderBy('p.id', 'desc');
    case 'sales':
      return query.orderBy('p.sales_count', 'desc').orderBy('p.id', 'desc');
    case 'position':
      if (filter.productListId !== undefined) {
        return query
          .orderBy(
            (eb) =>
              eb
                .selectFrom('product_list_item')
                .select('position')
                .whereRef('product_id', '=', 'p.id')
                .where('product_list_id', '=', filter.productListId!),
            'asc',
          )
          .orderBy('p.id', 'asc');
      }
      if (filter.campaignId !== undefined) {
        return query
          .orderBy(
            (eb) =>
              eb
                .selectFrom('campaign_price')
                .select((e) => e.fn.min('position').as('position'))
                .whereRef('product_id', '=', 'p.id')
                .where('campaign_id', '=', filter.campaignId!),
            'asc',
          )
          .orderBy('p.id', 'asc');
      }
      return newest(query);
    case 'seriesNumber':
      // A series in reading order; unnumbered volumes after the numbered ones, newest first.
      return newest(query.orderBy(sql`case when p.series_number is null then 1 else 0 end`).orderBy('p.series_number', 'asc'));
    case 'newest':
    default:
      return newest(query);
  }
}

// Unknown release dates sort after every known one, on both engines.
function newest(query: ProductQuery): ProductQuery {
  return query
    .orderBy(sql`case when p.released_at is null then 1 else 0 end`)
    .orderBy('p.released_at', 'desc')
    .orderBy('p.id', 'desc');
}

/**
 * How many products of the filter the caller may see, kept per filter for the cache period: the
 * total productPage gives for the same filter (same query and key), without asking for a page.
 */
export function countVisibleProducts(
  db: Kysely<Database>,
  counts: BoundedCache<string, number>,
  query: Pick<ProductPageQuery, 'storeCode' | 'caller' | 'filter' | 'now'>,
  kept?: KeptList,
): Promise<number> {
  return counts.get(
    `${query.storeCode}|${audienceKey(query.caller)}|${JSON.stringify(query.filter)}`,
    async () => (await kept?.count()) ?? countQuery(db, query),
  );
}
