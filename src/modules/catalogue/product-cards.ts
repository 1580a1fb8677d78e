import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { Availability, Database, DeliveryTime, ProductTypeCode } from '../../db/schema.js';
import type { BoundedCache } from '../../infra/bounded-cache.js';
import type { Language } from '../../i18n/index.js';
import { priceFor, toWireMoney, type CampaignPrice, type PricedProduct, type StoreDiscounts } from '../pricing/pricing.js';
import { pricingCustomer, seesBusinessCatalogue, type Caller } from './caller.js';
import type { BindingNames } from './reference-data.js';

/**
 * What every product list shows of a product, priced for the caller. The parts that do not depend
 * on the caller (ProductBase) are read in one batch per page and kept per store for the cache
 * period; the price is worked out per request from them.
 */
export interface ProductBase {
  id: number;
  code: string;
  name: string;
  type: ProductTypeCode;
  language: string | null;
  bindingCode: string | null;
  year: number | null;
  imageUrl: string | null;
  availability: Availability;
  deliveryTime: DeliveryTime | null;
  webStock: number;
  ratingSum: number;
  ratingCount: number;
  releasedAt: number | null;
  isActive: boolean;
  hiddenWeb: boolean;
  hiddenBusiness: boolean;
  /** Whether the product is in this store's assortment. */
  inStore: boolean;
  pricing: PricedProduct;
  authors: PersonRef[];
}

export interface PersonRef {
  id: number;
  code: string;
  name: string;
}

export interface ProductCard {
  id: number;
  code: string;
  name: string;
  type: ProductTypeCode;
  language: string | null;
  binding: { code: string; name: string } | null;
  year: number | null;
  imageUrl: string | null;
  authors: PersonRef[];
  price: number;
  strikeThroughPrice: number | null;
  discountPercent: number;
  vatIncluded: boolean;
  availability: Availability;
  deliveryTime: DeliveryTime | null;
  stockCount: number;
  rating: { average: number | null; count: number };
  releaseDate: string | null;
}

/** Whether the caller may see the product in this store at all. */
export function isVisibleTo(base: ProductBase, caller: Caller): boolean {
  if (!base.isActive || !base.inStore) return false;
  return seesBusinessCatalogue(caller) ? !base.hiddenBusiness : !base.hiddenWeb;
}

export type BaseCache = BoundedCache<string, ProductBase | null>;

export type BaseReader = (storeCode: string, ids: readonly number[]) => Promise<Map<number, ProductBase>>;

/** Bases of the given products in the store, by id; ids with no product are left out. */
export async function loadBases(read: BaseReader, cache: BaseCache, storeCode: string, ids: readonly number[]): Promise<Map<number, ProductBase>> {
  const keys = ids.map((id) => `${storeCode}:${id}`);
  const found = await cache.getMany(keys, async (missing) => {
    const missingIds = missing.map((key) => Number(key.slice(storeCode.length + 1)));
    const loaded = await read(storeCode, missingIds);
    return new Map(missingIds.map((id) => [`${storeCode}:${id}`, loaded.get(id) ?? null]));
  });
  const result = new Map<number, ProductBase>();
  for (const base of found.values()) if (base) result.set(base.id, base);
  return result;
}

const PRODUCT_COLUMNS = [
  'id', 'code', 'name', 'type', 'language', 'binding_code', 'year', 'image_url', 'availability', 'delivery_time',
  'web_stock', 'rating_sum', 'rating_count', 'released_at', 'is_active', 'hidden_web', 'hidden_business',
  'shop_price_cents', 'original_price_cents', 'wholesale_price_cents', 'vat_rate_percent',
] as const;

// The four reads of a base, for one product (`=`, prepared once) or a page of them (`in`).
const productRows = (db: Kysely<Database>, ids: number | number[]) => {
  const query = db.selectFrom('product').select(PRODUCT_COLUMNS);
  return Array.isArray(ids) ? query.where('id', 'in', ids) : query.where('id', '=', ids);
};
const storeRows = (db: Kysely<Database>, storeCode: string, ids: number | number[]) => {
  const query = db.selectFrom('product_store').select('product_id').where('store_code', '=', storeCode);
  return Array.isArray(ids) ? query.where('product_id', 'in', ids) : query.where('product_id', '=', ids);
};
const authorRows = (db: Kysely<Database>, ids: number | number[]) => {
  const query = db
    .selectFrom('product_person')
    .innerJoin('person', 'person.id', 'product_person.person_id')
    .select(['product_person.product_id', 'person.id', 'person.code', 'person.name'])
    .where('product_person.role', '=', 'AUTHOR');
  return (Array.isArray(ids) ? query.where('product_person.product_id', 'in', ids) : query.where('product_person.product_id', '=', ids))
    .orderBy('product_person.product_id')
    .orderBy('product_person.position');
};
const campaignRows = (db: Kysely<Database>, storeCode: string, ids: number | number[]) => {
  const query = db
    .selectFrom('campaign_price')
    .innerJoin('campaign', 'campaign.id', 'campaign_price.campaign_id')
    .select(['campaign_price.product_id', 'campaign_price.customer_kind', 'campaign_price.price_cents', 'campaign.valid_from', 'campaign.valid_to'])
    .where('campaign.store_code', '=', storeCode)
    .where('campaign.is_active', '=', true);
  return Array.isArray(ids) ? query.where('campaign_price.product_id', 'in', ids) : query.where('campaign_price.product_id', '=', ids);
};

