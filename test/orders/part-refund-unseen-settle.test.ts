import { afterAll, beforeAll, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { sweepDepsOf } from './everypay-helpers.js';
import { age, cardPayment, orderStatus, shopperReturns, startCardShop, type CardShop } from './processing-helpers.js';

// A payment that settled and was then refunded in part at EveryPay (in its merchant portal) before the
// shop heard of the settle: no callback reaches this shop, so it learns both at once from EveryPay,
// by the shopper's return or the unpaid-order sweep. The rest of the money is the shop's: the order is paid.

let s: CardShop;
beforeAll(async () => {
  s = await startCardShop();
});
afterAll(() => s?.close());

const paymentOf = (orderId: number) =>
  s.t.database.db
    .selectFrom('order_payment')
    .select(['state', 'refunded_cents', 'refund_due_at'])
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();

async function settledThenRefundedInPart() {
  const order = await cardPayment(s);
  await s.everypay.settle(order.reference);
  await s.everypay.refund(order.reference, 500);
  return order;
}

it('the sweep: paid with 5.00 refunded, not cancelled with the rest of the money kept', async () => {
  const order = await settledThenRefundedInPart();
  await age(s.t.database.db, order.id, 31);
  const swept = await sweepOrders(sweepDepsOf(s.t), Date.now());
  expect(swept).toEqual({ ran: true, result: expect.objectContaining({ paid: 1, cancelled: 0 }) });
  expect(await orderStatus(s.t.database.db, order.id)).toBe('PENDING_PROCESSING');
  expect(await paymentOf(order.id)).toEqual({ state: 'refunded', refunded_cents: 500, refund_due_at: null });
  // EveryPay keeps what was not refunded, for an order that goes on.
  expect(s.everypay.payment(order.reference)!.standingCents).toBe(order.totalCents - 500);
});

it("the shopper's return: paid with 5.00 refunded, one processing queued", async () => {
  const order = await settledThenRefundedInPart();
  await shopperReturns(s, order);
  expect(await orderStatus(s.t.database.db, order.id)).toBe('PENDING_PROCESSING');
  expect(await paymentOf(order.id)).toEqual({ state: 'refunded', refunded_cents: 500, refund_due_at: null });
  const jobs = await s.t.database.db.selectFrom('job').select('payload').where('type', '=', 'order.process').execute();
  expect(jobs.filter((job) => (JSON.parse(job.payload) as { orderId: number }).orderId === order.id)).toHaveLength(1);
});

it('refunded in full before the shop heard the settle: nothing is kept, and the sweep gives the order up', async () => {
  const order = await cardPayment(s);
  await s.everypay.settle(order.reference);
  await s.everypay.refund(order.reference, order.totalCents);
  await age(s.t.database.db, order.id, 31);
  expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 1 }) });
  expect(await orderStatus(s.t.database.db, order.id)).toBe('CANCELLED');
});
