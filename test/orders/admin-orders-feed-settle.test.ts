import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { reportNavStatus } from '../../src/modules/orders/processing/admin-orders.service.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { until } from '../helpers/lock-waits.js';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { processOrder } from '../../src/modules/orders/processing/process-order.js';
import { sweepDepsOf } from './everypay-helpers.js';
import { age, cardPayment, shopperReturns, startCardShop, stockedBook, type CardShop } from './processing-helpers.js';

// GET /admin/orders shows a change once it is ORDER_FEED_SETTLE_MS old. A change is stamped when its
// writer starts (the request's or the job's time) and commits later: on PostgreSQL one stamped first
// may commit after one stamped later, which a back office's cursor (updated_at, id) has passed by then,
// and that order was never read again.

const SETTLE_MS = 1000;
let s: CardShop;
let key: string;
beforeAll(async () => {
  // EveryPay's answers are held past a settle below: the adapter waits for them (1.5 s in the other tests).
  s = await startCardShop({ ORDER_FEED_SETTLE_MS: String(SETTLE_MS), EVERYPAY_TIMEOUT_MS: '30000' });
  key = await createApiKey(s.t.database.db, 'back-office', Date.now());
});
afterAll(() => s?.close());

const auth = () => ({ authorization: `Bearer ${key}` });
const settled = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 100));

async function processedOrder() {
  const book = await stockedBook(s.t.database.db, 5);
  const order = await insertOrder(s.t.database.db, { status: 'PENDING_PROCESSING', lines: [book] });
  await s.t.drainJobs();
  return order;
}

describe('GET /admin/orders, a walk by cursor', () => {
  it('misses no change that commits after a change stamped later, and shows a change once it has settled', async () => {
    const since = encodeURIComponent(new Date().toISOString());
    let cursor: string | undefined;
    /** A back office's poll: every page after its cursor, the cursor kept from the last full page. */
    const poll = async () => {
      const seen: string[] = [];
      for (let step = 0; step < 10; step += 1) {
        const after = cursor === undefined ? '' : `&after=${cursor}`;
        const response = await s.t.app.inject({ url: `/admin/orders?updatedSince=${since}&per-page=1${after}`, headers: auth() });
        expect(response.statusCode, response.body).toBe(200);
        seen.push(...(response.json() as Array<{ code: string }>).map((order) => order.code));
        const next = response.headers['x-next-cursor'];
        if (next === undefined) break;
        cursor = String(next);
      }
      return seen;
    };
    const [a, b] = [await processedOrder(), await processedOrder()];
    await settled();
    expect(await poll()).toEqual([a.code, b.code]);

    const seen: string[] = [];
    // A's status report is stamped, then commits only after B's report and a poll (its transaction held open).
    await whileTransactionOpen(
      s.t.database.db,
      (trx) => reportNavStatus(trx, a.code, { status: 'Seen', createdAt: Date.parse('2026-11-24T10:15:00Z') }, Date.now()),
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const touched = await s.t.app.inject({
          method: 'POST',
          url: `/admin/orders/${b.code}/status`,
          headers: auth(),
          payload: { status: 'Seen', createdAt: '2026-11-24T10:15:00Z' },
        });
        expect(touched.statusCode, touched.body).toBe(200);
        seen.push(...(await poll()));
      },
    );
    await settled();
    seen.push(...(await poll()));
    // Both changes, in the order they were stamped.
    expect(seen).toEqual([a.code, b.code]);
  });
});

/**
 * While EveryPay holds back its answer to `path` (asked by `slow`, started here), another order changes
 * and a back office's walk of the feed passes it once it settled; then EveryPay answers and `slow`
 * finishes. Answers what `slow` answered and the walk's next page after its cursor, once settled.
 */
async function walkPastChangeWhileHeld<T>(path: string, slow: () => Promise<T>, spec: { nextPerPage: number } = { nextPerPage: 1 }) {
  const since = encodeURIComponent(new Date().toISOString());
  const feed = (query: string, perPage = 1) =>
    s.t.app.inject({ url: `/admin/orders?updatedSince=${since}&per-page=${perPage}${query}`, headers: auth() });
  const asked = () => s.everypay.requests.filter((request) => request.path === path).length;
  const before = asked();
  let answer!: () => void;
  s.everypay.answerLate(path, new Promise<void>((resolve) => (answer = resolve)));
  const finishing = slow();
  await until(`the call to EveryPay's ${path}`, () => asked() > before);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const other = await processedOrder();
  await settled();
  const walked = await feed('');
  expect((walked.json() as Array<{ code: string }>).map((one) => one.code)).toEqual([other.code]);
  const cursor = String(walked.headers['x-next-cursor']);

  answer();
  const finished = await finishing;
  await settled();
  return { finished, next: await feed(`&after=${cursor}`, spec.nextPerPage) };
}

