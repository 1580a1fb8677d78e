import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { paidBook, refundsAsked, startRefundShop, type RefundShop } from './refund-helpers.js';
import { settleEveryPay } from './everypay-helpers.js';

// The callback inbox keys a refund by the sum refunded in all ("refunded:<cents>"), so that each larger
// refund is an event of its own. Its state column was varchar(16): from 100,000.00 euros refunded
// ("refunded:10000000", 17 characters) PostgreSQL refused the row, so the operator's refund, made at
// EveryPay, was a 500 that recorded nothing (the order not cancelled, its buyer not told), and
// EveryPay's callback of it a 500 on every retry. A payment is at most what an order's total holds.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterEach(() => settleEveryPay(s));
afterAll(async () => {
  await s?.close();
});

const statusOf = async (orderId: number) =>
  (await s.t.database.db.selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status;

/** The order's callback inbox: each state the gateway confirmed, what applying it did, how often it came. */
const inboxOf = async (orderId: number) =>
  (
    await s.t.database.db
      .selectFrom('payment_callback')
      .select(['state', 'outcome', 'received_count'])
      .where('order_id', '=', orderId)
      .execute()
  )
    .map((row) => ({ state: row.state, outcome: row.outcome, received: Number(row.received_count) }))
    // In code: the engines' collations sort text differently.
    .sort((a, b) => (a.state < b.state ? -1 : a.state > b.state ? 1 : 0));

describe('refunds of 100,000 euros or more in all', () => {
  it("the operator's part refund and the rest are applied once each, and the rest cancels the order", async () => {
    const order = await paidBook(s, 120_000);
    const part = await s.refund(order.code, { amount: 100_000 });
    expect(part.statusCode, part.body).toBe(200);
    expect(part.json()).toMatchObject({ status: 'PENDING_PROCESSING', payment: { refunded: 100_000 } });
    await s.everypay.callbacksIdle();
    const rest = await s.refund(order.code, {});
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json()).toMatchObject({ status: 'CANCELLED' });
    await s.everypay.callbacksIdle();
    expect(refundsAsked(s, order.reference)).toEqual([10_000_000, order.totalCents - 10_000_000]);
    // EveryPay's callbacks of both refunds found them applied already.
    const callbacks = s.everypay.callbacks.filter((sent) => sent.fields.payment_reference === order.reference);
    expect(callbacks.map((sent) => sent.status)).toEqual([200, 200, 200]);
    expect(await inboxOf(order.orderId)).toEqual([
      { state: 'refunded:10000000', outcome: 'applied', received: 2 },
      { state: `refunded:${order.totalCents}`, outcome: 'applied', received: 2 },
      { state: 'settled', outcome: 'applied', received: 1 },
    ]);
  });

  it('a refund made in the portal reaches the order through its callback', async () => {
    const order = await paidBook(s, 150_000);
    const [sent] = await s.everypay.refund(order.reference, order.totalCents);
    expect(sent!.status, sent!.answer).toBe(200);
    expect(JSON.parse(sent!.answer!)).toEqual({ outcome: 'applied' });
    expect(await statusOf(order.orderId)).toBe('CANCELLED');
    expect(await inboxOf(order.orderId)).toEqual([
      { state: `refunded:${order.totalCents}`, outcome: 'applied', received: 1 },
      { state: 'settled', outcome: 'applied', received: 1 },
    ]);
  });
});
