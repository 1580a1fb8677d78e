import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { call, type Who } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { uploadProductFiles } from '../helpers/product-files.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, type Shop } from '../orders/helpers.js';
import { ebook, orderRow, payOnTestGateway } from '../orders/purchase-helpers.js';

// A virtual gift card is digital (nothing to ship) but it is money: issued and mailed to its
// recipient, never downloaded. Processing granted it a download entitlement as it did an e-book's,
// so the card showed as a purchase in the download list (once its product had a file), as something
// to download in the purchase history, and among the downloads of the client's data export.

let t: TestApp;
let shop: Shop;
let operatorKey: string;
let fileDir: string;

beforeAll(async () => {
  fileDir = mkdtempSync(join(tmpdir(), 'storefront-files-'));
  ({ t } = await createListeningApp({
    env: { FILE_STORE_DIR: fileDir, DOWNLOAD_LINK_SECRET: 'download-link-secret-for-the-tests-0123456789' },
  }));
  shop = await setUpShop(t);
  operatorKey = await createApiKey(t.database.db, 'files', Date.now());
});
afterAll(async () => {
  await t?.close();
  rmSync(fileDir, { recursive: true, force: true });
});

async function buyEbookAndGiftCard(): Promise<{ who: Who; book: number; card: number; orderCode: string }> {
  const db = t.database.db;
  const buyer = await createCustomer(db);
  const who: Who = { bearer: buyer.token };
  const book = await ebook(t, 9);
  const card = await createProduct(db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
  // A file on the card's product too (a printable design, say): it is still no download of the card's buyer.
  await uploadProductFiles(t, operatorKey, [
    [book, 'EPUB'],
    [card, 'PDF'],
  ]);
  await fill(t, who, [[book, 1]]);
  const deliveryDate = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const giftCard = { amount: 25, recipientName: 'Jaan Tamm', recipientEmail: 'jaan@example.ee', deliveryDate };
  const added = await call(t, 'POST', '/basket/add-product', who, { productId: card, quantity: 1, giftCard });
  expect(added.statusCode, added.body).toBe(200);
  const placed = await checkout(t, who, checkoutForm(shop, { deliveryMethodId: undefined }));
  expect(placed.statusCode, placed.body).toBe(200);
  const link = orderLink(placed.json().location);
  await payOnTestGateway(t, link.path);
  await t.drainJobs();
  const row = await orderRow(db, link.orderId);
  expect(row.status).toBe('PENDING_NAV_PROCESSING');
  return { who, book, card, orderCode: row.code! };
}

describe('an order of an e-book and a virtual gift card', () => {
  it('gives only the e-book to download: the download list, the purchase history and the data export', async () => {
    const { who, book, card, orderCode } = await buyEbookAndGiftCard();

    const downloads = await call(t, 'GET', '/download', who);
    expect(downloads.statusCode, downloads.body).toBe(200);
    expect(downloads.json()).toEqual([expect.objectContaining({ productId: book, format: 'EPUB', orderCode })]);

    // Both were bought; only the e-book is something to download.
    const bought = await call(t, 'GET', '/bought-product', who);
    expect(bought.statusCode, bought.body).toBe(200);
    const byProduct = new Map((bought.json() as Array<{ productId: number; download: unknown }>).map((row) => [row.productId, row]));
    expect([...byProduct.keys()].sort((a, b) => a - b)).toEqual([book, card].sort((a, b) => a - b));
    expect(byProduct.get(book)?.download).toEqual({ entitled: true, available: true });
    expect(byProduct.get(card)?.download).toBeNull();

    const exported = await call(t, 'GET', '/client-account/export', who);
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().downloads).toEqual([expect.objectContaining({ productId: book, orderCode })]);
  });
});