/** A card order paid at EveryPay, settled and (unless told) the shopper back: PENDING_PROCESSING, its jobs run. */
async function paidCardOrder(spec: { returned: boolean } = { returned: true }) {
  const order = await cardPayment(s);
  await s.everypay.settle(order.reference);
  if (spec.returned) {
    await shopperReturns(s, order);
    await s.t.drainJobs();
  }
  await settled();
  return order;
}

describe("GET /admin/orders after an operator's refund that EveryPay answered slowly", () => {
  it('shows the refund to a walk whose cursor passed a change made while EveryPay was refunding', async () => {
    const order = await paidCardOrder();
    const { finished, next } = await walkPastChangeWhileHeld('/api/v4/payments/refund', () =>
      s.t.app.inject({ method: 'POST', url: `/admin/orders/${order.code}/refund`, headers: auth(), payload: {} }),
    );
    expect(finished.statusCode, finished.body).toBe(200);
    expect(finished.json()).toMatchObject({ status: 'CANCELLED' });
    // The cancellation is stamped when it was made, after EveryPay answered: the walk goes on to it.
    expect((next.json() as Array<{ code: string }>).map((one) => one.code)).toEqual([order.code]);
  });
});

describe('GET /admin/orders after a callback whose look-up EveryPay answered slowly', () => {
  it("shows a refund made in EveryPay's portal to a walk whose cursor passed a change made during the look-up", async () => {
    const order = await paidCardOrder();
    // All of it refunded in the portal; its callback comes, and EveryPay is slow to show the payment.
    await s.everypay.refund(order.reference, order.totalCents);
    const { finished, next } = await walkPastChangeWhileHeld(`/api/v4/payments/${order.reference}`, () =>
      s.t.app.inject({
        method: 'POST',
        url: '/payment/everypay/callback',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `payment_reference=${order.reference}&order_reference=${order.code}&event_name=status_updated`,
      }),
    );
    expect(finished.statusCode, finished.body).toBe(200);
    expect(finished.json()).toEqual({ outcome: 'applied' });
    expect(next.json()).toEqual([expect.objectContaining({ code: order.code, status: 'CANCELLED' })]);
  });
});

describe("GET /admin/orders after a shopper's return whose look-up EveryPay answered slowly", () => {
  it('shows the payment the return applied to a walk whose cursor passed a change made during the look-up', async () => {
    const order = await paidCardOrder({ returned: false });
    const { next } = await walkPastChangeWhileHeld(`/api/v4/payments/${order.reference}`, () => shopperReturns(s, order));
    expect(next.json()).toEqual([expect.objectContaining({ code: order.code, status: 'PENDING_PROCESSING' })]);
  });
});

describe('GET /admin/orders after the order sweep settled an unpaid order whose look-up EveryPay answered slowly', () => {
  it('shows the order the sweep found paid to a walk whose cursor passed a change made during the look-up', async () => {
    // What the tests above left to do is done first: the sweep below has only this order to change.
    await s.t.drainJobs();
    await sweepOrders(sweepDepsOf(s.t), Date.now());
    const order = await cardPayment(s);
    // Paid at EveryPay, its callback lost: the sweep finds it among the unpaid ones.
    await s.everypay.settle(order.reference);
    await age(s.t.database.db, order.id, 31);
    await settled();
    const { finished, next } = await walkPastChangeWhileHeld(`/api/v4/payments/${order.reference}`, () =>
      sweepOrders(sweepDepsOf(s.t), Date.now()),
    );
    expect(finished).toEqual({ ran: true, result: expect.objectContaining({ paid: 1 }) });
    expect(next.json()).toEqual([expect.objectContaining({ code: order.code, status: 'PENDING_PROCESSING' })]);
  });
});

