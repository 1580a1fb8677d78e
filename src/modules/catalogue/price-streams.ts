import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { PRODUCT_TYPES } from '../../db/product-types.js';
import type { Database } from '../../db/schema.js';
import { callerPriceSql, isGiftCard, priceFor, type LeastFunction, type StoreDiscounts } from '../pricing/index.js';
import { pricingCustomer, type Caller } from './caller.js';
import type { ProductTable } from './catalogue.tables.js';
import type { Direction, PriceStream } from './price-order.js';

// The streams a list sorted by price is merged from (price-order.ts), each read through an index
// in its own order and narrowed by the list's visibility and filter (`visible`): the products by
// regular price; for retail and business callers each running campaign's prices of their kind
// (only ascending: a campaign price is the price only when lower, so descending the regular price
// already bounds it); for a wholesale caller their company's own prices, and the gift cards apart
// (sold to them at face value less VAT, whatever wholesale price the data gives them: a handful of
// products, read by type). The bounds come from pricing.ts itself, at the stream's key.

type ProductQuery = SelectQueryBuilder<Database & { p: ProductTable }, 'p', object>;

export interface PriceStreamScope {
  db: Kysely<Database>;
  /** The list's products: visible to the caller, narrowed by its filter. */
  visible: () => ProductQuery;
  caller: Caller;
  store: StoreDiscounts;
  now: number;
  /** The store's campaigns running at `now`. */
  campaignIds: readonly number[];
  direction: Direction;
}

/**
 * The regular price the regular stream walks: the shop price, and for wholesale customers the
 * wholesale price or the shop price less VAT (as a real number: product_wholesale_price_idx's expression).
 */
export function regularPrice(caller: Caller): RawBuilder<number> {
  if (caller.kind !== 'WHOLESALE') return sql<number>`p.shop_price_cents`;
  return sql<number>`coalesce(nullif(p.wholesale_price_cents, 0), p.shop_price_cents * 100.0 / (100 + p.vat_rate_percent))`;
}

const GIFT_CARD_TYPES = PRODUCT_TYPES.filter(isGiftCard);
const SHOP_PRICE_LESS_VAT = sql<number>`p.shop_price_cents * 100.0 / (100 + p.vat_rate_percent)`;

export function priceStreams(scope: PriceStreamScope): PriceStream[] {
  const { caller, direction } = scope;
  if (caller.kind === 'WHOLESALE') {
    const giftCards = (gift: boolean) => () => scope.visible().where('p.type', gift ? 'in' : 'not in', GIFT_CARD_TYPES);
    const streams = [
      regularStream({ ...scope, visible: giftCards(false) }),
      regularStream({ ...scope, visible: giftCards(true) }, SHOP_PRICE_LESS_VAT),
    ];
    if (caller.companyId !== null) streams.push(ownPriceStream(scope, caller.companyId));
    return streams;
  }
  const streams = [regularStream(scope)];
  if (direction === 'asc') {
    const kind = caller.kind === 'BUSINESS' ? 'BUSINESS' : 'RETAIL';
    for (const campaignId of scope.campaignIds) streams.push(campaignStream(scope, campaignId, kind));
  }
  return streams;
}

const rows = (found: Array<{ id: number | string; key: number | string }>) =>
  found.map((row) => ({ id: Number(row.id), key: Number(row.key) }));

/**
 * For a retail or business caller: without a campaign, a product of shop price K costs at least what
 * a book of that price costs (e-books get fewer discounts, gift cards none; a list price above K only
 * raises a business price) and at most K: every discount and campaign only lowers the shop price.
 */
function lowestPrice({ caller, store, now }: Pick<PriceStreamScope, 'caller' | 'store' | 'now'>): (shop: number) => number {
  const customer = pricingCustomer(caller);
  return (shop) =>
    Math.min(
      ...(['BOOK', 'EBOOK'] as const).map(
        (type) => priceFor({ type, shopPriceCents: shop, vatRatePercent: 0 }, customer, store, now).priceCents,
      ),
    );
}

function regularStream(scope: PriceStreamScope, key = regularPrice(scope.caller)): PriceStream {
  const { visible, caller, direction } = scope;
  const lowest = lowestPrice(scope);
  // The wholesale key is the price before rounding to cents (a wholesale price is whole cents already).
  const bound =
    caller.kind === 'WHOLESALE'
      ? (value: number) => (direction === 'asc' ? Math.floor(value) : Math.ceil(value))
      : (value: number) => (direction === 'asc' ? lowest(value) : value);
  return {
    bound,
    read: async (offset, limit) =>
      rows(
        await visible()
          .select(['p.id', key.as('key')])
          .orderBy(key, direction)
          .orderBy('p.id', direction)
          .offset(offset)
          .limit(limit)
          .execute(),
      ),
  };
}

function campaignStream({ visible, direction }: PriceStreamScope, campaignId: number, kind: 'RETAIL' | 'BUSINESS'): PriceStream {
  return {
    bound: (value) => value,
    read: async (offset, limit) =>
      rows(
        await visible()
          .innerJoin('campaign_price as cp', 'cp.product_id', 'p.id')
          .where('cp.campaign_id', '=', campaignId)
          .where('cp.customer_kind', '=', kind)
          .select(['p.id', 'cp.price_cents as key'])
          .orderBy('cp.price_cents', direction)
          .orderBy('cp.product_id', direction)
          .offset(offset)
          .limit(limit)
          .execute(),
      ),
  };
}

