import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { call, type Who } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { rowCount } from '../helpers/table-counts.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { ebook, orderRow, payOnTestGateway } from './purchase-helpers.js';

// A bookstore sells e-books without shipping anything. A store whose delivery methods are all
// physical (a courier, a shop pickup: no "by e-mail" method for digital-only baskets) offered a
// basket of e-books, audiobooks and virtual gift cards no delivery method at all, and checkout
// required one: such a basket could not be bought. A basket with nothing to ship now checks out
// without a delivery method and without a shipping address (the billing contact as for any
// order); one with anything physical still needs both.

let t: TestApp;
let shop: Shop;
let fileDir: string;
let smtp: SmtpCatcher;

beforeAll(async () => {
  fileDir = mkdtempSync(join(tmpdir(), 'storefront-files-'));
  smtp = await startSmtpCatcher();
  ({ t } = await createListeningApp({
    env: { FILE_STORE_DIR: fileDir, DOWNLOAD_LINK_SECRET: 'download-link-secret-for-the-tests-0123456789', SMTP_URL: smtp.url },
  }));
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  rmSync(fileDir, { recursive: true, force: true });
});

const db = () => t.database.db;

/** The checkout form without a delivery method or any shipping field: only the billing contact. */
function billingOnlyForm(overrides: Record<string, unknown> = {}) {
  const form: Record<string, unknown> = checkoutForm(shop, overrides);
  for (const field of Object.keys(form)) if (field.startsWith('shipping') || field === 'deliveryMethodId') delete form[field];
  return { ...form, ...overrides };
}

const audiobook = () =>
  createProduct(db(), { type: 'AUDIOBOOK', binding: 'MP3', deliveryTime: 'INSTANT_DOWNLOAD', price: 12, name: 'Kuuldav' });

async function upload(code: string, operatorKey: string) {
  const response = await t.app.inject({
    method: 'PUT',
    url: `/admin/product-files/${code}/EPUB?filename=Book.epub`,
    headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/octet-stream' },
    payload: Buffer.from('an e-book'),
  });
  expect(response.statusCode, response.body).toBe(200);
  await t.drainJobs();
}

