import { afterAll, beforeAll, expect, it } from 'vitest';
import { cardPayment, orderStatus, startCardShop, type CardShop } from './processing-helpers.js';

// EveryPay's `chargebacked`: the cardholder disputed the payment and the issuer took the money back.
// The shop read what went back from standing_amount, which EveryPay documents for refunds, not for a
// chargeback. With it left as it was, a chargeback after a part refund read as that part refund again:
// the same inbox key, a duplicate, and the paid order went on to be shipped for money the bank took back.

let s: CardShop;
beforeAll(async () => {
  s = await startCardShop();
});
afterAll(() => s?.close());

const paymentOf = (orderId: number) =>
  s.t.database.db.selectFrom('order_payment').select(['state', 'refunded_cents']).where('order_id', '=', orderId).executeTakeFirstOrThrow();

/** EveryPay's callback naming the payment: the shop asks EveryPay for its status and applies it. */
async function callback(reference: string) {
  const response = await s.t.app.inject({ method: 'POST', url: '/payment/everypay/callback', payload: { payment_reference: reference } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { outcome: string };
}

it('a chargeback after a part refund, standing_amount left as it was, takes the whole payment back and cancels the order', async () => {
  const order = await cardPayment(s);
  await s.everypay.settle(order.reference);
  expect(await callback(order.reference)).toEqual({ outcome: 'applied' });
  await s.everypay.refund(order.reference, 500);
  expect(await callback(order.reference)).toEqual({ outcome: 'applied' });
  expect(await paymentOf(order.id)).toEqual({ state: 'refunded', refunded_cents: 500 });
  expect(await orderStatus(s.t.database.db, order.id)).toBe('PENDING_PROCESSING');

  await s.everypay.setState(order.reference, 'chargebacked');
  s.everypay.payment(order.reference)!.standingCents = order.totalCents - 500;
  expect(await callback(order.reference)).toEqual({ outcome: 'applied' });
  expect(await orderStatus(s.t.database.db, order.id)).toBe('CANCELLED');
  expect(await paymentOf(order.id)).toEqual({ state: 'refunded', refunded_cents: order.totalCents });
});
