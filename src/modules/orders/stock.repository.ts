import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';

// Stock held for orders. product.web_stock is what the back office's feed says the web can sell;
// product.reserved_quantity is what orders not yet handed over hold of it. Holding is one
// conditional update, so of many checkouts racing for the last copies exactly as many succeed as
// there are copies: each sees the others' holds, on both engines (a row lock on PostgreSQL, the
// one writer on SQLite). A writer of several products' rows takes them in product id order (checkout
// too), so two of them never each hold a row the other waits for.

/** Holds `quantity` units when that many are free; false (and nothing held) when they are not. */
export async function holdStock(trx: Db, productId: number, quantity: number): Promise<boolean> {
  const held = await trx
    .updateTable('product')
    .set({ reserved_quantity: sql`reserved_quantity + ${quantity}` })
    .where('id', '=', productId)
    .where(sql<boolean>`web_stock - reserved_quantity >= ${quantity}`)
    .executeTakeFirst();
  return Number(held.numUpdatedRows) > 0;
}

/**
 * Keeps the product's row as it is until the order commits, for a line that holds no stock (a download,
 * a preorder): its row in share mode on PostgreSQL, where a writer of the product (a deactivation)
 * then waits for the order's commit, or the order for the writer's, and reads the product after it.
 * Two orders of one e-book share the row. SQLite's one writer needs no lock.
 */
export async function keepProduct(trx: Db, productId: number): Promise<void> {
  await lockRowsOnPostgres(trx, trx.selectFrom('product').select('id').where('id', '=', productId), 'share');
}

/** Gives back what the order's lines hold (an order that will not be paid, or was cancelled). */
export async function releaseStock(trx: Db, orderId: number): Promise<void> {
  const lines = await heldLines(trx, orderId);
  for (const line of lines) {
    await trx
      .updateTable('product')
      .set({
        reserved_quantity: sql`case when reserved_quantity > ${line.reserved_quantity} then reserved_quantity - ${line.reserved_quantity} else 0 end`,
      })
      .where('id', '=', line.product_id)
      .execute();
  }
  if (lines.length > 0) await clearHeld(trx, orderId);
}

/**
 * Holds a given-up order's stock again when its payment settles late. The money is ours, so the
 * order goes on even when the copies were sold meanwhile: the hold may then pass the stock, and
 * the back office sees the shortage when the order reaches it.
 */
export async function holdStockAgain(trx: Db, orderId: number): Promise<void> {
  const lines = await trx
    .selectFrom('order_line')
    .select(['product_id', 'quantity', 'position'])
    .where('order_id', '=', orderId)
    .where('stock_bound', '=', true)
    .where('reserved_quantity', '=', 0)
    .orderBy('product_id')
    .execute();
  for (const line of lines) {
    await trx
      .updateTable('product')
      .set({ reserved_quantity: sql`reserved_quantity + ${line.quantity}` })
      .where('id', '=', line.product_id)
      .execute();
    await trx
      .updateTable('order_line')
      .set({ reserved_quantity: line.quantity })
      .where('order_id', '=', orderId)
      .where('position', '=', line.position)
      .execute();
  }
}

/**
 * Turns the order's held units into sold ones: they leave web_stock and the hold together. The
 * back office's next stock feed replaces web_stock with its own count, which has the order once
 * the order was handed to it. The product's update time moves with its web stock (the data export's
 * stockCount, found by `updatedFrom`).
 */
export async function sellStock(trx: Db, orderId: number, now: number): Promise<void> {
  const lines = await heldLines(trx, orderId);
  for (const line of lines) {
    await trx
      .updateTable('product')
      .set({
        reserved_quantity: sql`case when reserved_quantity > ${line.reserved_quantity} then reserved_quantity - ${line.reserved_quantity} else 0 end`,
        web_stock: sql`case when web_stock > ${line.reserved_quantity} then web_stock - ${line.reserved_quantity} else 0 end`,
        updated_at: sql`case when updated_at < ${now} then ${now} else updated_at end`,
      })
      .where('id', '=', line.product_id)
      .execute();
  }
  if (lines.length > 0) await clearHeld(trx, orderId);
}

function heldLines(trx: Db, orderId: number) {
  return trx
    .selectFrom('order_line')
    .select(['product_id', 'reserved_quantity'])
    .where('order_id', '=', orderId)
    .where('reserved_quantity', '>', 0)
    .orderBy('product_id')
    .execute();
}

async function clearHeld(trx: Db, orderId: number): Promise<void> {
  await trx
    .updateTable('order_line')
    .set({ reserved_quantity: 0 })
    .where('order_id', '=', orderId)
    .where('reserved_quantity', '>', 0)
    .execute();
}
