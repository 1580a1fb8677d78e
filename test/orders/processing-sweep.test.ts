import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders, type OrderSweepDeps } from '../../src/modules/orders/index.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { fakeGateway, orderStatus, productStock, statusHistory, stockedBook, type FakeGateway } from './processing-helpers.js';

// The periodic sweep: unpaid orders checked with the gateway and released, lost processing jobs,
// stuck orders failed; never two sweeps at once. The gateway is a small in-test PaymentGateway.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let t: TestApp;
let gateway: FakeGateway;
let deps: OrderSweepDeps;
beforeAll(async () => {
  gateway = fakeGateway('test');
  t = await createTestApp({ gateways: { test: gateway } });
  deps = { db: t.database.db, config: t.config.orders, gateways: { test: gateway }, log: t.app.log };
});
afterAll(() => t.close());

async function unpaid(reference: string | null, minutesAgo: number, status: 'NEW' | 'PENDING_PAYMENT' = 'PENDING_PAYMENT') {
  const book = await stockedBook(t.database.db, 3);
  const order = await insertOrder(t.database.db, {
    status,
    lines: [{ ...book, quantity: 2 }],
    at: Date.now() - minutesAgo * MINUTE,
    ...(reference ? { payment: { gateway: 'test', reference, state: 'pending' as const } } : {}),
  });
  return { ...order, book };
}

const settled = (reference: string, code: string, amountCents: number, state: 'settled' | 'pending' | 'failed' = 'settled') =>
  gateway.statuses.set(reference, { reference, orderReference: code, state, amountCents, refundedCents: 0 });

describe('the order sweep', () => {
  it('processes an unpaid order the gateway says is settled, cancels the ones it says are not, and releases their stock', async () => {
    const paid = await unpaid('ref-paid', 31);
    settled('ref-paid', paid.code, paid.totalCents);
    const pending = await unpaid('ref-pending', 31);
    settled('ref-pending', pending.code, pending.totalCents, 'pending');
    const declined = await unpaid('ref-failed', 45);
    settled('ref-failed', declined.code, declined.totalCents, 'failed');
    const never = await unpaid(null, 40, 'NEW');
    const young = await unpaid('ref-young', 10);

    const outcome = await sweepOrders(deps, Date.now());
    expect(outcome).toEqual({ ran: true, result: expect.objectContaining({ paid: 1, cancelled: 2 }) });

    expect(await orderStatus(t.database.db, paid.id)).toBe('PENDING_PROCESSING');
    await t.drainJobs();
    expect(await orderStatus(t.database.db, paid.id)).toBe('PENDING_NAV_PROCESSING');
    expect(await productStock(t.database.db, paid.book.productId)).toEqual({ webStock: 1, reserved: 0 });

    expect(await orderStatus(t.database.db, pending.id)).toBe('CANCELLED');
    expect((await statusHistory(t.database.db, pending.id)).at(-1)!.cause).toBe('unpaid after 30 minutes');
    expect(await productStock(t.database.db, pending.book.productId)).toEqual({ webStock: 3, reserved: 0 });
    // Declined at the gateway: the sweep applies that (PAYMENT_FAILED releases the stock too).
    expect(await orderStatus(t.database.db, declined.id)).toBe('PAYMENT_FAILED');
    expect(await productStock(t.database.db, declined.book.productId)).toEqual({ webStock: 3, reserved: 0 });
    expect(await orderStatus(t.database.db, never.id)).toBe('CANCELLED');
    expect(await productStock(t.database.db, never.book.productId)).toEqual({ webStock: 3, reserved: 0 });
    // Not yet 30 minutes: not even asked.
    expect(await orderStatus(t.database.db, young.id)).toBe('PENDING_PAYMENT');
    expect(gateway.fetches).not.toContain('ref-young');
  });

  it('leaves an unpaid order alone when its gateway cannot be reached, and cancels it when asked again', async () => {
    const order = await unpaid('ref-down', 35);
    const original = gateway.fetchStatus;
    gateway.fetchStatus = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    try {
      await sweepOrders(deps, Date.now());
      expect(await orderStatus(t.database.db, order.id)).toBe('PENDING_PAYMENT');
    } finally {
      gateway.fetchStatus = original;
    }
    await sweepOrders(deps, Date.now());
    expect(await orderStatus(t.database.db, order.id)).toBe('CANCELLED');
  });

  it('processes a paid order whose job was lost', async () => {
    const book = await stockedBook(t.database.db, 2);
    const order = await insertOrder(t.database.db, {
      status: 'PENDING_PROCESSING',
      lines: [book],
      queueJob: false,
      at: Date.now() - 10 * MINUTE,
    });
    expect(await sweepOrders(deps, Date.now())).toEqual({ ran: true, result: expect.objectContaining({ processed: 1 }) });
    expect(await orderStatus(t.database.db, order.id)).toBe('PROCESSING');
    expect(await productStock(t.database.db, book.productId)).toEqual({ webStock: 1, reserved: 0 });
  });

  it('fails orders stuck in processing past the limit (since their last status change)', async () => {
    const book = await stockedBook(t.database.db, 5);
    const stuck = await insertOrder(t.database.db, { status: 'PROCESSING', lines: [book], at: Date.now() - 9 * HOUR });
    const parked = await insertOrder(t.database.db, {
      status: 'PENDING_NAV_PROCESSING',
      lines: [book],
      at: Date.now() - 8 * HOUR - MINUTE,
    });
    const recent = await insertOrder(t.database.db, { status: 'PROCESSING', lines: [book], at: Date.now() - 7 * HOUR });
    await sweepOrders(deps, Date.now());
    expect(await orderStatus(t.database.db, stuck.id)).toBe('FAILED');
    expect((await statusHistory(t.database.db, stuck.id)).at(-1)!.cause).toBe('stuck in PROCESSING for more than 8 hours');
    expect(await orderStatus(t.database.db, parked.id)).toBe('FAILED');
    expect(await orderStatus(t.database.db, recent.id)).toBe('PROCESSING');
    // FAILED holds no stock: what the two failed orders held is released.
    expect(await productStock(t.database.db, book.productId)).toEqual({ webStock: 5, reserved: 1 });
  });

  it('never runs twice at once: a second sweep while one is under way does nothing', async () => {
    const order = await unpaid('ref-slow', 31);
    settled('ref-slow', order.code, order.totalCents, 'pending');
    const hold = gateway.holdNextFetch();
    const first = sweepOrders(deps, Date.now());
    await expect.poll(() => gateway.fetches.includes('ref-slow')).toBe(true);
    expect(await sweepOrders(deps, Date.now())).toEqual({ ran: false });
    const lease = await t.database.db.selectFrom('job_lease').select('name').execute();
    expect(lease).toEqual([{ name: 'order-sweep' }]);
    hold.release();
    expect(await first).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 1 }) });
    expect(await t.database.db.selectFrom('job_lease').select('name').execute()).toEqual([]);
    // A lease left by a crashed process is taken over once it has expired.
    await t.database.db
      .insertInto('job_lease')
      .values({ name: 'order-sweep', owner: 'crashed', expires_at: Date.now() - 1 })
      .execute();
    expect(await sweepOrders(deps, Date.now())).toEqual({ ran: true, result: expect.any(Object) });
  });
});
