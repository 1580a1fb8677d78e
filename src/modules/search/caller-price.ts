import { sql, type RawBuilder } from 'kysely';
import { seesBusinessCatalogue, type Caller } from '../catalogue/caller.js';
import type { StoreDiscounts } from '../pricing/pricing.js';
import type { SearchEngine } from './engine.js';

// The caller's price and discount of a product as SQL over search_product (alias sp), by the
// rules of pricing/pricing.ts: the same integer arithmetic (percent as parts per million, round
// half up), so filtering and sorting on it agree to the cent with the prices the cards show,
// for every kind of caller, without pricing any match in JavaScript. The campaign and company
// prices come from the joins below (aliases cmp and cpp). test/search checks the agreement.

const PPM = 1_000_000;
const GIFT_CARDS = sql`('GIFT_CARD', 'VIRTUAL_GIFT_CARD')`;

export interface PriceSql {
  /** What the caller pays, in cents. */
  price: RawBuilder<number>;
  /** The discount the card shows, whole percent. */
  discount: RawBuilder<number>;
  /** The joins the expressions read: lowest running campaign price (cmp.price), company price (cpp.price). */
  campaignKind: 'RETAIL' | 'BUSINESS' | null;
  companyId: number | null;
}

/** A bound integer that stays an integer in SQL arithmetic (better-sqlite3 binds numbers as REAL). */
export const int = (value: number) => sql<number>`cast(${Math.round(value)} as bigint)`;

const ppm = (percent: number) => Math.round(percent * 10_000);
const shop = sql<number>`cast(sp.shop_price_cents as bigint)`;
const percentOff = (cents: RawBuilder<number>, partsPerMillion: RawBuilder<number>) =>
  sql<number>`((2 * ${cents} * (${int(PPM)} - ${partsPerMillion}) + ${int(PPM)}) / ${int(2 * PPM)})`;
const ratioPercent = (part: RawBuilder<number>, whole: RawBuilder<number>) => sql<number>`((2 * ${part} * 100 + ${whole}) / (2 * ${whole}))`;
const excludingVat = (cents: RawBuilder<number>) => {
  const divisor = sql<number>`(${int(PPM)} + cast(round(sp.vat_rate_percent * 10000) as bigint))`;
  return sql<number>`((2 * ${cents} * ${int(PPM)} + ${divisor}) / (2 * ${divisor}))`;
};
const NO_CAMPAIGN = sql<number>`coalesce(cmp.price, ${int(Number.MAX_SAFE_INTEGER)})`;
// Business and wholesale prices have no strike-through; a bare 0 in ORDER BY would name a column.
const NO_DISCOUNT = sql<number>`cast(0 as bigint)`;

export function callerPriceSql(engine: SearchEngine, caller: Caller, store: StoreDiscounts): PriceSql {
  switch (caller.kind) {
    case 'GUEST':
    case 'SIMPLE': {
      // Discounts never stack: the larger of the store's and the client's; e-books get only the client's.
      const client = caller.kind === 'SIMPLE' ? caller.clientDiscountPercent : 0;
      const storePercent = caller.kind === 'GUEST' ? store.guestDiscountPercent : store.loggedInDiscountPercent;
      const books = int(ppm(Math.max(client, storePercent)));
      const ebooks = int(ppm(client));
      const discounted = percentOff(shop, sql<number>`(case when sp.type = 'EBOOK' then ${ebooks} else ${books} end)`);
      const price = sql<number>`(case when sp.type in ${GIFT_CARDS} then ${shop} else ${engine.least(discounted, NO_CAMPAIGN)} end)`;
      const original = sql<number>`cast(coalesce(sp.original_price_cents, 0) as bigint)`;
      // Struck through: the shop price when a discount or campaign applies, else the list price if higher.
      const discount = sql<number>`(case when sp.type in ${GIFT_CARDS} then 0
        when ${price} < ${shop} then ${ratioPercent(sql`(${shop} - ${price})`, shop)}
        when ${original} > ${shop} then ${ratioPercent(sql`(${original} - ${shop})`, original)}
        else 0 end)`;
      return { price, discount, campaignKind: 'RETAIL', companyId: null };
    }
    case 'BUSINESS': {
      const list = sql<number>`(case when coalesce(sp.original_price_cents, 0) > sp.shop_price_cents then cast(sp.original_price_cents as bigint) else ${shop} end)`;
      const discounted = percentOff(list, int(ppm(caller.companyDiscountPercent)));
      const price = sql<number>`(case when sp.type in ${GIFT_CARDS} then ${shop} else ${engine.least(shop, discounted, NO_CAMPAIGN)} end)`;
      return { price, discount: NO_DISCOUNT, campaignKind: 'BUSINESS', companyId: null };
    }
    case 'WHOLESALE': {
      const price = sql<number>`(case when sp.type in ${GIFT_CARDS} then ${excludingVat(shop)}
        when coalesce(cpp.price, 0) > 0 then cast(cpp.price as bigint)
        when coalesce(sp.wholesale_price_cents, 0) > 0 then cast(sp.wholesale_price_cents as bigint)
        else ${excludingVat(shop)} end)`;
      return { price, discount: NO_DISCOUNT, campaignKind: null, companyId: caller.companyId ?? 0 };
    }
  }
}

/** A cache key part that is the same for every caller who pays the same prices. */
export function pricingKey(caller: Caller): string {
  switch (caller.kind) {
    case 'GUEST':
      return 'G';
    case 'SIMPLE':
      return `S${caller.clientDiscountPercent}`;
    case 'BUSINESS':
      return `B${caller.companyDiscountPercent}`;
    case 'WHOLESALE':
      return `W${caller.companyId ?? 0}`;
  }
}

/** Which catalogue the caller sees: a cache key part for answers that do not depend on prices. */
export const audienceKey = (caller: Caller) => (seesBusinessCatalogue(caller) ? 'B' : 'R');