describe('a basket with nothing to ship, in a store with no delivery method for it', () => {
  it('is told in the checkout meta that no delivery is needed, and none is offered', async () => {
    const who = await fill(t, {}, [[await ebook(t, 9), 1]]);
    const meta = await call(t, 'GET', '/checkout/meta', who);
    expect(meta.statusCode, meta.body).toBe(200);
    expect(meta.json()).toMatchObject({ deliveryRequired: false, deliveryMethods: [] });
    const physical = await fill(t, {}, [[await stockedBook(t, shop, 3), 1]]);
    expect((await call(t, 'GET', '/checkout/meta', physical)).json()).toMatchObject({ deliveryRequired: true });
  });

  it('checks out without a delivery method or shipping address, is paid, and its e-book, audiobook and gift card are given', async () => {
    const buyer = await createCustomer(db());
    const who: Who = { bearer: buyer.token };
    const book = await ebook(t, 9);
    const listen = await audiobook();
    const voucher = await createProduct(db(), { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
    await fill(t, who, [
      [book, 1],
      [listen, 1],
    ]);
    const deliveryDate = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const giftCard = { amount: 25, recipientName: 'Jaan Tamm', recipientEmail: 'jaan@example.ee', deliveryDate };
    const added = await call(t, 'POST', '/basket/add-product', who, { productId: voucher, quantity: 1, giftCard });
    expect(added.statusCode, added.body).toBe(200);

    const placed = await checkout(t, who, billingOnlyForm(), { 'x-app-language': 'en' });
    expect(placed.statusCode, placed.body).toBe(200);
    const link = orderLink(placed.json().location);
    const row = await orderRow(db(), link.orderId);
    // No delivery, no fee; the buyer is the receiver.
    expect(row).toMatchObject({
      delivery_kind: 'NONE',
      delivery_cents: 0,
      shipping_email: 'mari@example.ee',
      shipping_name: 'Mari Maasikas',
    });
    expect(row.total_cents).toBe(900 + 1200 + 2500);

    await payOnTestGateway(t, link.path);
    await t.drainJobs();
    const detail = await call(t, 'GET', `/order/${row.code}`, who);
    expect(detail.statusCode, detail.body).toBe(200);
    // Paid and processed: waiting for the back office, which no URL is set for here.
    expect(detail.json()).toMatchObject({
      status: 'PENDING_NAV_PROCESSING',
      total: 46,
      delivery: { kind: 'NONE', price: 0, parcelMachine: null, shopCode: null },
    });
    const entitled = await db().selectFrom('order_entitlement').select('product_id').where('order_id', '=', link.orderId).execute();
    expect(entitled.map((entitlement) => Number(entitlement.product_id))).toEqual(expect.arrayContaining([book, listen]));
    // The confirmation says there is no delivery, and names no address to deliver to.
    const mail = await smtp.waitFor((sent) => (sent.subject ?? '').includes(row.code!));
    expect(mail.text).toContain('Delivery (No delivery: digital items): €0.00');
    expect(mail.text).not.toContain('Delivery to:');
    const cards = await call(t, 'GET', '/virtual-gift-card', who);
    expect(cards.json()).toEqual([expect.objectContaining({ role: 'BOUGHT', amount: 25, recipientName: 'Jaan Tamm' })]);

    // The e-book's file is the buyer's to download.
    const { code } = await db().selectFrom('product').select('code').where('id', '=', book).executeTakeFirstOrThrow();
    await upload(code, await createApiKey(db(), 'files', Date.now()));
    const downloads = await call(t, 'GET', '/download', who);
    expect(downloads.statusCode, downloads.body).toBe(200);
    expect(downloads.json()).toEqual([expect.objectContaining({ productId: book, format: 'EPUB', orderCode: row.code })]);
  });

  it("a guest's e-book order takes a shipping address when one is given, but a partial one is refused", async () => {
    const who = await fill(t, {}, [[await ebook(t, 9), 1]]);
    const partial = await checkout(t, who, billingOnlyForm({ shippingCity: 'Tartu' }));
    expect(partial.statusCode, partial.body).toBe(422);
    expect((partial.json() as Array<{ field: string }>).map((problem) => problem.field)).toContain('shippingName');
    const placed = await checkout(t, who, checkoutForm(shop, { deliveryMethodId: undefined, shippingEmail: 'saaja@example.ee' }));
    expect(placed.statusCode, placed.body).toBe(200);
    const row = await orderRow(db(), orderLink(placed.json().location).orderId);
    expect(row).toMatchObject({ delivery_kind: 'NONE', delivery_cents: 0, shipping_email: 'saaja@example.ee' });
  });

  it('refuses a delivery method that is not for it (a courier) and pay in the shop or cash on delivery without one', async () => {
    const who = await fill(t, {}, [[await ebook(t, 9), 1]]);
    const before = await rowCount(db(), 'customer_order');
    const courier = await checkout(t, who, checkoutForm(shop));
    expect(courier.statusCode, courier.body).toBe(422);
    expect(courier.json()).toEqual([{ field: 'deliveryMethodId', message: expect.any(String) }]);
    for (const paymentMethodId of ['PAY_IN_SHOP', 'CASH_ON_DELIVERY']) {
      const refused = await checkout(t, who, billingOnlyForm({ paymentMethodId }));
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json()).toEqual([{ field: 'paymentMethodId', message: expect.any(String) }]);
    }
    expect(await rowCount(db(), 'customer_order')).toBe(before);
  });
});

describe('a basket with anything to ship', () => {
  it('still needs a delivery method and a shipping address: a 422 naming them, nothing written', async () => {
    const book = await stockedBook(t, shop, 3);
    const who = await fill(t, {}, [
      [book, 1],
      [await ebook(t, 9), 1],
    ]);
    const before = await rowCount(db(), 'customer_order');
    const basket = (await call(t, 'GET', '/basket', who)).json();
    const refused = await checkout(t, who, billingOnlyForm(), { 'x-app-language': 'en' });
    expect(refused.statusCode, refused.body).toBe(422);
    const problems = refused.json() as Array<{ field: string; message: string }>;
    expect(problems).toContainEqual({ field: 'deliveryMethodId', message: 'deliveryMethodId cannot be blank.' });
    expect(problems).toContainEqual({ field: 'shippingAddress', message: 'shippingAddress cannot be blank.' });
    expect(await rowCount(db(), 'customer_order')).toBe(before);
    expect((await call(t, 'GET', '/basket', who)).json()).toEqual(basket);
    const placed = await checkout(t, who, checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
  });
});
