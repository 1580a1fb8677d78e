import type { Db } from '../../db/database.js';
import { lockedOnPostgres } from '../../db/row-lock.js';

// The SQL of shop stock as the stock and shops imports write and read it (stock.ts, shops.ts).

export function findShopStock(trx: Db, productId: number, shopId: number) {
  return trx
    .selectFrom('shop_stock')
    .select('quantity')
    .where('product_id', '=', productId)
    .where('shop_id', '=', shopId)
    .executeTakeFirst();
}

export async function updateShopStock(trx: Db, productId: number, shopId: number, quantity: number, now: number): Promise<void> {
  await trx
    .updateTable('shop_stock')
    .set({ quantity, updated_at: now })
    .where('product_id', '=', productId)
    .where('shop_id', '=', shopId)
    .execute();
}

/**
 * Moves the product's update time: its web stock (the data export's stockCount) changed, and the
 * export's `updatedFrom` finds products by it. Never back: a later write may have stamped it already.
 */
export async function stampStockChange(trx: Db, productId: number, now: number): Promise<void> {
  await trx.updateTable('product').set({ updated_at: now }).where('id', '=', productId).where('updated_at', '<', now).execute();
}

/** Inserts the row; false when it is there already (another import's line wrote it meanwhile). */
export async function insertShopStock(trx: Db, productId: number, shopId: number, quantity: number, now: number): Promise<boolean> {
  const rows = await trx
    .insertInto('shop_stock')
    .values({ product_id: productId, shop_id: shopId, quantity, updated_at: now })
    .onConflict((conflict) => conflict.columns(['product_id', 'shop_id']).doNothing())
    .returning('product_id')
    .execute();
  return rows.length > 0;
}

/** The products the shop has a stock row for, by id: their web stock is recounted (and their rows locked) in that order. */
export async function stockedProductIds(trx: Db, shopId: number): Promise<number[]> {
  const rows = await trx.selectFrom('shop_stock').select('product_id').where('shop_id', '=', shopId).orderBy('product_id').execute();
  return rows.map((row) => row.product_id);
}

/**
 * The products' web stock by id, their rows locked on PostgreSQL until the transaction ends (as
 * refreshWebStock locks them), so what is read is what a recount then changes.
 */
export async function lockedWebStock(trx: Db, productIds: readonly number[]): Promise<Map<number, number>> {
  const query = trx.selectFrom('product').select(['id', 'web_stock']).where('id', 'in', productIds).orderBy('id');
  const rows = await lockedOnPostgres(trx, query, 'no key update').execute();
  return new Map(rows.map((row) => [Number(row.id), Number(row.web_stock)]));
}
