import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';

// The SQL that keeps the product row's derived values (denormalised.ts) in step with their tables.

/**
 * web_stock = the stock of the given products summed over the shops whose stock is sold on the web.
 * On PostgreSQL the products' rows are locked (in id order) by a statement of their own first, so
 * the sum is read after another writer of them (a stock line of another shop, a shop's flags) has
 * committed: an update that waits for a row lock goes on with the sum its statement read before the
 * wait, and wrote the other writer's shop as it was (stock lost from the web until the next line).
 */
export async function refreshWebStock(db: Db, productIds: readonly number[]): Promise<void> {
  if (productIds.length === 0) return;
  await lockRowsOnPostgres(db, db.selectFrom('product').select('id').where('id', 'in', productIds).orderBy('id'), 'no key update');
  await db
    .updateTable('product')
    .set({
      web_stock: sql<number>`coalesce((select sum(shop_stock.quantity) from shop_stock
        inner join shop on shop.id = shop_stock.shop_id
        where shop_stock.product_id = product.id and shop.web_stock = ${true} and shop.is_active = ${true}), 0)`,
    })
    .where('id', 'in', productIds)
    .execute();
}

/** image_url = the URL of the product's first IMAGE asset, or null. */
export async function refreshImageUrl(db: Db, productIds: readonly number[]): Promise<void> {
  if (productIds.length === 0) return;
  await db
    .updateTable('product')
    .set({
      image_url: sql<string | null>`(select product_asset.url from product_asset
        where product_asset.product_id = product.id and product_asset.kind = 'IMAGE'
        order by product_asset.position, product_asset.id limit 1)`,
    })
    .where('id', 'in', productIds)
    .execute();
}

/** rating_sum and rating_count from the product's ratings. */
export async function refreshRating(db: Db, productId: number): Promise<void> {
  await db
    .updateTable('product')
    .set({
      rating_sum: sql<number>`coalesce((select sum(rating) from product_rating where product_rating.product_id = product.id), 0)`,
      rating_count: sql<number>`(select count(*) from product_rating where product_rating.product_id = product.id)`,
    })
    .where('id', '=', productId)
    .execute();
}
