import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { answers } from '../helpers/everypay-order.js';
import { failCommitsOfUpdate } from '../helpers/failing-commit.js';
import { sample, scrape } from '../metrics/metrics-text.js';
import { createForm, placeCardOrder, startEveryPayShop, sweepDepsOf, viewOrder, type EveryPayShop } from './everypay-helpers.js';
import { age } from './processing-helpers.js';

// storefront_payments_total counts the payment statuses the shop applied, once their transaction
// committed (db/after-commit.ts): a callback, or an unpaid-order sweep, whose transaction applied a
// settle and then could not commit has changed nothing, and counts nothing either. The COMMIT is made
// to fail by a deferred foreign key written when the order's status moves, so all of the applying ran.

const METRICS_TOKEN = 'payments-metric-0123456789abcdef';
let s: EveryPayShop;
beforeAll(async () => {
  s = await startEveryPayShop({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000/1m', METRICS_TOKEN });
});
afterEach(async () => {
  await s.everypay.releaseCallbacks();
  await s.everypay.callbacksIdle();
});
afterAll(async () => {
  await s?.close();
});

const settledApplied = async () =>
  sample(await scrape(s.t, METRICS_TOKEN), 'storefront_payments_total', {
    gateway: 'everypay',
    state: 'settled',
    applied_to: 'order',
    outcome: 'applied',
  }) ?? 0;

describe('storefront_payments_total', () => {
  it('counts nothing for a settle whose transaction did not commit (callback, then sweep); once for the one that did', async () => {
    const order = await placeCardOrder(s);
    const { reference } = await createForm(s, order);
    const before = await settledApplied();
    const unpaid = await viewOrder(s.t, order);
    expect(unpaid.status).toBe('PENDING_PAYMENT');
    const repair = await failCommitsOfUpdate(s.t.database, 'customer_order', 'status', order.orderId);
    let sent;
    try {
      // EveryPay settles the payment and calls back: the shop applies it, and its COMMIT fails.
      sent = await s.everypay.settle(reference);
      await s.everypay.callbacksIdle();
      // The sweep, half an hour on, asks EveryPay and applies the settle: its COMMIT fails too (the sweep goes on).
      await age(s.t.database.db, order.orderId, 31);
      expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toMatchObject({ ran: true, result: { paid: 0, cancelled: 0 } });
    } finally {
      await repair();
    }
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.map((callback) => callback.status)).not.toContain(200);
    expect(await viewOrder(s.t, order)).toEqual(unpaid);
    expect(await settledApplied()).toBe(before);
    // The sweep again, the commit no longer failing: applied and counted, once; the callback again is a duplicate.
    expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toMatchObject({ ran: true, result: { paid: 1 } });
    expect((await viewOrder(s.t, order)).status).toBe('PENDING_PROCESSING');
    expect(await settledApplied()).toBe(before + 1);
    expect(answers(await s.everypay.notify(reference))).toEqual([[200, { outcome: 'duplicate' }]]);
    expect(await settledApplied()).toBe(before + 1);
  });
});
