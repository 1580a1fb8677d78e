import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { createProduct } from '../helpers/catalogue.js';
import { startEveryPayServer, type EveryPayServer } from '../helpers/everypay-server.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { everypayEnv, placeCardOrder, type PlacedOrder } from './everypay-helpers.js';
import { setUpShop, type Shop } from './helpers.js';

// Shared by the processing tests. Payments are real: card orders placed through checkout and
// create-form at the local EveryPay server, whose callbacks go nowhere (no callback URL), so an
// order learns of its payment only from the shopper's return or the sweep, as when callbacks are lost.

export interface CardShop {
  t: TestApp;
  shop: Shop;
  everypay: EveryPayServer;
  close(): Promise<void>;
}

export async function startCardShop(env: Record<string, string> = {}, options: { sqliteFile?: boolean } = {}): Promise<CardShop> {
  const everypay = await startEveryPayServer();
  const t = await createTestApp({ env: { ...everypayEnv(everypay), CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m', ...env }, ...options });
  const shop = await setUpShop(t);
  return {
    t,
    shop,
    everypay,
    async close() {
      await everypay.close();
      await t.close();
    },
  };
}

/** A card order whose payment was started (create-form): PENDING_PAYMENT, a payment at EveryPay. */
export async function cardPayment(s: CardShop, spec: { stock?: number; quantity?: number } = {}) {
  const order = await placeCardOrder(s, 20, spec);
  const form = await s.t.app.inject({ method: 'GET', url: order.path });
  expect(form.statusCode, form.body).toBe(200);
  const reference = (form.json() as { fields: Record<string, string> }).fields.payment_reference!;
  return { ...order, id: order.orderId, reference };
}

/** The shopper back from EveryPay's page: return-internal asks EveryPay and applies its answer. */
export async function shopperReturns(s: CardShop, order: PlacedOrder & { reference: string }) {
  const back = new URL(s.everypay.payment(order.reference)!.customerUrl);
  const response = await s.t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(response.statusCode, response.body).toBe(303);
}

/** Moves an order's last status change (and creation) back in time, as if it had waited that long. */
export async function age(db: Db, orderId: number, minutesAgo: number) {
  const at = Date.now() - minutesAgo * 60_000;
  await db.updateTable('customer_order').set({ status_changed_at: at, created_at: at }).where('id', '=', orderId).execute();
}

/** A book with `stock` copies on the web. */
export async function stockedBook(db: Db, stock: number, spec: { digital?: boolean } = {}) {
  const code = `B${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
  const id = await createProduct(db as never, { code, type: spec.digital ? 'EBOOK' : 'BOOK' });
  await db.updateTable('product').set({ web_stock: stock }).where('id', '=', id).execute();
  return { productId: id, productCode: code };
}

export async function productStock(db: Db, productId: number) {
  const row = await db
    .selectFrom('product')
    .select(['web_stock', 'reserved_quantity'])
    .where('id', '=', productId)
    .executeTakeFirstOrThrow();
  return { webStock: Number(row.web_stock), reserved: Number(row.reserved_quantity) };
}

export async function orderStatus(db: Db, orderId: number) {
  const row = await db.selectFrom('customer_order').select(['status', 'handed_off_at']).where('id', '=', orderId).executeTakeFirstOrThrow();
  return row.status;
}

export async function statusHistory(db: Db, orderId: number) {
  return db
    .selectFrom('order_status_change')
    .select(['from_status', 'to_status', 'cause'])
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

/** The jobs of `type` about order `orderId`, oldest first: each one's payload and what became of it ('sent', 'skipped'). */
export async function orderJobs<Payload>(db: Db, type: string, orderId: number) {
  const jobs = await db.selectFrom('job').select(['payload', 'result']).where('type', '=', type).orderBy('id').execute();
  return jobs
    .map((job) => ({ payload: JSON.parse(job.payload) as Payload & { orderId: number }, result: job.result }))
    .filter((job) => job.payload.orderId === orderId);
}
