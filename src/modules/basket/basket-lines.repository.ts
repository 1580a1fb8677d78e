import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { preparedListQuery, preparedQuery } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { CampaignPrice } from '../pricing/index.js';
import type { BasketProduct } from './basket-products.repository.js';
import type { BasketLineRow } from './basket.repository.js';

// A basket's lines with everything pricing needs of their products: the lines joined to their
// products, whether the store sells each and whether it has campaign prices at all; then, only
// when one has, the store's active campaign prices of the basket's products, by a second query
// keyed by the basket. One product (add-product's, when it is not in the basket yet) is read the
// same way. Folding the campaign prices into the first query, as a left join or a subquery per
// line, cost more on SQLite (measured: a single product read 13 -> 43 µs with the left join), and
// most baskets hold no campaign product at all. The builders run as prepared queries, compiled
// once, outside transactions (GET /basket, the group's hot path) and inside them (`.on(trx)`:
// every write's answer, add-product's rule checks); built by Kysely per call where no handle is
// at hand (the login answers, delivery).

export const PRODUCT_COLUMNS = [
  'p.id as product_id',
  'p.code',
  'p.name',
  'p.type',
  'p.binding_code',
  'p.image_url',
  'p.availability',
  'p.delivery_time',
  'p.web_stock',
  'p.reserved_quantity',
  'p.weight_g',
  'p.is_active',
  'p.hidden_web',
  'p.hidden_business',
  'p.shop_price_cents',
  'p.original_price_cents',
  'p.wholesale_price_cents',
  'p.vat_rate_percent',
] as const;

export const inStore = (storeCode: string) =>
  sql<number | boolean>`exists (select 1 from product_store ps where ps.product_id = p.id and ps.store_code = ${storeCode})`.as('in_store');

// Whether any campaign has a price for the product (of any store, active or not): only then are
// campaign prices read.
export const hasCampaignPrices = sql<number | boolean>`exists (select 1 from campaign_price cp where cp.product_id = p.id)`.as(
  'has_campaign',
);

const lineRows = (db: Kysely<Database>, basketId: number, storeCode: string) =>
  db
    .selectFrom('basket_line as bl')
    .innerJoin('product as p', 'p.id', 'bl.product_id')
    .select(PRODUCT_COLUMNS)
    .select([inStore(storeCode), hasCampaignPrices, 'bl.quantity', 'bl.seen_price_cents', 'bl.added_at'])
    .where('bl.basket_id', '=', basketId)
    .orderBy('bl.added_at')
    .orderBy('bl.product_id');

// The campaign's store is compared as an expression, not as the indexed column: with the catalogue
// ANALYZEd (sqlite_stat4 on campaign_store_idx) SQLite would look at the bound store code to plan,
// and a statement whose plan depends on a bound value is compiled again on every run (measured:
// half the query's time). The campaign is found by its primary key either way; PostgreSQL plans it
// the same.
const campaignStore = sql<string>`c.store_code || ''`;

// Written as cross joins so that SQLite starts from the basket's few lines (it otherwise scans the
// campaigns first and probes every line under each); PostgreSQL plans them as inner joins.
export const campaignRows = (db: Kysely<Database>, basketId: number, storeCode: string) =>
  db
    .selectFrom('basket_line as bl')
    .crossJoin('campaign_price as cp')
    .crossJoin('campaign as c')
    .select(['cp.product_id', 'cp.customer_kind', 'cp.price_cents', 'c.valid_from', 'c.valid_to'])
    .where('bl.basket_id', '=', basketId)
    .whereRef('cp.product_id', '=', 'bl.product_id')
    .whereRef('c.id', '=', 'cp.campaign_id')
    .where(campaignStore, '=', storeCode)
    .where('c.is_active', '=', sql.lit(true));

const productRows = (db: Kysely<Database>, productId: number, storeCode: string) =>
  db
    .selectFrom('product as p')
    .select(PRODUCT_COLUMNS)
    .select([inStore(storeCode), hasCampaignPrices])
    .where('p.id', '=', productId);

const productCampaignRows = (db: Kysely<Database>, productId: number, storeCode: string) =>
  db
    .selectFrom('campaign_price as cp')
    .crossJoin('campaign as c')
    .select(['cp.product_id', 'cp.customer_kind', 'cp.price_cents', 'c.valid_from', 'c.valid_to'])
    .where('cp.product_id', '=', productId)
    .whereRef('c.id', '=', 'cp.campaign_id')
    .where(campaignStore, '=', storeCode)
    .where('c.is_active', '=', sql.lit(true));

