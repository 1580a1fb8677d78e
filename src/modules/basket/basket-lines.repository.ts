import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { CampaignPrice } from '../pricing/index.js';
import type { BasketProduct } from './basket-products.repository.js';
import type { BasketLineRow } from './basket.repository.js';

// A basket's lines with everything pricing needs of their products, in one query keyed by the
// basket: lines joined to products, whether the store sells each, and the store's active campaign
// prices (a left join: a product with several campaign prices comes back once per price, and the
// rows are folded here). The same builders run as prepared queries, compiled once, outside
// transactions (GET /basket, the group's hot path) and inside them (`.on(trx)`: every write's
// answer, add-product's rule checks); built by Kysely per call where no handle is at hand (the
// login answers, delivery).

/** The product's columns and one of its campaign prices (nulls when it has none). */
const PRODUCT_COLUMNS = [
  'p.id as product_id',
  'p.code',
  'p.name',
  'p.type',
  'p.binding_code',
  'p.image_url',
  'p.availability',
  'p.delivery_time',
  'p.web_stock',
  'p.weight_g',
  'p.is_active',
  'p.hidden_web',
  'p.hidden_business',
  'p.shop_price_cents',
  'p.original_price_cents',
  'p.wholesale_price_cents',
  'p.vat_rate_percent',
  // A campaign of another store or an inactive one leaves c.id null: that row carries no price.
  'c.id as campaign_id',
  'cp.customer_kind',
  'cp.price_cents as campaign_price_cents',
  'c.valid_from',
  'c.valid_to',
] as const;

const inStore = (storeCode: string) =>
  sql<number | boolean>`exists (select 1 from product_store ps where ps.product_id = p.id and ps.store_code = ${storeCode})`.as('in_store');

const lineRows = (db: Kysely<Database>, basketId: number, storeCode: string) =>
  db
    .selectFrom('basket_line as bl')
    .innerJoin('product as p', 'p.id', 'bl.product_id')
    .leftJoin('campaign_price as cp', 'cp.product_id', 'bl.product_id')
    .leftJoin('campaign as c', (join) =>
      join.onRef('c.id', '=', 'cp.campaign_id').on('c.store_code', '=', storeCode).on('c.is_active', '=', sql.lit(true)),
    )
    .select(PRODUCT_COLUMNS)
    .select([inStore(storeCode), 'bl.quantity', 'bl.seen_price_cents', 'bl.added_at'])
    .where('bl.basket_id', '=', basketId)
    .orderBy('bl.added_at')
    .orderBy('bl.product_id');

const productRows = (db: Kysely<Database>, productId: number, storeCode: string) =>
  db
    .selectFrom('product as p')
    .leftJoin('campaign_price as cp', 'cp.product_id', 'p.id')
    .leftJoin('campaign as c', (join) =>
      join.onRef('c.id', '=', 'cp.campaign_id').on('c.store_code', '=', storeCode).on('c.is_active', '=', sql.lit(true)),
    )
    .select(PRODUCT_COLUMNS)
    .select(inStore(storeCode))
    .where('p.id', '=', productId);

type ProductRow = Awaited<ReturnType<ReturnType<typeof productRows>['execute']>>[number];
type LineRow = Awaited<ReturnType<ReturnType<typeof lineRows>['execute']>>[number];

export interface BasketLine {
  line: BasketLineRow;
  product: BasketProduct;
}

/** Reads a basket's lines with their products, in the order they were added, on `db` (a transaction or the database). */
export type LineReader = (db: Db, basketId: number, storeCode: string) => Promise<BasketLine[]>;

/** The basket's queries on products: its lines, and one product as a line would carry it. */
export interface LineQueries {
  lines: LineReader;
  /** The product with this id as the basket sees it in the store; undefined when there is none. */
  product(db: Db, productId: number, storeCode: string): Promise<BasketProduct | undefined>;
}

/** Built by Kysely per call, for code that has no database handle at hand. */
export const buildLineQueries: LineQueries = {
  lines: async (db, basketId, storeCode) => toLines(basketId, await lineRows(db, basketId, storeCode).execute()),
  product: async (db, productId, storeCode) =>
    toProducts(await productRows(db, productId, storeCode).execute())[0],
};

/** Both queries compiled once; they run on any Db, an open transaction included. */
export function preparedLineQueries(handle: DatabaseHandle): LineQueries {
  const lines = preparedQuery(handle, (db, basketId: number, storeCode: string) => lineRows(db, basketId, storeCode));
  const product = preparedQuery(handle, (db, productId: number, storeCode: string) => productRows(db, productId, storeCode));
  return {
    lines: async (db, basketId, storeCode) => toLines(basketId, await lines.on(db, basketId, storeCode)),
    product: async (db, productId, storeCode) => toProducts(await product.on(db, productId, storeCode))[0],
  };
}

/** One BasketProduct per product, its campaign prices gathered from the rows that repeat it (adjacent). */
function toProducts<R extends ProductRow>(rows: readonly R[], each?: (product: BasketProduct, row: R) => void): BasketProduct[] {
  const products: BasketProduct[] = [];
  let last: BasketProduct | undefined;
  for (const row of rows) {
    const id = Number(row.product_id);
    if (last?.id !== id) {
      last = toProduct(id, row);
      products.push(last);
      each?.(last, row);
    }
    if (row.campaign_id !== null && row.customer_kind !== null && row.campaign_price_cents !== null) {
      const price: CampaignPrice = { customerKind: row.customer_kind, priceCents: row.campaign_price_cents };
      if (row.valid_from !== null) price.validFrom = row.valid_from;
      if (row.valid_to !== null) price.validTo = row.valid_to;
      last.campaignPrices.push(price);
    }
  }
  return products;
}

function toLines(basketId: number, rows: readonly LineRow[]): BasketLine[] {
  const lines: BasketLine[] = [];
  toProducts(rows, (product, row) =>
    lines.push({
      line: {
        basket_id: basketId,
        product_id: product.id,
        quantity: row.quantity,
        seen_price_cents: row.seen_price_cents,
        added_at: Number(row.added_at),
      },
      product,
    }),
  );
  return lines;
}

function toProduct(id: number, row: ProductRow): BasketProduct {
  return {
    id,
    code: row.code,
    name: row.name,
    type: row.type,
    bindingCode: row.binding_code,
    imageUrl: row.image_url,
    availability: row.availability,
    deliveryTime: row.delivery_time,
    webStock: row.web_stock,
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
