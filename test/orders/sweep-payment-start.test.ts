import { afterAll, beforeAll, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { NOT_EVERYPAYS_404 } from '../helpers/everypay-server.js';
import { afterFirstRead } from '../helpers/overlapping-writes.js';
import { placeCardOrder, sweepDepsOf } from './everypay-helpers.js';
import { age, orderStatus, productStock, startCardShop, type CardShop } from './processing-helpers.js';

// The unpaid-order sweep reads its batch of orders, then each order's payments, then gives up the
// orders still unpaid. An order it read as unpaid past the limit may have started its payment since:
// the shopper opened the payment link at the last moment, and was sent to EveryPay's page.

let s: CardShop;
beforeAll(async () => {
  s = await startCardShop();
});
afterAll(() => s?.close());

it('an order whose payment the shopper starts after the sweep read it is not cancelled under the payment', async () => {
  const order = await placeCardOrder(s, 20, { stock: 3, quantity: 1 });
  await age(s.t.database.db, order.orderId, 31);
  let form: { statusCode: number; body: string } | undefined;
  // Right after the sweep read the order's payments (none yet), the shopper opens the payment link.
  const db = afterFirstRead(s.t.database.db, 'order_payment', async () => {
    form = await s.t.app.inject({ method: 'GET', url: order.path });
  });
  const outcome = await sweepOrders({ ...sweepDepsOf(s.t), db }, Date.now());
  expect(form?.statusCode, form?.body).toBe(200);
  expect(outcome).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 0 }) });
  // The shopper is on EveryPay's page with the order waiting for its payment, its copy still held.
  expect(await orderStatus(s.t.database.db, order.orderId)).toBe('PENDING_PAYMENT');
  expect((await productStock(s.t.database.db, order.productId)).reserved).toBe(1);
  const [payment] = s.everypay.paymentsFor(order.code);
  await s.everypay.settle(payment!.reference);
  // No callback URL here: the next sweep asks EveryPay, and the order is paid, never cancelled on the way.
  const next = await sweepOrders(sweepDepsOf(s.t), Date.now() + 31 * 60_000);
  expect(next).toEqual({ ran: true, result: expect.objectContaining({ paid: 1, cancelled: 0 }) });
  const moves = await s.t.database.db
    .selectFrom('order_status_change')
    .select('to_status')
    .where('order_id', '=', order.orderId)
    .orderBy('id')
    .execute();
  expect(moves.map((move) => move.to_status)).toEqual(['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING']);
});

// EVERYPAY_API_URL naming another service: its 404 was taken for EveryPay's "no such payment", and the
// sweep gave up an order the shopper had paid. It is the shop's setup, so the order waits for a sweep
// that can ask.
it("an order whose payment look-up meets a 404 that is not EveryPay's is left for the next sweep, not cancelled", async () => {
  const order = await placeCardOrder(s, 20, { stock: 3, quantity: 1 });
  expect((await s.t.app.inject({ method: 'GET', url: order.path })).statusCode).toBe(200);
  const [payment] = s.everypay.paymentsFor(order.code);
  // Paid, and no callback URL here: only a look-up tells the shop.
  await s.everypay.settle(payment!.reference);
  await age(s.t.database.db, order.orderId, 31);
  s.everypay.breakApi(NOT_EVERYPAYS_404);
  try {
    expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({
      ran: true,
      result: expect.objectContaining({ paid: 0, cancelled: 0 }),
    });
  } finally {
    s.everypay.breakApi(null);
  }
  expect(await orderStatus(s.t.database.db, order.orderId)).toBe('PENDING_PAYMENT');
  expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({
    ran: true,
    result: expect.objectContaining({ paid: 1, cancelled: 0 }),
  });
});
