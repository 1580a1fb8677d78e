import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import * as giftCardEntitlements from '../../src/db/migrations/2026_12_01_0900_revoke_gift_card_entitlements.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { engine, openMigratedScratch } from '../helpers/test-app.js';

// Migration 0900 takes back the download entitlements processing granted to gift-card lines before
// it granted downloads only: the orders' e-books keep theirs, the cards' list items go with them
// (the entitlement's triggers), their download counts stay. Down grants them again as processing
// did: to the processed orders not cancelled since, at the time they were processed.

let database: DatabaseHandle;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ database, close } = await openMigratedScratch());
});
afterAll(async () => close());

const PROCESSED_AT = Date.UTC(2026, 10, 20, 12);

async function productWithFile(type: 'EBOOK' | 'VIRTUAL_GIFT_CARD'): Promise<{ id: number; code: string }> {
  const db = database.db;
  const id = await createProduct(db, { type, deliveryTime: type === 'EBOOK' ? 'INSTANT_DOWNLOAD' : null });
  const { code } = await db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow();
  await db
    .insertInto('product_file')
    .values({
      product_id: id,
      format: 'PDF',
      storage_key: `products/${id}/PDF`,
      content_type: 'application/pdf',
      size_bytes: 1,
      filename: 'a.pdf',
      created_at: PROCESSED_AT,
      updated_at: PROCESSED_AT,
    })
    .execute();
  return { id, code };
}

/** An order of an e-book and a virtual gift card, as the processing before this migration left it. */
async function orderAsProcessedBefore(clientAccountId: number, status: 'PROCESSING' | 'CANCELLED') {
  const db = database.db;
  const book = await productWithFile('EBOOK');
  const card = await productWithFile('VIRTUAL_GIFT_CARD');
  const order = await insertOrder(db, {
    status: 'PROCESSING',
    clientAccountId,
    at: PROCESSED_AT,
    lines: [
      { productId: book.id, productCode: book.code, digital: true },
      { productId: card.id, productCode: card.code, digital: true },
    ],
  });
  await db
    .updateTable('order_line')
    .set({ product_type: 'VIRTUAL_GIFT_CARD' })
    .where('order_id', '=', order.id)
    .where('product_id', '=', card.id)
    .execute();
  await db
    .insertInto('order_entitlement')
    .values(
      [book.id, card.id].map((product_id) => ({
        order_id: order.id,
        product_id,
        client_account_id: clientAccountId,
        created_at: PROCESSED_AT,
      })),
    )
    .execute();
  await db.insertInto('download_count').values({ order_id: order.id, product_id: card.id, used: 1, updated_at: PROCESSED_AT }).execute();
  if (status === 'CANCELLED') {
    // As a cancel after processing did: the order's entitlements went.
    await db.updateTable('customer_order').set({ status }).where('id', '=', order.id).execute();
    await db.deleteFrom('order_entitlement').where('order_id', '=', order.id).execute();
  }
  return { orderId: order.id, book: book.id, card: card.id };
}

const entitlementsOf = (orderId: number) =>
  database.db
    .selectFrom('order_entitlement')
    .select(['product_id', 'client_account_id', 'created_at'])
    .where('order_id', '=', orderId)
    .orderBy('product_id')
    .execute()
    .then((rows) =>
      rows.map((row) => ({
        productId: Number(row.product_id),
        clientAccountId: Number(row.client_account_id),
        at: Number(row.created_at),
      })),
    );

const listedProducts = (orderId: number) =>
  database.db
    .selectFrom('download_item')
    .select('product_id')
    .where('order_id', '=', orderId)
    .orderBy('product_id')
    .execute()
    .then((rows) => rows.map((row) => Number(row.product_id)));

describe(`migration 2026_12_01_0900_revoke_gift_card_entitlements on ${engine}`, () => {
  it("takes the gift cards' entitlements and list items and keeps the e-books'; down grants them again to processed orders", async () => {
    const db = database.db;
    const { clientAccountId } = await createCustomer(db);
    const processed = await orderAsProcessedBefore(clientAccountId, 'PROCESSING');
    const cancelled = await orderAsProcessedBefore(clientAccountId, 'CANCELLED');
    const both = [processed.book, processed.card].sort((a, b) => a - b);
    expect(await listedProducts(processed.orderId)).toEqual(both);

    await giftCardEntitlements.up(db);
    expect(await entitlementsOf(processed.orderId)).toEqual([{ productId: processed.book, clientAccountId, at: PROCESSED_AT }]);
    expect(await listedProducts(processed.orderId)).toEqual([processed.book]);
    const counted = await db
      .selectFrom('download_count')
      .select('used')
      .where('order_id', '=', processed.orderId)
      .executeTakeFirstOrThrow();
    expect(Number(counted.used)).toBe(1);

    await giftCardEntitlements.down(db);
    const granted = [
      { productId: processed.book, clientAccountId, at: PROCESSED_AT },
      { productId: processed.card, clientAccountId, at: PROCESSED_AT },
    ].sort((a, b) => a.productId - b.productId);
    expect(await entitlementsOf(processed.orderId)).toEqual(granted);
    expect(await listedProducts(processed.orderId)).toEqual(both);
    expect(await entitlementsOf(cancelled.orderId)).toEqual([]);

    await giftCardEntitlements.up(db);
    expect(await entitlementsOf(processed.orderId)).toEqual([{ productId: processed.book, clientAccountId, at: PROCESSED_AT }]);
    expect(await listedProducts(processed.orderId)).toEqual([processed.book]);
  });
});