describe("GET /admin/orders after the order sweep's later steps, which came after a look-up EveryPay answered slowly", () => {
  it('shows an order the sweep processed and one it failed to a walk whose cursor passed a change made during the look-up', async () => {
    await s.t.drainJobs();
    await sweepOrders(sweepDepsOf(s.t), Date.now());
    const order = await cardPayment(s);
    await s.everypay.settle(order.reference);
    await age(s.t.database.db, order.id, 31);
    // Paid, its processing job lost: the sweep processes it after the unpaid ones.
    const lost = await insertOrder(s.t.database.db, {
      status: 'PENDING_PROCESSING',
      lines: [await stockedBook(s.t.database.db, 5)],
      at: Date.now() - 6 * 60_000,
      queueJob: false,
    });
    // In processing for longer than ORDER_STUCK_AFTER: the sweep fails it, last.
    const stuck = await insertOrder(s.t.database.db, {
      status: 'PROCESSING',
      lines: [await stockedBook(s.t.database.db, 5)],
      at: Date.now() - s.t.config.orders.stuckAfterMs - 60_000,
    });
    await settled();
    const { finished, next } = await walkPastChangeWhileHeld(
      `/api/v4/payments/${order.reference}`,
      () => sweepOrders(sweepDepsOf(s.t), Date.now()),
      { nextPerPage: 10 },
    );
    expect(finished).toEqual({ ran: true, result: expect.objectContaining({ paid: 1, processed: 1, failed: 1 }) });
    // Each change is stamped when the sweep made it, after EveryPay answered: the walk goes on to all three.
    expect(next.json()).toEqual([
      expect.objectContaining({ code: order.code, status: 'PENDING_PROCESSING' }),
      expect.objectContaining({ code: lost.code, status: 'PROCESSING' }),
      expect.objectContaining({ code: stuck.code, status: 'FAILED' }),
    ]);
  });
});

describe('GET /admin/orders after the order sweep refunded a payment due back that EveryPay refunded slowly', () => {
  it('shows the refunded order to a walk whose cursor passed a change made while EveryPay was refunding', async () => {
    const order = await paidCardOrder();
    await s.t.drainJobs();
    await sweepOrders(sweepDepsOf(s.t), Date.now());
    // Marked for the sweep's refund, as a late settle whose gift cards no longer cover their share is (payment-status.service.ts).
    await s.t.database.db.updateTable('order_payment').set({ refund_due_at: Date.now() }).where('order_id', '=', order.id).execute();
    const { finished, next } = await walkPastChangeWhileHeld('/api/v4/payments/refund', () => sweepOrders(sweepDepsOf(s.t), Date.now()));
    expect(finished).toEqual({ ran: true, result: expect.objectContaining({ refunded: 1 }) });
    expect(next.json()).toEqual([expect.objectContaining({ code: order.code, status: 'CANCELLED' })]);
  });
});

describe('GET /admin/orders after a change stamped earlier than the one before it', () => {
  it("never shows an order's updatedAt earlier than a change it showed before", async () => {
    const order = await insertOrder(s.t.database.db, {
      status: 'PENDING_PROCESSING',
      lines: [await stockedBook(s.t.database.db, 5)],
      queueJob: false,
    });
    // The processing job took its time at its start, then waited for the order's row while the back
    // office's status report, stamped later, held it and committed first.
    const jobStarted = Date.now() - 2000;
    let reported!: { updatedAt: string | null };
    await whileTransactionOpen(
      s.t.database.db,
      async (trx) => {
        reported = await reportNavStatus(trx, order.code, { status: 'Seen', createdAt: Date.parse('2026-11-24T10:15:00Z') }, Date.now());
      },
      () => processOrder(s.t.database.db, order.id, jobStarted),
    );
    await settled();
    const since = encodeURIComponent(new Date(jobStarted - 1000).toISOString());
    const feed = await s.t.app.inject({ url: `/admin/orders?updatedSince=${since}&per-page=100`, headers: auth() });
    const shown = (feed.json() as Array<{ code: string; status: string; updatedAt: string }>).find((one) => one.code === order.code);
    expect(shown).toMatchObject({ status: 'PROCESSING' });
    // The copy with the later status is no older than the report's answer: a back office that keeps the
    // newest copy of each order by updatedAt kept the report's and dropped this one.
    expect(Date.parse(shown!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(reported.updatedAt!));
  });
});
