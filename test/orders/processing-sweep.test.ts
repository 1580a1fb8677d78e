import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders, type OrderSweepDeps } from '../../src/modules/orders/index.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { placeCardOrder, sweepDepsOf } from './everypay-helpers.js';
import {
  age,
  cardPayment,
  orderStatus,
  productStock,
  startCardShop,
  statusHistory,
  stockedBook,
  type CardShop,
} from './processing-helpers.js';

// The periodic sweep: unpaid orders checked with the gateway and released, lost processing jobs,
// stuck orders failed; never two sweeps at once. The gateway is the real EveryPay adapter of the
// app's configuration against the local EveryPay server, whose callbacks never reach the shop.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let s: CardShop;
let deps: OrderSweepDeps;
const db = () => s.t.database.db;
beforeAll(async () => {
  // A sweep held by an unanswered EveryPay request lasts this long: time enough to try a second one.
  s = await startCardShop({ EVERYPAY_TIMEOUT_MS: '4000' });
  deps = sweepDepsOf(s.t);
  expect(Object.keys(deps.gateways)).toEqual(['everypay']);
});
afterEach(() => s.everypay.breakApi(null));
afterAll(() => s?.close());

/** A card order of 2 of 3 copies whose payment was started `minutesAgo`. */
async function unpaid(minutesAgo: number) {
  const order = await cardPayment(s, { stock: 3, quantity: 2 });
  await age(db(), order.id, minutesAgo);
  return { ...order, book: { productId: order.productId } };
}

/** Whether the sweep asked EveryPay about the payment. */
const asked = (reference: string) => s.everypay.requests.some((request) => request.path === `/api/v4/payments/${reference}`);

describe('the order sweep', () => {
  it('processes an unpaid order the gateway says is settled, cancels the ones it says are not, and releases their stock', async () => {
    const paid = await unpaid(31);
    await s.everypay.settle(paid.reference);
    const pending = await unpaid(31);
    const declined = await unpaid(45);
    await s.everypay.fail(declined.reference);
    const neverStarted = await placeCardOrder(s, 20, { stock: 3, quantity: 2 });
    await age(db(), neverStarted.orderId, 40);
    const never = { id: neverStarted.orderId, book: { productId: neverStarted.productId } };
    const young = await unpaid(10);

    const outcome = await sweepOrders(deps, Date.now());
    expect(outcome).toEqual({ ran: true, result: expect.objectContaining({ paid: 1, cancelled: 2 }) });

    expect(await orderStatus(db(), paid.id)).toBe('PENDING_PROCESSING');
    await s.t.drainJobs();
    expect(await orderStatus(db(), paid.id)).toBe('PENDING_NAV_PROCESSING');
    expect(await productStock(db(), paid.book.productId)).toEqual({ webStock: 1, reserved: 0 });

    expect(await orderStatus(db(), pending.id)).toBe('CANCELLED');
    expect((await statusHistory(db(), pending.id)).at(-1)!.cause).toBe('unpaid after 30 minutes');
    expect(await productStock(db(), pending.book.productId)).toEqual({ webStock: 3, reserved: 0 });
    // Declined at the gateway: the sweep applies that (PAYMENT_FAILED releases the stock too).
    expect(await orderStatus(db(), declined.id)).toBe('PAYMENT_FAILED');
    expect(await productStock(db(), declined.book.productId)).toEqual({ webStock: 3, reserved: 0 });
    expect(await orderStatus(db(), never.id)).toBe('CANCELLED');
    expect(await productStock(db(), never.book.productId)).toEqual({ webStock: 3, reserved: 0 });
    // Not yet 30 minutes: not even asked.
    expect(await orderStatus(db(), young.id)).toBe('PENDING_PAYMENT');
    expect(asked(young.reference)).toBe(false);
    expect(asked(pending.reference)).toBe(true);
  });

  it('leaves an unpaid order alone when its gateway cannot be reached, and cancels it when asked again', async () => {
    const order = await unpaid(35);
    s.everypay.breakApi({ status: 503 });
    await sweepOrders(deps, Date.now());
    expect(await orderStatus(db(), order.id)).toBe('PENDING_PAYMENT');
    s.everypay.breakApi(null);
    await sweepOrders(deps, Date.now());
    expect(await orderStatus(db(), order.id)).toBe('CANCELLED');
  });

  it('processes a paid order whose job was lost', async () => {
    const book = await stockedBook(db(), 2);
    const order = await insertOrder(db(), {
      status: 'PENDING_PROCESSING',
      lines: [book],
      queueJob: false,
      at: Date.now() - 10 * MINUTE,
    });
    expect(await sweepOrders(deps, Date.now())).toEqual({ ran: true, result: expect.objectContaining({ processed: 1 }) });
    expect(await orderStatus(db(), order.id)).toBe('PROCESSING');
    expect(await productStock(db(), book.productId)).toEqual({ webStock: 1, reserved: 0 });
  });

  it('fails orders stuck in processing past the limit (since their last status change)', async () => {
    const book = await stockedBook(db(), 5);
    const stuck = await insertOrder(db(), { status: 'PROCESSING', lines: [book], at: Date.now() - 9 * HOUR });
    const parked = await insertOrder(db(), {
      status: 'PENDING_NAV_PROCESSING',
      lines: [book],
      at: Date.now() - 8 * HOUR - MINUTE,
    });
    const recent = await insertOrder(db(), { status: 'PROCESSING', lines: [book], at: Date.now() - 7 * HOUR });
    await sweepOrders(deps, Date.now());
    expect(await orderStatus(db(), stuck.id)).toBe('FAILED');
    expect((await statusHistory(db(), stuck.id)).at(-1)!.cause).toBe('stuck in PROCESSING for more than 8 hours');
    // This shop has no back office: a parked order waits for the pull feed (sweep-parked-orders.test.ts).
    expect(await orderStatus(db(), parked.id)).toBe('PENDING_NAV_PROCESSING');
    // Not failed; past an hour in PROCESSING its hand-off job counts as lost and it is parked (handoff-job-lost.test.ts).
    expect(await orderStatus(db(), recent.id)).toBe('PENDING_NAV_PROCESSING');
    // FAILED holds no stock: what the failed order held is released.
    expect(await productStock(db(), book.productId)).toEqual({ webStock: 5, reserved: 2 });
  });

  it('never runs twice at once: a second sweep while one is under way does nothing', async () => {
    const order = await unpaid(31);
    // EveryPay does not answer the first sweep's question (until the adapter's timeout).
    s.everypay.breakApi('hang', 1);
    const first = sweepOrders(deps, Date.now());
    await expect.poll(() => asked(order.reference)).toBe(true);
    expect(await sweepOrders(deps, Date.now())).toEqual({ ran: false });
    const lease = await db().selectFrom('job_lease').select('name').execute();
    expect(lease).toEqual([{ name: 'order-sweep' }]);
    // The unanswered order is left for the next sweep.
    expect(await first).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 0 }) });
    expect(await orderStatus(db(), order.id)).toBe('PENDING_PAYMENT');
    expect(await db().selectFrom('job_lease').select('name').execute()).toEqual([]);
    // A lease left by a crashed process is taken over once it has expired.
    await db()
      .insertInto('job_lease')
      .values({ name: 'order-sweep', owner: 'crashed', expires_at: Date.now() - 1 })
      .execute();
    expect(await sweepOrders(deps, Date.now())).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 1 }) });
    expect(await orderStatus(db(), order.id)).toBe('CANCELLED');
  });
});