/**
 * Reads bases: a page of them with one query per table, a single product (a product page that
 * missed the cache) with the same queries prepared once, so nothing is built per call.
 */
export function baseReader(database: DatabaseHandle): BaseReader {
  const db = database.db;
  const one = {
    products: preparedQuery(database, (q, id: number) => productRows(q, id)),
    inStore: preparedQuery(database, (q, storeCode: string, id: number) => storeRows(q, storeCode, id)),
    authors: preparedQuery(database, (q, id: number) => authorRows(q, id)),
    campaigns: preparedQuery(database, (q, storeCode: string, id: number) => campaignRows(q, storeCode, id)),
  };
  return async (storeCode, ids) => {
    if (ids.length === 0) return new Map();
    if (ids.length === 1) {
      const id = ids[0]!;
      return assemble(await Promise.all([one.products(id), one.inStore(storeCode, id), one.authors(id), one.campaigns(storeCode, id)]));
    }
    const list = [...ids];
    return assemble(
      await Promise.all([
        productRows(db, list).execute(),
        storeRows(db, storeCode, list).execute(),
        authorRows(db, list).execute(),
        campaignRows(db, storeCode, list).execute(),
      ]),
    );
  };
}

type Rows<F extends (...args: never[]) => { execute(): Promise<unknown[]> }> = Awaited<ReturnType<ReturnType<F>['execute']>>;

function assemble([products, inStore, authors, campaigns]: [
  Rows<typeof productRows>,
  Rows<typeof storeRows>,
  Rows<typeof authorRows>,
  Rows<typeof campaignRows>,
]): Map<number, ProductBase> {
  const stocked = new Set(inStore.map((row) => row.product_id));
  const authorsOf = groupBy(authors, (row) => row.product_id);
  const campaignsOf = groupBy(campaigns, (row) => row.product_id);
  const bases = new Map<number, ProductBase>();
  for (const row of products) {
    bases.set(row.id, {
      id: row.id,
      code: row.code,
      name: row.name,
      type: row.type,
      language: row.language,
      bindingCode: row.binding_code,
      year: row.year,
      imageUrl: row.image_url,
      availability: row.availability,
      deliveryTime: row.delivery_time,
      webStock: row.web_stock,
      ratingSum: row.rating_sum,
      ratingCount: row.rating_count,
      releasedAt: row.released_at,
      isActive: Boolean(row.is_active),
      hiddenWeb: Boolean(row.hidden_web),
      hiddenBusiness: Boolean(row.hidden_business),
      inStore: stocked.has(row.id),
      pricing: {
        type: row.type,
        shopPriceCents: row.shop_price_cents,
        originalPriceCents: row.original_price_cents,
        wholesalePriceCents: row.wholesale_price_cents,
        vatRatePercent: row.vat_rate_percent,
        campaignPrices: (campaignsOf.get(row.id) ?? []).map(
          (c): CampaignPrice => ({
            customerKind: c.customer_kind,
            priceCents: c.price_cents,
            validFrom: c.valid_from ?? undefined,
            validTo: c.valid_to ?? undefined,
          }),
        ),
      },
      authors: (authorsOf.get(row.id) ?? []).map(({ id, code, name }) => ({ id, code, name })),
    });
  }
  return bases;
}

/** A company's own prices for the products (wholesale), by product id. */
export async function companyPrices(db: Kysely<Database>, caller: Caller, ids: readonly number[]): Promise<Map<number, number>> {
  if (caller.kind !== 'WHOLESALE' || caller.companyId === null || ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('company_product_price')
    .select(['product_id', 'price_cents'])
    .where('company_id', '=', caller.companyId)
    .where('product_id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.product_id, row.price_cents]));
}

export interface PriceContext {
  caller: Caller;
  store: StoreDiscounts;
  now: number;
  /** The caller's company prices, by product id (wholesale only). */
  companyPrices: Map<number, number>;
}

export function priceFields(base: ProductBase, context: PriceContext) {
  const price = priceFor(base.pricing, pricingCustomer(context.caller, context.companyPrices.get(base.id)), context.store, context.now);
  return {
    price: toWireMoney(price.priceCents),
    strikeThroughPrice: price.strikeThroughCents === null ? null : toWireMoney(price.strikeThroughCents),
    discountPercent: price.discountPercent,
    vatIncluded: price.vatIncluded,
    source: price.source,
  };
}

export function toCard(base: ProductBase, context: PriceContext, language: Language, bindings: BindingNames): ProductCard {
  return {
    id: base.id,
    code: base.code,
    name: base.name,
    type: base.type,
    language: base.language,
    binding: base.bindingCode === null ? null : { code: base.bindingCode, name: bindings.name(base.bindingCode, language) },
    year: base.year,
    imageUrl: base.imageUrl,
    authors: base.authors,
    ...wirePrice(priceFields(base, context)),
    availability: base.availability,
    deliveryTime: base.deliveryTime,
    stockCount: base.webStock,
    rating: ratingOf(base),
    releaseDate: base.releasedAt === null ? null : new Date(base.releasedAt).toISOString().slice(0, 10),
  };
}

function wirePrice({ source: _source, ...price }: ReturnType<typeof priceFields>) {
  return price;
}

export function ratingOf(base: Pick<ProductBase, 'ratingSum' | 'ratingCount'>): { average: number | null; count: number } {
  return {
    average: base.ratingCount === 0 ? null : Math.round((base.ratingSum / base.ratingCount) * 10) / 10,
    count: base.ratingCount,
  };
}

export function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
