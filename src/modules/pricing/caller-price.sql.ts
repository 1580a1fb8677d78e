import { sql, type Expression, type RawBuilder } from 'kysely';
import { int } from '../../db/sql-int.js';
import type { CustomerKind, StoreDiscounts } from './pricing.js';

// The caller's price and discount of a product as SQL over search_product (alias sp, for search) or
// product (alias p, for the catalogue's lists sorted by price: price-streams.ts), by the
// rules of pricing.ts: the same integer arithmetic (percent as parts per million, round half
// up), so filtering and sorting on it agree to the cent with the prices the cards show, for every
// kind of caller, without pricing any match in JavaScript. test/pricing/caller-price-sql.test.ts
// checks the agreement on a generated catalogue; a rule changed in one form must change here too.

const PPM = 1_000_000;
const GIFT_CARDS = sql`('GIFT_CARD', 'VIRTUAL_GIFT_CARD')`;

/** What pricing needs to know of a caller (catalogue's Caller is one). */
export interface PricingCaller {
  kind: CustomerKind;
  clientDiscountPercent: number;
  companyDiscountPercent: number;
  /** The company of a business or wholesale account (its custom prices); null otherwise. */
  companyId: number | null;
}

/** Whom, where and when the prices are for. */
export interface PriceScope {
  caller: PricingCaller;
  store: StoreDiscounts;
  storeCode: string;
  /** Unix ms: which campaigns run. */
  now: number;
  /**
   * The campaigns running at `now`, when the caller has them already (a list kept per that set):
   * their prices are read by id, so the expression prices with the very campaigns the list is kept for.
   */
  runningCampaignIds?: readonly number[];
}

/** The table the price is of: search_product as sp (search), or product as p (the catalogue's lists). */
export type PricedTable = 'sp' | 'p';

/** The one SQL function that differs between the engines here (min/max on SQLite, least/greatest on PostgreSQL). */
export interface LeastFunction {
  least(...values: Expression<number | null>[]): RawBuilder<number>;
}

/** LeastFunction for an engine by name (search's engines and the catalogue's deep price pages). */
export function leastFor(engine: 'sqlite' | 'postgres'): LeastFunction {
  return {
    least: (...values) =>
      engine === 'postgres'
        ? sql<number>`least(${sql.join(values)})`
        : // min() of one argument would be the aggregate.
          values.length === 1
          ? sql<number>`${values[0]}`
          : sql<number>`min(${sql.join(values)})`,
  };
}

/** A derived table the price reads, one row per product: left join it as `alias` on `alias.product_id = <table>.id`. */
export interface PriceJoin {
  alias: 'cmp' | 'cpp';
  table: RawBuilder<{ product_id: number; price: number }>;
}

export interface PriceSql {
  /** What the caller pays, in cents. */
  price: RawBuilder<number>;
  /** The discount the card shows, whole percent. */
  discount: RawBuilder<number>;
  /** What the expressions read: the lowest running campaign price (cmp), the company's own price (cpp). */
  joins: PriceJoin[];
}

const ppm = (percent: number) => Math.round(percent * 10_000);
const percentOff = (cents: RawBuilder<number>, partsPerMillion: RawBuilder<number>) =>
  sql<number>`((2 * ${cents} * (${int(PPM)} - ${partsPerMillion}) + ${int(PPM)}) / ${int(2 * PPM)})`;
const ratioPercent = (part: RawBuilder<number>, whole: RawBuilder<number>) =>
  sql<number>`((2 * ${part} * 100 + ${whole}) / (2 * ${whole}))`;
const excludingVat = (cents: RawBuilder<number>, vatRate: RawBuilder<unknown>) => {
  const divisor = sql<number>`(${int(PPM)} + cast(round(${vatRate} * 10000) as bigint))`;
  return sql<number>`((2 * ${cents} * ${int(PPM)} + ${divisor}) / (2 * ${divisor}))`;
};
const NO_CAMPAIGN_PRICE = int(Number.MAX_SAFE_INTEGER);
// Business and wholesale prices have no strike-through; a bare 0 in ORDER BY would name a column.
const NO_DISCOUNT = sql<number>`cast(0 as bigint)`;

/**
 * How the campaign prices are read: `join` (a derived table of every running campaign price, left
 * joined), or `lookup` (each product's own, by index, where its expression is evaluated): cheaper
 * when few products are priced (a text search's matches), as the join reads every campaign price
 * of the store first.
 */
export type CampaignPriceRead = 'join' | 'lookup';

/**
 * `table`: the alias of the table priced (search_product as sp by default, product as p); the joins
 * are to be left joined on its id.
 */
