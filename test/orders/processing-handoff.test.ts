import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { setUpShop, stockedBook, type Shop } from './helpers.js';
import { orderStatus, placeOrder, statusHistory } from './purchase-helpers.js';

// The hand-off to the back office: a real local receiver checks the signature, fails and recovers.
// Orders come from checkout (cash on delivery by courier: paid as far as processing is concerned).

const SECRET = 'back-office-shared-secret-0123456789abcdef';
let t: TestApp;
let office: HttpReceiver;
let shop: Shop;
beforeAll(async () => {
  office = await startHttpReceiver();
  t = await createTestApp({ env: { BACKOFFICE_ORDERS_URL: `${office.url}/orders`, BACKOFFICE_ORDERS_SECRET: SECRET } });
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t.close();
  await office.close();
});

const deliveriesOf = (code: string) => office.requests.filter((request) => (request.body as { code?: string }).code === code);
const drainAll = () => t.jobs.worker.drain({ includeDelayed: true });

async function paidOrder() {
  const book = await stockedBook(t, shop, 5, 12.5);
  const order = await placeOrder(t, shop, {}, [[book, 2]], { form: { billingCity: 'Tartu' } });
  return { id: order.orderId, code: order.code, checksum: order.checksum };
}

describe('the back-office hand-off', () => {
  it('posts the whole order signed with the shared secret, and the order is COMPLETED', async () => {
    office.respondWith(200);
    const order = await paidOrder();
    await t.drainJobs();
    const [delivery] = deliveriesOf(order.code);
    expect(delivery).toBeDefined();
    expect(delivery!.method).toBe('POST');
    expect(delivery!.url).toBe('/orders');
    expect(delivery!.headers['idempotency-key']).toBe(order.code);
    expect(delivery!.headers['x-timestamp']).toMatch(/^\d{10}$/);
    const raw = JSON.stringify(delivery!.body);
    const expected = `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
    expect(delivery!.headers['x-signature']).toBe(expected);
    expect(delivery!.body).toMatchObject({
      code: order.code,
      store: 'WEB',
      customer: { kind: 'GUEST', clientCode: null },
      billing: { email: expect.any(String), city: 'Tartu' },
      lines: [{ quantity: 2, unitPrice: 12.5, total: 25 }],
      amounts: { currency: 'EUR', subtotal: 25, delivery: 5.9, total: 30.9, vatIncluded: true },
      delivery: { methodCode: 'COURIER' },
      payment: { method: 'CASH_ON_DELIVERY' },
      sentAt: expect.any(String),
    });
    expect(await orderStatus(t.database.db, order.id)).toBe('COMPLETED');
    const row = await t.database.db
      .selectFrom('customer_order')
      .select('handed_off_at')
      .where('id', '=', order.id)
      .executeTakeFirstOrThrow();
    expect(row.handed_off_at).not.toBeNull();
  });

  it('retries a failing back office (500, then 200) and completes the order once', async () => {
    office.respondWith(500, { error: 'busy' });
    const order = await paidOrder();
    await t.drainJobs();
    expect(deliveriesOf(order.code)).toHaveLength(1);
    expect(await orderStatus(t.database.db, order.id)).toBe('PROCESSING');
    const job = await t.database.db
      .selectFrom('job')
      .select(['status', 'last_error'])
      .where('type', '=', 'order.handoff')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(job).toEqual({ status: 'pending', last_error: 'back office answered 500' });

    office.respondWith(200);
    await drainAll();
    const deliveries = deliveriesOf(order.code);
    expect(deliveries).toHaveLength(2);
    // Both tries carry the same idempotency key: the back office takes the order once.
    expect(new Set(deliveries.map((d) => d.headers['idempotency-key']))).toEqual(new Set([order.code]));
    expect(await orderStatus(t.database.db, order.id)).toBe('COMPLETED');
  });

  it('parks the order in PENDING_NAV_PROCESSING when the attempts are used up; the sweep completes it later', async () => {
    office.respondWith(503);
    const order = await paidOrder();
    await drainAll();
    expect(deliveriesOf(order.code)).toHaveLength(6);
    expect(await orderStatus(t.database.db, order.id)).toBe('PENDING_NAV_PROCESSING');
    const parked = (await statusHistory(t.database.db, order.id)).at(-1)!;
    expect(parked.cause).toMatch(/back-office hand-off failed 6 times: back office answered 503/);

    // Still down: the sweep tries, the order stays.
    const sweep = { db: t.database.db, config: t.config.orders, gateways: {}, log: t.app.log };
    expect(await sweepOrders(sweep, Date.now())).toEqual({ ran: true, result: expect.objectContaining({ handedOff: 0 }) });
    expect(await orderStatus(t.database.db, order.id)).toBe('PENDING_NAV_PROCESSING');
    expect(deliveriesOf(order.code)).toHaveLength(7);

    office.respondWith(201);
    expect(await sweepOrders(sweep, Date.now())).toEqual({ ran: true, result: expect.objectContaining({ handedOff: 1 }) });
    expect(await orderStatus(t.database.db, order.id)).toBe('COMPLETED');
  });

  it("stamps the completion when the back office answered, not when the order was sent (the operators' feed reads changes by that time)", async () => {
    const answerMs = 400;
    office.respondWith(200, {}, answerMs);
    try {
      const order = await paidOrder();
      const arrivedAt = office.waitFor((request) => (request.body as { code?: string }).code === order.code).then(() => Date.now());
      await t.drainJobs();
      const answeredAt = (await arrivedAt) + answerMs;
      const row = await t.database.db
        .selectFrom('customer_order')
        .select(['status', 'status_changed_at', 'updated_at', 'handed_off_at'])
        .where('id', '=', order.id)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('COMPLETED');
      for (const stamp of [row.status_changed_at, row.updated_at, row.handed_off_at])
        expect(Number(stamp)).toBeGreaterThanOrEqual(answeredAt - 20);
    } finally {
      office.respondWith(200);
    }
  });

  it('a receiver that does not answer in time counts as a failure', async () => {
    const slow = await createTestApp({
      env: { BACKOFFICE_ORDERS_URL: 'http://10.255.255.1:9/orders', BACKOFFICE_ORDERS_SECRET: SECRET, BACKOFFICE_ORDERS_TIMEOUT_MS: '200' },
    });
    try {
      const slowShop = await setUpShop(slow);
      const book = await stockedBook(slow, slowShop, 1);
      const order = await placeOrder(slow, slowShop, {}, [[book, 1]]);
      await slow.drainJobs();
      expect(await orderStatus(slow.database.db, order.orderId)).toBe('PROCESSING');
      const job = await slow.database.db
        .selectFrom('job')
        .select('last_error')
        .where('type', '=', 'order.handoff')
        .executeTakeFirstOrThrow();
      expect(job.last_error).toMatch(/back office unreachable/);
    } finally {
      await slow.close();
    }
  });

  it("shows the customer the order's states, never the operators' causes (the back office's errors, settings)", async () => {
    office.respondWith(503);
    const order = await paidOrder();
    await drainAll();
    expect((await statusHistory(t.database.db, order.id)).at(-1)!.cause).toMatch(/back office answered 503/);
    const { checksum } = order;
    for (const response of [
      await t.app.inject({ method: 'GET', url: `/order/${order.code}?checksum=${checksum}` }),
      await t.app.inject({ method: 'POST', url: '/bank/payment-result', payload: { orderId: order.id, checksum } }),
    ]) {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.body).not.toMatch(/back.office|BACKOFFICE|answered|nothing to pay/i);
      const body = response.json() as { statusHistory?: unknown[]; order?: { statusHistory: unknown[] } };
      const history = (body.statusHistory ?? body.order!.statusHistory) as Array<Record<string, unknown>>;
      expect(history.map((change) => Object.keys(change).sort())).toEqual(history.map(() => ['at', 'status']));
      expect(history.map((change) => change.status)).toEqual(['NEW', 'PENDING_PROCESSING', 'PROCESSING', 'PENDING_NAV_PROCESSING']);
    }
    // Leave nothing parked for the tests after this one.
    office.respondWith(200);
    const sweep = { db: t.database.db, config: t.config.orders, gateways: {}, log: t.app.log };
    await sweepOrders(sweep, Date.now());
    expect(await orderStatus(t.database.db, order.id)).toBe('COMPLETED');
  });
});
