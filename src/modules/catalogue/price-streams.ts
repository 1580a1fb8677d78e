import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { PRODUCT_TYPES } from '../../db/product-types.js';
import type { Database } from '../../db/schema.js';
import { isGiftCard, priceFor, type StoreDiscounts } from '../pricing/index.js';
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

function regularStream({ visible, caller, store, now, direction }: PriceStreamScope, key = regularPrice(caller)): PriceStream {
  const customer = pricingCustomer(caller);
  // Without a campaign, a product of shop price K costs at least what a book of that price costs
  // (e-books get fewer discounts, gift cards none; a list price above K only raises a business
  // price) and at most K: every discount and campaign only lowers the shop price.
  const lowest = (shop: number) =>
    Math.min(
      ...(['BOOK', 'EBOOK'] as const).map(
        (type) => priceFor({ type, shopPriceCents: shop, vatRatePercent: 0 }, customer, store, now).priceCents,
      ),
    );
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