// Several products at once (add-product's rule checks, a merge; prepared per list length for the
// products GET /basket keeps, basket-product-cache.ts).
const productsRows = (db: Db, ids: readonly number[], storeCode: string) =>
  db.selectFrom('product as p').select(PRODUCT_COLUMNS).select(inStore(storeCode)).where('p.id', 'in', ids);

const productsCampaignRows = (db: Db, ids: readonly number[], storeCode: string) =>
  db
    .selectFrom('campaign_price as cp')
    .innerJoin('campaign as c', 'c.id', 'cp.campaign_id')
    .select(['cp.product_id', 'cp.customer_kind', 'cp.price_cents', 'c.valid_from', 'c.valid_to'])
    .where('cp.product_id', 'in', ids)
    .where(campaignStore, '=', storeCode)
    .where('c.is_active', '=', sql.lit(true));

type ProductRow = Awaited<ReturnType<ReturnType<typeof productRows>['execute']>>[number];
type ProductColumnsRow = Omit<ProductRow, 'has_campaign'>;
export type LineRow = Awaited<ReturnType<ReturnType<typeof lineRows>['execute']>>[number];
type CampaignRow = Awaited<ReturnType<ReturnType<typeof campaignRows>['execute']>>[number];

export interface BasketLine {
  line: BasketLineRow;
  product: BasketProduct;
}

/** The products with these ids as the basket sees them in the store, by id; missing ids are left out. */
export type ProductsReader = (db: Db, storeCode: string, ids: readonly number[]) => Promise<Map<number, BasketProduct>>;

/** Reads a basket's lines with their products, in the order they were added, on `db` (a transaction or the database). */
export type LineReader = (db: Db, basketId: number, storeCode: string) => Promise<BasketLine[]>;

/** The basket's queries on products: its lines, and one product as a line would carry it. */
export interface LineQueries {
  lines: LineReader;
  /** The product with this id as the basket sees it in the store; undefined when there is none. */
  product(db: Db, productId: number, storeCode: string): Promise<BasketProduct | undefined>;
  products: ProductsReader;
}

/** Built by Kysely per call, for code that has no database handle at hand. */
export const buildLineQueries: LineQueries = {
  lines: async (db, basketId, storeCode) => {
    const rows = await lineRows(db, basketId, storeCode).execute();
    return toLines(basketId, rows, rows.some(hasCampaign) ? await campaignRows(db, basketId, storeCode).execute() : []);
  },
  product: async (db, productId, storeCode) => {
    const [row] = await productRows(db, productId, storeCode).execute();
    return row && toProduct(row, row.has_campaign ? await productCampaignRows(db, productId, storeCode).execute() : []);
  },
  products: readBasketProducts,
};

/** The queries compiled once; they run on any Db, an open transaction included. */
export function preparedLineQueries(handle: DatabaseHandle): LineQueries {
  const lines = preparedQuery(handle, (db, basketId: number, storeCode: string) => lineRows(db, basketId, storeCode));
  const campaigns = preparedQuery(handle, (db, basketId: number, storeCode: string) => campaignRows(db, basketId, storeCode));
  const product = preparedQuery(handle, (db, productId: number, storeCode: string) => productRows(db, productId, storeCode));
  const productCampaigns = preparedQuery(handle, (db, productId: number, storeCode: string) =>
    productCampaignRows(db, productId, storeCode),
  );
  return {
    products: preparedBasketProducts(handle),
    lines: async (db, basketId, storeCode) => {
      const rows = await lines.on(db, basketId, storeCode);
      return toLines(basketId, rows, rows.some(hasCampaign) ? await campaigns.on(db, basketId, storeCode) : []);
    },
    product: async (db, productId, storeCode) => {
      const [row] = await product.on(db, productId, storeCode);
      return row && toProduct(row, row.has_campaign ? await productCampaigns.on(db, productId, storeCode) : []);
    },
  };
}

/** The products with these ids as the basket sees them in the store, by id; missing ids are left out. */
export async function readBasketProducts(db: Db, storeCode: string, ids: readonly number[]): Promise<Map<number, BasketProduct>> {
  if (ids.length === 0) return new Map();
  const [rows, campaigns] = await Promise.all([
    productsRows(db, ids, storeCode).execute(),
    productsCampaignRows(db, ids, storeCode).execute(),
  ]);
  return productsById(rows, campaigns);
}

