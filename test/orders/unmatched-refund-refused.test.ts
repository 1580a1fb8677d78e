import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { sweepDepsOf } from './everypay-helpers.js';
import { cardPayment, shopperReturns, startCardShop, type CardShop } from './processing-helpers.js';

// The sweep refunds a payment due back (refund_due_at: it settled for an order that could not go on).
// A refund EveryPay refused as asked was left for the next sweep, which sent it again, and again, every
// ORDER_SWEEP_INTERVAL for good: a payment refunded by hand in the portal, in part or whole (its callback
// lost), was refused each time; the whole one never showed refunded in the shop's rows.

let s: CardShop;
beforeAll(async () => {
  s = await startCardShop();
});
afterAll(() => s?.close());

const db = () => s.t.database.db;
const refundsOf = (reference: string) =>
  s.everypay.requests.filter(
    (request) =>
      request.path === '/api/v4/payments/refund' && (request.body as { payment_reference: string }).payment_reference === reference,
  );
const paymentOf = (orderId: number) =>
  db()
    .selectFrom('order_payment')
    .select(['state', 'refunded_cents', 'refund_due_at', 'refund_refused_at'])
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();

/** A card order paid at EveryPay, its payment marked due back as payment-status.service.ts marks a late settle. */
async function paymentDueBack() {
  const order = await cardPayment(s);
  await s.everypay.settle(order.reference);
  await shopperReturns(s, order);
  await s.t.drainJobs();
  await sweepOrders(sweepDepsOf(s.t), Date.now());
  await db().updateTable('order_payment').set({ refund_due_at: Date.now() }).where('order_id', '=', order.id).execute();
  return order;
}

describe("the sweep's refund of a payment due back, refused by EveryPay", () => {
  it('is given up once refused as asked: kept as refused, not sent again', async () => {
    const order = await paymentDueBack();
    // Part of it refunded by hand in the portal (its callback lost): EveryPay refuses the whole sum the shop asks back.
    await s.everypay.refund(order.reference, 500);
    expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({ ran: true, result: expect.objectContaining({ refunded: 0 }) });
    expect(refundsOf(order.reference)).toHaveLength(1);
    expect(await paymentOf(order.id)).toMatchObject({ refund_due_at: null, refund_refused_at: expect.any(Number) });

    await sweepOrders(sweepDepsOf(s.t), Date.now());
    expect(refundsOf(order.reference)).toHaveLength(1);
  });

  it('refunded by hand in the portal meanwhile (its callback lost): the refund found is applied, not sent again', async () => {
    const order = await paymentDueBack();
    await s.everypay.refund(order.reference, order.totalCents);
    expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({ ran: true, result: expect.objectContaining({ refunded: 1 }) });
    expect(await paymentOf(order.id)).toEqual({
      state: 'refunded',
      refunded_cents: order.totalCents,
      refund_due_at: null,
      refund_refused_at: null,
    });
    await sweepOrders(sweepDepsOf(s.t), Date.now());
    expect(refundsOf(order.reference)).toHaveLength(1);
  });
});