/** A wholesale company's own prices: one of 0 is none (pricing.ts), so the product keeps its place by regular price. */
function ownPriceStream({ visible, direction }: PriceStreamScope, companyId: number): PriceStream {
  return {
    bound: (value) => value,
    read: async (offset, limit) =>
      rows(
        await visible()
          .innerJoin('company_product_price as cpp', 'cpp.product_id', 'p.id')
          .where('cpp.company_id', '=', companyId)
          .where('cpp.price_cents', '>', 0)
          .select(['p.id', 'cpp.price_cents as key'])
          .orderBy('cpp.price_cents', direction)
          .orderBy('cpp.product_id', direction)
          .offset(offset)
          .limit(limit)
          .execute(),
      ),
  };
}

/**
 * A deep page of the list in the caller's price order, sorted in SQL: the caller's price as one
 * expression (pricing's callerPriceSql, the rules of pricing.ts to the cent, over product p), with
 * the prices of exactly the campaigns the streams merge. Past a few hundred rows this costs less
 * than merging the streams to the page (each product met priced from its card's base in JS).
 *
 * Only the products that can be on the page or before it are sorted (`candidates`), found by index,
 * so a page costs about the old walk of the regular-price index to its end, not a sort of the list.
 */
export async function sortedPricePage(
  scope: PriceStreamScope & { storeCode: string; least: LeastFunction },
  offset: number,
  limit: number,
): Promise<number[]> {
  const { caller, store, storeCode, now, campaignIds, direction } = scope;
  const { query: narrowed, bounded } = await candidates(scope, offset + limit);
  // A bounded page prices its few candidates' campaign prices by index; the whole list joins them all at once.
  const campaigns = bounded ? 'lookup' : 'join';
  const price = callerPriceSql(scope.least, { caller, store, storeCode, now, runningCampaignIds: campaignIds }, campaigns, 'p');
  // The joins are derived tables Kysely cannot type (as in search).
  let query = narrowed as unknown as SelectQueryBuilder<any, any, object>; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const join of price.joins) query = query.leftJoin(join.table.as(join.alias), `${join.alias}.product_id`, 'p.id');
  const found = await query.select('p.id').orderBy(price.price, direction).orderBy('p.id', direction).offset(offset).limit(limit).execute();
  return found.map((row: { id: number | string }) => Number(row.id));
}

/**
 * The list's products that can be among its first `end` by the caller's price. The end-th product by
 * regular price (shop price K) bounds it: ascending, `end` products cost at most K (discounts and
 * campaigns only lower a price), so only those whose regular price can fall to K (lowestPrice) or with
 * a running campaign price at most K can come first; descending, taking K among the products without
 * a running campaign price, `end` products cost at least lowest(K), so only those with a regular
 * price of at least that can. A wholesale caller's own prices
 * go either way: their list is sorted whole.
 */
async function candidates(scope: PriceStreamScope, end: number): Promise<{ query: ProductQuery; bounded: boolean }> {
  const { visible, caller, direction, campaignIds, db } = scope;
  const whole = { query: visible(), bounded: false };
  if (caller.kind === 'WHOLESALE') return whole;
  const shop = sql<number>`p.shop_price_cents`;
  const kind = caller.kind === 'BUSINESS' ? 'BUSINESS' : 'RETAIL';
  const campaignPrices = () =>
    db.selectFrom('campaign_price as cp').where('cp.campaign_id', 'in', campaignIds).where('cp.customer_kind', '=', kind);
  // Descending, a campaign price can put a product below any bound of its shop price: only the others count.
  const counted =
    direction === 'desc' && campaignIds.length > 0
      ? visible().where((eb) =>
          eb.not(eb.exists(campaignPrices().select('cp.product_id').where('cp.product_id', '=', sql.ref<number>('p.id')))),
        )
      : visible();
  const nth = await counted
    .select(shop.as('key'))
    .orderBy(shop, direction)
    .orderBy('p.id', direction)
    .offset(end - 1)
    .limit(1)
    .executeTakeFirst();
  // A page at the list's end: every product can be before it.
  if (nth === undefined) return whole;
  const bound = Number(nth.key);
  const lowest = lowestPrice(scope);
  if (direction === 'desc') return { query: visible().where(shop, '>=', lowest(bound)), bounded: true };
  const highest = highestShopPriceCosting(lowest, bound);
  if (highest === undefined) return whole;
  if (campaignIds.length === 0) return { query: visible().where(shop, '<=', highest), bounded: true };
  // One list of ids (not an OR of the two, which SQLite walks the whole price index for): each half by its index.
  const query = visible().where(
    'p.id',
    'in',
    db
      .selectFrom('product')
      .select('id')
      .where('shop_price_cents', '<=', highest)
      .unionAll(campaignPrices().select('cp.product_id as id').where('cp.price_cents', '<=', bound)),
  );
  return { query, bounded: true };
}

/** The highest shop price whose lowest price is at most `price` (lowest is non-decreasing), or undefined if none is. */
function highestShopPriceCosting(lowest: (shop: number) => number, price: number): number | undefined {
  let low = price;
  let high = Math.max(2 * price, 1);
  while (lowest(high) <= price) {
    // A discount of (nearly) 100 % prices everything at about nothing: no bound.
    if (high > Number.MAX_SAFE_INTEGER / 4) return undefined;
    [low, high] = [high, 2 * high];
  }
  // lowest(low) <= price < lowest(high)
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (lowest(middle) <= price) low = middle;
    else high = middle;
  }
  return low;
}