/** readBasketProducts compiled once per number of ids (GET /basket's misses of its kept products). */
export function preparedBasketProducts(handle: DatabaseHandle): ProductsReader {
  const products = preparedListQuery(handle, (db, ids: readonly number[], storeCode: string) => productsRows(db, ids, storeCode));
  const campaigns = preparedListQuery(handle, (db, ids: readonly number[], storeCode: string) => productsCampaignRows(db, ids, storeCode));
  return async (db, storeCode, ids) => {
    if (ids.length === 0) return new Map();
    const [rows, campaignRows] = await Promise.all([products.on(db, ids, storeCode), campaigns.on(db, ids, storeCode)]);
    return productsById(rows, campaignRows);
  };
}

function productsById(rows: readonly ProductColumnsRow[], campaigns: readonly CampaignRow[]): Map<number, BasketProduct> {
  const result = new Map(rows.map((row) => [Number(row.product_id), basketProduct(row)]));
  for (const row of campaigns) result.get(Number(row.product_id))?.campaignPrices.push(campaignPrice(row));
  return result;
}

/** A basket's lines without their products, in the order they were added (compiled once). */
export function preparedPlainLines(handle: DatabaseHandle): (db: Db, basketId: number) => Promise<BasketLineRow[]> {
  const rows = preparedQuery(handle, (db, basketId: number) =>
    db
      .selectFrom('basket_line')
      .select(['product_id', 'quantity', 'seen_price_cents', 'added_at'])
      .where('basket_id', '=', basketId)
      .orderBy('added_at')
      .orderBy('product_id'),
  );
  return async (db, basketId) =>
    (await rows.on(db, basketId)).map((row) => ({
      basket_id: basketId,
      product_id: Number(row.product_id),
      quantity: row.quantity,
      seen_price_cents: row.seen_price_cents,
      added_at: Number(row.added_at),
    }));
}

export const hasCampaign = (row: { has_campaign: number | boolean }) => Boolean(row.has_campaign);

function campaignPrice(row: {
  customer_kind: CampaignPrice['customerKind'];
  price_cents: number;
  valid_from: number | null;
  valid_to: number | null;
}): CampaignPrice {
  const price: CampaignPrice = { customerKind: row.customer_kind, priceCents: row.price_cents };
  if (row.valid_from !== null) price.validFrom = Number(row.valid_from);
  if (row.valid_to !== null) price.validTo = Number(row.valid_to);
  return price;
}

export function toLines(basketId: number, rows: readonly LineRow[], campaigns: readonly CampaignRow[]): BasketLine[] {
  const byProduct = new Map<number, BasketProduct>();
  const lines = rows.map((row) => {
    const product = basketProduct(row);
    byProduct.set(product.id, product);
    return {
      line: {
        basket_id: basketId,
        product_id: product.id,
        quantity: row.quantity,
        seen_price_cents: row.seen_price_cents,
        added_at: Number(row.added_at),
      },
      product,
    };
  });
  for (const row of campaigns) byProduct.get(Number(row.product_id))?.campaignPrices.push(campaignPrice(row));
  return lines;
}

function toProduct(row: ProductRow, campaigns: readonly CampaignRow[]): BasketProduct {
  const product = basketProduct(row);
  for (const campaign of campaigns) product.campaignPrices.push(campaignPrice(campaign));
  return product;
}

function basketProduct(row: ProductColumnsRow): BasketProduct {
  return {
    id: Number(row.product_id),
    code: row.code,
    name: row.name,
    type: row.type,
    bindingCode: row.binding_code,
    imageUrl: row.image_url,
    availability: row.availability,
    deliveryTime: row.delivery_time,
    // What can still be sold: the web stock less what orders hold of it (checkout holds it).
    webStock: Number(row.web_stock) - Number(row.reserved_quantity),
    weightG: row.weight_g,
    isActive: Boolean(row.is_active),
    hiddenWeb: Boolean(row.hidden_web),
    hiddenBusiness: Boolean(row.hidden_business),
    inStore: Boolean(row.in_store),
    shopPriceCents: row.shop_price_cents,
    originalPriceCents: row.original_price_cents,
    wholesalePriceCents: row.wholesale_price_cents,
    vatRatePercent: row.vat_rate_percent,
    campaignPrices: [],
  };
}
