import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { sweepDepsOf } from './everypay-helpers.js';
import { cardPayment, shopperReturns, startCardShop, type CardShop } from './processing-helpers.js';

// The sweep refunds payments due back (refund_due_at), oldest first, 100 at a time. One it cannot
// refund now (its gateway no longer configured, the gateway unavailable) stays due, and was read
// again first by every sweep: 100 of them, and every payment due after them was never reached, its
// money never given back.

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

describe("the sweep's refunds of payments due back", () => {
  it('reach a payment due after 100 that cannot be refunded now (their gateway no longer configured)', async () => {
    const order = await cardPayment(s);
    await s.everypay.settle(order.reference);
    await shopperReturns(s, order);
    await s.t.drainJobs();
    await sweepOrders(sweepDepsOf(s.t), Date.now());
    const now = Date.now();
    await db().updateTable('order_payment').set({ refund_due_at: now }).where('order_id', '=', order.id).execute();
    // 101 older payments due back through the test gateway, which the sweep's gateways no longer include.
    const paid = await db().selectFrom('order_payment').selectAll().where('order_id', '=', order.id).executeTakeFirstOrThrow();
    const { id: _id, ...row } = paid;
    await db()
      .insertInto('order_payment')
      .values(
        Array.from({ length: 101 }, (_, i) => ({
          ...row,
          gateway: 'test',
          reference: `tg_stuck_${i}`,
          idempotency_key: `stuck-${i}-${now}`,
          refund_due_at: now - 3_600_000 + i,
        })),
      )
      .execute();

    const swept = await sweepOrders(sweepDepsOf(s.t), Date.now());
    expect(swept).toEqual({ ran: true, result: expect.objectContaining({ refunded: 1 }) });
    expect(refundsOf(order.reference)).toHaveLength(1);
    const after = await db()
      .selectFrom('order_payment')
      .select(['state', 'refund_due_at'])
      .where('id', '=', paid.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ state: 'refunded', refund_due_at: null });
    // The ones it cannot refund stay due for when their gateway is configured again.
    const stillDue = await db().selectFrom('order_payment').select('id').where('refund_due_at', 'is not', null).execute();
    expect(stillDue).toHaveLength(101);
  });
});
