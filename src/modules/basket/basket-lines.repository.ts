import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { CampaignPrice } from '../pricing/index.js';
import type { BasketProduct } from './basket-products.repository.js';
import type { BasketLineRow } from './basket.repository.js';

// A basket's lines with what pricing needs of their products: two queries keyed by the basket
// (lines joined to products, and the store's campaign prices of those products). The same
// builders run inside a transaction (writes, checkout) and, for reads, as prepared queries
// compiled once: GET /basket is the hot path of the group.

const lineRows = (db: Kysely<Database>, basketId: number, storeCode: string) =>
  db
    .selectFrom('basket_line as bl')
    .innerJoin('product as p', 'p.id', 'bl.product_id')
    .select([
      'bl.basket_id',
      'bl.product_id',
      'bl.quantity',
      'bl.seen_price_cents',
      'bl.added_at',
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
      sql<number | boolean>`exists (select 1 from product_store ps where ps.product_id = p.id and ps.store_code = ${storeCode})`.as(
        'in_store',
      ),
    ])
    .where('bl.basket_id', '=', basketId)
    .orderBy('bl.added_at')
    .orderBy('bl.product_id');

const campaignRows = (db: Kysely<Database>, basketId: number, storeCode: string) =>
  db
    .selectFrom('basket_line as bl')
    .innerJoin('campaign_price as cp', 'cp.product_id', 'bl.product_id')
    .innerJoin('campaign as c', 'c.id', 'cp.campaign_id')
    .select(['cp.product_id', 'cp.customer_kind', 'cp.price_cents', 'c.valid_from', 'c.valid_to'])
    .where('bl.basket_id', '=', basketId)
    .where('c.store_code', '=', storeCode)
    .where('c.is_active', '=', true);

type LineRow = Awaited<ReturnType<ReturnType<typeof lineRows>['execute']>>[number];
type CampaignRow = Awaited<ReturnType<ReturnType<typeof campaignRows>['execute']>>[number];

export interface BasketLine {
  line: BasketLineRow;
  product: BasketProduct;
}

/** Reads a basket's lines with their products, in the order they were added. */
export type LineReader = (basketId: number, storeCode: string) => Promise<BasketLine[]>;

/** The reader inside a transaction (or on the database, built per call). */
export function lineReader(db: Db): LineReader {
  return async (basketId, storeCode) =>
    toLines(...(await Promise.all([lineRows(db, basketId, storeCode).execute(), campaignRows(db, basketId, storeCode).execute()])));
}

/** The reader for reads outside transactions: both queries compiled once. */
export function preparedLineReader(handle: DatabaseHandle): LineReader {
  const lines = preparedQuery(handle, (db, basketId: number, storeCode: string) => lineRows(db, basketId, storeCode));
  const campaigns = preparedQuery(handle, (db, basketId: number, storeCode: string) => campaignRows(db, basketId, storeCode));
  return async (basketId, storeCode) => toLines(...(await Promise.all([lines(basketId, storeCode), campaigns(basketId, storeCode)])));
}

function toLines(rows: LineRow[], campaigns: CampaignRow[]): BasketLine[] {
  const byProduct = new Map<number, CampaignPrice[]>();
  for (const row of campaigns) {
    const id = Number(row.product_id);
    const list = byProduct.get(id) ?? [];
    list.push({
      customerKind: row.customer_kind,
      priceCents: row.price_cents,
      validFrom: row.valid_from ?? undefined,
      validTo: row.valid_to ?? undefined,
    });
    byProduct.set(id, list);
  }
  return rows.map((row) => {
    const id = Number(row.product_id);
    return {
      line: {
        basket_id: Number(row.basket_id),
        product_id: id,
        quantity: row.quantity,
        seen_price_cents: row.seen_price_cents,
        added_at: row.added_at,
      },
      product: {
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
        campaignPrices: byProduct.get(id) ?? [],
      },
    };
  });
}