export function callerPriceSql(
  engine: LeastFunction,
  scope: PriceScope,
  campaigns: CampaignPriceRead = 'join',
  table: PricedTable = 'sp',
): PriceSql {
  const { caller, store } = scope;
  const col = (name: string) => sql.ref(`${table}.${name}`);
  const shop = sql<number>`cast(${col('shop_price_cents')} as bigint)`;
  const type = col('type');
  const campaign = (kind: 'RETAIL' | 'BUSINESS') => {
    // No campaign running: nothing to read (a list kept for that set prices with none).
    if (scope.runningCampaignIds?.length === 0) return { lowest: NO_CAMPAIGN_PRICE, joins: [] };
    return campaigns === 'lookup'
      ? { lowest: sql<number>`coalesce(${campaignPriceOf(scope, kind, col('id'))}, ${NO_CAMPAIGN_PRICE})`, joins: [] }
      : { lowest: sql<number>`coalesce(cmp.price, ${NO_CAMPAIGN_PRICE})`, joins: [campaignPrices(scope, kind)] };
  };
  switch (caller.kind) {
    case 'GUEST':
    case 'SIMPLE': {
      // Discounts never stack: the larger of the store's and the client's; e-books get only the client's.
      const client = caller.kind === 'SIMPLE' ? caller.clientDiscountPercent : 0;
      const storePercent = caller.kind === 'GUEST' ? store.guestDiscountPercent : store.loggedInDiscountPercent;
      const books = int(ppm(Math.max(client, storePercent)));
      const ebooks = int(ppm(client));
      const discounted = percentOff(shop, sql<number>`(case when ${type} = 'EBOOK' then ${ebooks} else ${books} end)`);
      const { lowest, joins } = campaign('RETAIL');
      const price = sql<number>`(case when ${type} in ${GIFT_CARDS} then ${shop} else ${engine.least(discounted, lowest)} end)`;
      const original = sql<number>`cast(coalesce(${col('original_price_cents')}, 0) as bigint)`;
      // Struck through: the shop price when a discount or campaign applies, else the list price if higher.
      const discount = sql<number>`(case when ${type} in ${GIFT_CARDS} then 0
        when ${price} < ${shop} then ${ratioPercent(sql`(${shop} - ${price})`, shop)}
        when ${original} > ${shop} then ${ratioPercent(sql`(${original} - ${shop})`, original)}
        else 0 end)`;
      return { price, discount, joins };
    }
    case 'BUSINESS': {
      const original = col('original_price_cents');
      const list = sql<number>`(case when coalesce(${original}, 0) > ${col('shop_price_cents')} then cast(${original} as bigint) else ${shop} end)`;
      const discounted = percentOff(list, int(ppm(caller.companyDiscountPercent)));
      const { lowest, joins } = campaign('BUSINESS');
      const price = sql<number>`(case when ${type} in ${GIFT_CARDS} then ${shop} else ${engine.least(shop, discounted, lowest)} end)`;
      return { price, discount: NO_DISCOUNT, joins };
    }
    case 'WHOLESALE': {
      const lessVat = excludingVat(shop, col('vat_rate_percent'));
      const wholesale = col('wholesale_price_cents');
      const price = sql<number>`(case when ${type} in ${GIFT_CARDS} then ${lessVat}
        when coalesce(cpp.price, 0) > 0 then cast(cpp.price as bigint)
        when coalesce(${wholesale}, 0) > 0 then cast(${wholesale} as bigint)
        else ${lessVat} end)`;
      return { price, discount: NO_DISCOUNT, joins: [companyPrices(caller.companyId ?? 0)] };
    }
  }
}

/** The prices of exactly the campaigns given (the ones a list is kept for: PriceScope.runningCampaignIds). */
const ofCampaigns = (ids: readonly number[]) => sql`cp.campaign_id in (${sql.join(ids.map((id) => int(id)))})`;

/** Campaign c's window holds at `now`: from inclusive, to exclusive (pricing.ts campaignRunsAt). */
const runsAt = (now: number) =>
  sql`(c.valid_from is null or c.valid_from <= ${int(now)}) and (c.valid_to is null or c.valid_to > ${int(now)})`;

/** The lowest price of each product among the store's campaigns for `kind` running at `now`. */
function campaignPrices(scope: PriceScope, kind: 'RETAIL' | 'BUSINESS'): PriceJoin {
  if (scope.runningCampaignIds !== undefined) {
    return {
      alias: 'cmp',
      table: sql`(select cp.product_id, min(cp.price_cents) as price from campaign_price cp
    where ${ofCampaigns(scope.runningCampaignIds)} and cp.customer_kind = ${kind} group by cp.product_id)`,
    };
  }
  const { storeCode, now } = scope;
  // Campaigns first (a store has a handful), then their prices: `cross join` keeps SQLite to that order.
  return {
    alias: 'cmp',
    table: sql`(select cp.product_id, min(cp.price_cents) as price from campaign c cross join campaign_price cp
    where cp.campaign_id = c.id and c.store_code = ${storeCode} and c.is_active = ${true} and cp.customer_kind = ${kind}
      and ${runsAt(now)}
    group by cp.product_id)`,
  };
}

/** The lowest price of the product `id` among the store's campaigns for `kind` running at `now` (null: none), read by index. */
function campaignPriceOf(scope: PriceScope, kind: 'RETAIL' | 'BUSINESS', id: RawBuilder<unknown>): RawBuilder<number | null> {
  if (scope.runningCampaignIds !== undefined) {
    return sql<number | null>`(select min(cp.price_cents) from campaign_price cp
    where cp.product_id = ${id} and ${ofCampaigns(scope.runningCampaignIds)} and cp.customer_kind = ${kind})`;
  }
  const { storeCode, now } = scope;
  return sql<number | null>`(select min(cp.price_cents) from campaign_price cp cross join campaign c
    where cp.product_id = ${id} and c.id = cp.campaign_id and c.store_code = ${storeCode} and c.is_active = ${true} and cp.customer_kind = ${kind}
      and ${runsAt(now)})`;
}

function companyPrices(companyId: number): PriceJoin {
  return {
    alias: 'cpp',
    table: sql`(select product_id, price_cents as price from company_product_price where company_id = ${int(companyId)})`,
  };
}

/** A cache key part that is the same for every caller who pays the same prices. */
export function pricingKey(caller: PricingCaller): string {
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
