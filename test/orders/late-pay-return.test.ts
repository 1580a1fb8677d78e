import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { pageOf, settleEveryPay, sweepDepsOf } from './everypay-helpers.js';
import { cardPayment, orderStatus, productStock, startCardShop, type CardShop } from './processing-helpers.js';

// The shopper pays on EveryPay's page after the sweep gave the order up (the page was still open when
// EveryPay said "initial" to the sweep), and comes back. EveryPay's callback is lost here (this shop's
// EveryPay posts none): the shopper's return is the shop's only word of the payment.

let s: CardShop;
beforeAll(async () => {
  s = await startCardShop();
});
afterEach(() => settleEveryPay(s));
afterAll(() => s?.close());

const db = () => s.t.database.db;

it('the return of a payment made after the sweep cancelled its order pays the order and lands on the finished page', async () => {
  const order = await cardPayment(s, { stock: 3, quantity: 1 });
  await db()
    .updateTable('customer_order')
    .set({ created_at: Date.now() - 40 * 60_000, status_changed_at: Date.now() - 31 * 60_000 })
    .where('id', '=', order.orderId)
    .execute();
  expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 1 }) });
  expect(await orderStatus(db(), order.orderId)).toBe('CANCELLED');

  await s.everypay.settle(order.reference);
  const back = new URL(s.everypay.payment(order.reference)!.customerUrl);
  const response = await s.t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(response.statusCode, response.body).toBe(303);
  expect(pageOf(s.t, response.headers.location as string)).toBe('finished');
  expect(await orderStatus(db(), order.orderId)).toBe('PENDING_PROCESSING');
  expect((await productStock(db(), order.productId)).reserved).toBe(1);

  // Returned again, the order paid: EveryPay is not asked again.
  const before = s.everypay.requests.length;
  const again = await s.t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(pageOf(s.t, again.headers.location as string)).toBe('finished');
  expect(s.everypay.requests.length).toBe(before);
});
