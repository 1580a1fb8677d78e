import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ProductTable } from './catalogue.tables.js';
import type { BoundedCache } from '../../infra/bounded-cache.js';
import type { Caller } from './caller.js';
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

export interface ProductListCaches {
  counts: BoundedCache<string, number>;
  pages: BoundedCache<string, number[]>;
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
): Promise<{ ids: number[]; total: number }> {
  const filterKey = `${query.storeCode}|${audienceKey(query.caller)}|${JSON.stringify(query.filter)}`;
  // The kept list answers in the default order only; a stale one leaves both halves to the query.
  const keptTotal = kept === undefined ? undefined : await kept.count();
  const total = await caches.counts.get(filterKey, async () => keptTotal ?? countQuery(db, query));
  // A page past the end is empty without asking: page=10000000 must not make the database walk the list.
  if (query.offset >= total || query.limit === 0) return { ids: [], total };
  const ids = await caches.pages.get(`${filterKey}|${query.sort}|${priceBasis(query)}|${query.offset}|${query.limit}`, async () => {
    if (kept !== undefined && keptTotal !== undefined && query.sort === 'newest') return kept.page(query.offset, query.limit);
    const rows = await ordered(visibleProducts(db, query), query).select('p.id').offset(query.offset).limit(query.limit).execute();
    return rows.map((row) => row.id);
  });
  return { ids, total };
}

async function countQuery(db: Kysely<Database>, query: Pick<ProductPageQuery, 'storeCode' | 'caller' | 'filter' | 'now'>): Promise<number> {
  const row = await visibleProducts(db, { ...query, sort: 'newest', offset: 0, limit: 0 })
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What the price sorts order by: the regular price, which for wholesale customers excludes VAT. */
function priceBasis({ sort, caller }: ProductPageQuery): string {
  return (sort === 'price' || sort === '-price') && caller.kind === 'WHOLESALE' ? 'W' : '';
}

type ProductQuery = SelectQueryBuilder<Database & { p: ProductTable }, 'p', object>;

/** Active products of the store that the caller's audience may see, narrowed by the filter. */
function visibleProducts(db: Kysely<Database>, { storeCode, caller, filter, now }: ProductPageQuery): ProductQuery {
  let query = db.selectFrom('product as p').where(visibleProduct(storeCode, caller));
  for (const condition of productFilterConditions(db, filter, { alias: 'p', storeCode, now })) query = query.where(condition);
  return query;
}

function ordered(query: ProductQuery, { sort, filter, caller }: ProductPageQuery): ProductQuery {
  switch (sort) {
    case 'price':
      return query.orderBy(regularPrice(caller), 'asc').orderBy('p.id', 'asc');
    case '-price':
      return query.orderBy(regularPrice(caller), 'desc').orderBy('p.id', 'desc');
    case 'name':
      return query.orderBy('p.name', 'asc').orderBy('p.id', 'asc');
    case 'discount':
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

/**
 * The price the price sorts order by: the shop price, and for wholesale customers the wholesale
 * price (or, without one, the shop price less VAT), as pricing.ts works them out. Campaign,
 * discount and company prices are per caller and per moment; they do not reorder a list.
 */
function regularPrice(caller: Caller) {
  if (caller.kind !== 'WHOLESALE') return sql`p.shop_price_cents`;
  return sql`coalesce(nullif(p.wholesale_price_cents, 0), p.shop_price_cents * 100.0 / (100 + p.vat_rate_percent))`;
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
