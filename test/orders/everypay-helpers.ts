import { expect } from 'vitest';
import { systemClock } from '../../src/infra/clock.js';
import type { OrderSweepDeps } from '../../src/modules/orders/index.js';
import { configuredGateways } from '../../src/modules/payments/index.js';
import type { Who } from '../basket/helpers.js';
import { startEveryPayServer, type EveryPayServer, type EveryPayServerOptions } from '../helpers/everypay-server.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';

// An app on a real port that takes card payments through the local EveryPay server (real HTTP both
// ways: the app calls EveryPay's API, EveryPay posts its callbacks to the app), and what the tests
// look at after each step: the order's status and history, its processing jobs and the callback inbox.

/** The app's EVERYPAY_* variables for a local EveryPay server. */
export function everypayEnv(server: EveryPayServer): Record<string, string> {
  return {
    EVERYPAY_API_URL: server.url,
    EVERYPAY_API_USERNAME: server.apiUsername,
    EVERYPAY_API_SECRET: server.apiSecret,
    EVERYPAY_ACCOUNT_NAME: server.accountName,
    // A hanging API must fail a request well within a test's time.
    EVERYPAY_TIMEOUT_MS: '1500',
  };
}

export interface EveryPayShop {
  t: TestApp;
  origin: string;
  everypay: EveryPayServer;
  shop: Shop;
  close(): Promise<void>;
}

/** `env`: more of the app's variables (a test's own limits); `server`: how the local EveryPay is set up. */
export async function startEveryPayShop(env: Record<string, string> = {}, server: EveryPayServerOptions = {}): Promise<EveryPayShop> {
  const everypay = await startEveryPayServer(server);
  const { t, origin } = await createListeningApp({ env: { ...everypayEnv(everypay), CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m', ...env } });
  // EveryPay keeps one callback URL per shop, set in its merchant portal.
  everypay.setCallbackUrl(`${origin}${t.config.basePath}/payment/everypay/callback`);
  const shop = await setUpShop(t);
  return {
    t,
    origin,
    everypay,
    shop,
    async close() {
      await everypay.close();
      await t.close();
    },
  };
}

/** After each test: EveryPay's API working again, the callbacks it held sent, and every callback answered. */
export async function settleEveryPay(s: Pick<EveryPayShop, 'everypay'>): Promise<void> {
  s.everypay.breakApi(null);
  await s.everypay.releaseCallbacks();
  await s.everypay.callbacksIdle();
}

export interface PlacedOrder {
  orderId: number;
  checksum: string;
  /** The create-form path of checkout's answer. */
  path: string;
  code: string;
  totalCents: number;
  productId: number;
}

/** Checks out `who`'s basket to be paid by card (EVERYPAY): its link, code, total and status. */
export async function checkoutByCard(
  s: Pick<EveryPayShop, 't' | 'shop'>,
  who: Who,
): Promise<Omit<PlacedOrder, 'productId'> & { status: string }> {
  const response = await checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }));
  expect(response.statusCode, response.body).toBe(200);
  const link = orderLink(response.json().location);
  const row = await s.t.database.db
    .selectFrom('customer_order')
    .select(['code', 'total_cents', 'status'])
    .where('id', '=', link.orderId)
    .executeTakeFirstOrThrow();
  return { ...link, code: row.code!, totalCents: Number(row.total_cents), status: row.status };
}

/** A guest's checkout of a book paid by card (EVERYPAY): the order is NEW. */
export async function placeCardOrder(
  s: Pick<EveryPayShop, 't' | 'shop'>,
  price = 20,
  { stock = 5, quantity = 1 }: { stock?: number; quantity?: number } = {},
): Promise<PlacedOrder> {
  const productId = await stockedBook(s.t, s.shop, stock, price);
  const { status, ...placed } = await checkoutByCard(s, await fill(s.t, {}, [[productId, quantity]]));
  expect(status).toBe('NEW');
  return { ...placed, productId };
}

export interface Form {
  url: string;
  method: string;
  fields: Record<string, string>;
}

/** GET /bank/create-form over real HTTP: the redirect form and the EveryPay payment it names. */
export async function createForm(s: EveryPayShop, order: PlacedOrder): Promise<{ form: Form; reference: string }> {
  const response = await fetch(`${s.origin}${order.path}`);
  expect(response.status, await response.clone().text()).toBe(200);
  const form = (await response.json()) as Form;
  return { form, reference: form.fields.payment_reference! };
}

/** The shopper's browser coming back to return-internal; answers where it is redirected. */
export async function shopperReturns(location: string): Promise<{ status: number; location: string }> {
  const response = await fetch(location, { redirect: 'manual' });
  await response.arrayBuffer();
  return { status: response.status, location: response.headers.get('location') ?? '' };
}

export interface OrderView {
  status: string;
  /** The history's to_status, from NEW on. */
  moves: string[];
  /** order.process jobs queued for it. */
  jobs: number;
  inbox: Array<{ reference: string; state: string; outcome: string; received: number }>;
  reserved: number;
}

export async function viewOrder(t: TestApp, order: Pick<PlacedOrder, 'orderId' | 'productId'>): Promise<OrderView> {
  const db = t.database.db;
  const [row, history, jobs, inbox, product] = await Promise.all([
    db.selectFrom('customer_order').select('status').where('id', '=', order.orderId).executeTakeFirstOrThrow(),
    db.selectFrom('order_status_change').select('to_status').where('order_id', '=', order.orderId).orderBy('id').execute(),
    db.selectFrom('job').select('payload').where('type', '=', 'order.process').execute(),
    db
      .selectFrom('payment_callback')
      .select(['reference', 'state', 'outcome', 'received_count'])
      .where('order_id', '=', order.orderId)
      .execute(),
    db.selectFrom('product').select('reserved_quantity').where('id', '=', order.productId).executeTakeFirstOrThrow(),
  ]);
  return {
    status: row.status,
    moves: history.map((change) => change.to_status),
    jobs: jobs.filter((job) => (JSON.parse(job.payload) as { orderId: number }).orderId === order.orderId).length,
    // By reference and state, in code: the engines' collations sort text differently.
    inbox: inbox
      .map((entry) => ({ reference: entry.reference, state: entry.state, outcome: entry.outcome, received: Number(entry.received_count) }))
      .sort((a, b) => compare(a.reference, b.reference) || compare(a.state, b.state)),
    reserved: Number(product.reserved_quantity),
  };
}

/** Where the front-end's pages of an order start (the finished and the failed page). */
export function pageOf(t: TestApp, location: string): 'finished' | 'failed' | 'other' {
  const path = new URL(location, 'http://front.example').pathname;
  if (path.endsWith(t.config.orders.finishedPath)) return 'finished';
  if (path.endsWith(t.config.orders.failedPath)) return 'failed';
  return 'other';
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What the order sweep needs, with the app's configured gateways (the real EveryPay adapter against the local server). */
export function sweepDepsOf(t: TestApp): OrderSweepDeps {
  const { config } = t;
  const gateways = configuredGateways({
    database: t.database,
    clock: systemClock,
    everypay: config.everypay,
    testGateway: false,
    publicUrl: config.orders.publicUrl,
    basePath: config.basePath,
  });
  return { db: t.database.db, config: config.orders, gateways, log: t.app.log };
}
