import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { exportUser } from '../data-export/fixtures.js';
import { createProduct } from '../helpers/catalogue.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, orderLink, type Shop } from './helpers.js';
import type { Who } from '../basket/helpers.js';

// Orders made the way the front-end makes them (basket, POST /checkout, GET /bank/create-form),
// for the tests of what happens to an order afterwards, and reading their traces back.

export interface PlacedOrder {
  orderId: number;
  code: string;
  checksum: string;
  /** The create-form path of the checkout answer. */
  path: string;
  /** The buyer, with the basket token checkout emptied (a guest's). */
  who: Who;
}

export interface PlaceOptions {
  /** Fields of the checkout form over checkoutForm()'s (cash on delivery by courier unless told). */
  form?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Open the create-form link afterwards (default true): an order with nothing to pay online becomes PENDING_PROCESSING. */
  startPayment?: boolean;
}

/** Fills `who`'s basket, checks it out, and (by default) opens the create-form link. */
export async function placeOrder(
  t: TestApp,
  shop: Shop,
  who: Who,
  lines: Array<[number, number]>,
  options: PlaceOptions = {},
): Promise<PlacedOrder> {
  const buyer = await fill(t, who, lines);
  const response = await checkout(t, buyer, checkoutForm(shop, { paymentMethodId: 'CASH_ON_DELIVERY', ...options.form }), {
    ...(buyer.session ? { 'x-session-id': buyer.session } : {}),
    ...options.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  const link = orderLink((response.json() as { location: string }).location);
  if (options.startPayment ?? true) await openCreateForm(t, link.path);
  const row = await orderRow(t.database.db, link.orderId);
  return { ...link, code: row.code!, who: buyer };
}

/** GET /bank/create-form as the front-end calls it: the form to auto-submit. */
export async function openCreateForm(t: TestApp, path: string): Promise<{ url: string; method: string; fields: Record<string, string> }> {
  const response = await t.app.inject({ method: 'GET', url: path });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/**
 * Pays (or declines) the order on the test gateway's page as a shopper does: create-form, the button, and the
 * return followed. Answers where the return sends the shopper (the front-end's finished or failed page).
 */
export async function payOnTestGateway(t: TestApp, path: string, action: 'pay' | 'decline' = 'pay'): Promise<string> {
  const page = new URL((await openCreateForm(t, path)).url);
  const pressed = await t.app.inject({
    method: 'POST',
    url: page.pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `action=${action}`,
  });
  expect(pressed.statusCode, pressed.body).toBe(303);
  const back = new URL(pressed.headers.location as string);
  const returned = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(returned.statusCode, returned.body).toBe(303);
  return returned.headers.location as string;
}

export const orderRow = (db: Db, orderId: number) =>
  db.selectFrom('customer_order').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();

export async function orderStatus(db: Db, orderId: number): Promise<string> {
  return (await orderRow(db, orderId)).status;
}

export function statusHistory(db: Db, orderId: number) {
  return db
    .selectFrom('order_status_change')
    .select(['from_status', 'to_status', 'cause'])
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

/** The web stock and what orders hold of it. */
export async function productStock(db: Db, productId: number): Promise<{ webStock: number; reserved: number }> {
  const row = await db
    .selectFrom('product')
    .select(['web_stock', 'reserved_quantity'])
    .where('id', '=', productId)
    .executeTakeFirstOrThrow();
  return { webStock: Number(row.web_stock), reserved: Number(row.reserved_quantity) };
}

export async function productCode(db: Db, productId: number): Promise<string> {
  return (await db.selectFrom('product').select('code').where('id', '=', productId).executeTakeFirstOrThrow()).code;
}

/** An e-book: bought without stock, delivered as an entitlement. */
export function ebook(t: TestApp, price = 8): Promise<number> {
  return createProduct(t.database.db, {
    name: `E-book ${Math.random().toString(36).slice(2, 7)}`,
    type: 'EBOOK',
    binding: 'EPUB',
    deliveryTime: 'INSTANT_DOWNLOAD',
    price,
  });
}

/** Points a store's front-end at `url` (where the gateway's return finally sends the shopper). */
export async function setFrontendUrl(db: Db, store: string, url: string): Promise<void> {
  await db.updateTable('web_store').set({ frontend_url: url }).where('code', '=', store).execute();
}

/** The order's rows in the data export's sales history, read through the export API as a partner does. */
export async function exportRows(t: TestApp, code: string): Promise<Array<Record<string, unknown>>> {
  const user = await exportUser(t.database.db);
  const response = await t.app.inject({
    url: `${t.config.dataExportPath}/sales-history?per-page=1000`,
    headers: { authorization: user.authorization },
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Array<Record<string, unknown>>).filter((row) => row.order === code);
}
