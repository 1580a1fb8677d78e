import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { expectErrorBody } from '../helpers/http.js';
import { placeCardOrder, settleEveryPay, sweepDepsOf } from './everypay-helpers.js';
import { age, cardPayment, orderStatus, productStock, startCardShop, statusHistory, type CardShop } from './processing-helpers.js';

// The unpaid-order sweep gives an order ORDER_UNPAID_AFTER (30 minutes) from checkout. A payment start
// the gateway could not create puts the order back in NEW (the shopper may try again): such starts,
// up to ten an hour, must not keep the order from its limit, holding its stock for good and adding
// two rows to its history (shown whole in the order detail) each time. A payment the gateway did make
// still gets its time from its own start, and a late settle of an order given up still pays it.

let s: CardShop;
beforeAll(async () => {
  s = await startCardShop();
});
afterEach(() => settleEveryPay(s));
afterAll(() => s?.close());

const db = () => s.t.database.db;
const sweep = (at = Date.now()) => sweepOrders(sweepDepsOf(s.t), at);

it('an order whose payment starts EveryPay keeps refusing is cancelled its time after checkout, its last start notwithstanding', async () => {
  const order = await placeCardOrder(s, 20, { stock: 3, quantity: 1 });
  await age(db(), order.orderId, 31);
  // A start just now, which EveryPay could not create: back in NEW, its last change a moment ago.
  s.everypay.breakApi({ status: 503 }, 1, '/api/v4/payments/oneoff');
  expectErrorBody(await s.t.app.inject({ method: 'GET', url: order.path }), 503, 'Service Unavailable');
  expect(await orderStatus(db(), order.orderId)).toBe('NEW');

  expect(await sweep()).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 1 }) });
  expect(await orderStatus(db(), order.orderId)).toBe('CANCELLED');
  expect((await productStock(db(), order.productId)).reserved).toBe(0);
  expect((await statusHistory(db(), order.orderId)).map((change) => change.to_status)).toEqual([
    'NEW',
    'PENDING_PAYMENT',
    'NEW',
    'CANCELLED',
  ]);
  // The link starts nothing more.
  const again = expectErrorBody(await s.t.app.inject({ method: 'GET', url: order.path }), 409, 'Conflict');
  expect(again.message).toContain('CANCELLED');
  expect(s.everypay.paymentsFor(order.code)).toEqual([]);
});

it('a payment EveryPay made after the order was placed gets its own time, and a settle after the cancel pays the order', async () => {
  const order = await cardPayment(s, { stock: 3, quantity: 1 });
  // Placed 40 minutes ago, its payment (the one EveryPay made) started 5 minutes ago.
  await db()
    .updateTable('customer_order')
    .set({ created_at: Date.now() - 40 * 60_000, status_changed_at: Date.now() - 5 * 60_000 })
    .where('id', '=', order.orderId)
    .execute();
  expect(await sweep()).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 0 }) });
  expect(await orderStatus(db(), order.orderId)).toBe('PENDING_PAYMENT');

  // Its payment unpaid for its own 30 minutes: given up.
  expect(await sweep(Date.now() + 26 * 60_000)).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 1 }) });
  expect(await orderStatus(db(), order.orderId)).toBe('CANCELLED');
  // The shopper pays on the page still open: EveryPay's callback revives the order, stock held again.
  await s.everypay.settle(order.reference);
  const callback = await s.t.app.inject({
    method: 'POST',
    url: '/payment/everypay/callback',
    payload: { payment_reference: order.reference },
  });
  expect(callback.statusCode, callback.body).toBe(200);
  expect(await orderStatus(db(), order.orderId)).toBe('PENDING_PROCESSING');
  expect((await productStock(db(), order.productId)).reserved).toBe(1);
});
