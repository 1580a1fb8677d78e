import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { sweepOrders, type OrderSweepDeps } from '../../src/modules/orders/index.js';
import { call, type Who } from '../basket/helpers.js';
import { createForm, startEveryPayShop, sweepDepsOf, type EveryPayShop } from '../orders/everypay-helpers.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook } from '../orders/helpers.js';
import { card, ledger } from './helpers.js';
import { expectErrorBody } from '../helpers/http.js';

// Gift-card money when an order is refunded or given up and then paid late: a gift-card-only
// order is refunded to its cards; a payment that settles after the holds were released takes them
// again when the cards still cover them, and otherwise leaves the order given up, records the
// mismatch and is refunded by the sweep; a hold is given back once however often the order is given up.

let s: EveryPayShop;
let key: string;
let sweep: OrderSweepDeps;
beforeAll(async () => {
  s = await startEveryPayShop();
  key = await createApiKey(s.t.database.db, 'back-office', Date.now());
  sweep = sweepDepsOf(s.t);
});
afterEach(async () => {
  await s.everypay.callbacksIdle();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

let nextIp = 10;
/** A guest with a book of `price` in the basket (+5.90 courier) and the card on it. */
async function shopperWithCard(price: number, code: string): Promise<Who> {
  const book = await stockedBook(s.t, s.shop, 50, price);
  const who = await fill(s.t, { ip: `10.0.3.${nextIp++}` }, [[book, 1]]);
  expect((await call(s.t, 'PUT', '/basket/delivery', who, { deliveryMethodId: s.shop.methods.COURIER })).statusCode).toBe(200);
  expect((await call(s.t, 'POST', '/basket/add-gift-card', who, { code })).statusCode).toBe(200);
  return who;
}
async function cardCheckout(who: Who) {
  const response = await checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }));
  expect(response.statusCode, response.body).toBe(200);
  return orderLink(response.json().location);
}
async function order(orderId: number) {
  const row = await db().selectFrom('customer_order').select(['status', 'code']).where('id', '=', orderId).executeTakeFirstOrThrow();
  return { status: row.status, code: row.code! };
}
const refund = (code: string, payload: Record<string, unknown>) =>
  s.t.app.inject({ method: 'POST', url: `/admin/orders/${code}/refund`, headers: { authorization: `Bearer ${key}` }, payload });

describe('gift-card money on refunds and late settles', () => {
  it('a gift-card-only order is refunded to its card, whole and once', async () => {
    const code = await card(s.t, 50);
    const link = await cardCheckout(await shopperWithCard(20, code));
    expect((await s.t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
    const { code: orderCode, status } = await order(link.orderId);
    expect(status).toBe('PENDING_PROCESSING');
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 2410, holds: [{ state: 'CAPTURED', cents: 2590 }] });
    const part = await refund(orderCode, { amount: 10 });
    expect(part.statusCode, part.body).toBe(409);
    expect(part.body).not.toContain('stack');
    const whole = await refund(orderCode, {});
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.json()).toMatchObject({ status: 'CANCELLED' });
    const refunded = {
      balanceCents: 5000,
      entrySumCents: 5000,
      heldCents: 0,
      kinds: ['IMPORT', 'RESERVE', 'CAPTURE', 'REFUND'],
      holds: [{ state: 'REFUNDED' }],
    };
    expect(await ledger(db(), code)).toMatchObject(refunded);
    // The same refund again (a double click) answers as the first did and gives nothing back twice;
    // another refund of the cancelled order is a 409.
    const again = await refund(orderCode, {});
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(whole.json());
    expectErrorBody(await refund(orderCode, { amount: 25.9 }), 409, 'Conflict');
    expect(await ledger(db(), code)).toMatchObject(refunded);
  });

  it('two refunds of a gift-card-only order sent at once under one Idempotency-Key give the money back once and answer alike', async () => {
    const code = await card(s.t, 50);
    const link = await cardCheckout(await shopperWithCard(20, code));
    expect((await s.t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
    const { code: orderCode } = await order(link.orderId);
    const keyed = () =>
      s.t.app.inject({
        method: 'POST',
        url: `/admin/orders/${orderCode}/refund`,
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'refund-once-1' },
        payload: {},
      });
    const answers = await Promise.all([keyed(), keyed()]);
    expect(answers.map((response) => response.statusCode)).toEqual([200, 200]);
    expect(answers[1]!.json()).toEqual(answers[0]!.json());
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 5000, kinds: ['IMPORT', 'RESERVE', 'CAPTURE', 'REFUND'] });
  });

  it('a late settle takes the released share again when the card still covers it', async () => {
    const code = await card(s.t, 10);
    const link = await cardCheckout(await shopperWithCard(20, code));
    const { reference } = await createForm(s, { ...link, code: '', totalCents: 0, productId: 0 });
    await s.everypay.shopper(reference, 'decline');
    await s.everypay.callbacksIdle();
    expect((await order(link.orderId)).status).toBe('PAYMENT_FAILED');
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 1000, holds: [{ state: 'RELEASED' }] });
    await s.everypay.settle(reference);
    await s.everypay.callbacksIdle();
    expect((await order(link.orderId)).status).toBe('PENDING_PROCESSING');
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 0, entrySumCents: 0, heldCents: 0, holds: [{ state: 'CAPTURED' }] });
  });

  it('a late settle when the card was spent since: the order stays given up, the mismatch is recorded, the sweep refunds the payment once', async () => {
    const code = await card(s.t, 10);
    const link = await cardCheckout(await shopperWithCard(20, code));
    const { reference } = await createForm(s, { ...link, code: '', totalCents: 0, productId: 0 });
    await s.everypay.shopper(reference, 'decline');
    await s.everypay.callbacksIdle();
    // Another basket spends the released 10.00.
    await cardCheckout(await shopperWithCard(10, code));
    expect((await ledger(db(), code)).balanceCents).toBe(0);
    await s.everypay.settle(reference);
    await s.everypay.callbacksIdle();
    expect((await order(link.orderId)).status).toBe('PAYMENT_FAILED');
    expect((await ledger(db(), code)).balanceCents).toBe(0);
    const inbox = await db().selectFrom('payment_callback').select(['state', 'outcome']).where('reference', '=', reference).execute();
    expect(inbox).toContainEqual({ state: 'settled', outcome: 'mismatch' });
    const refundsOf = () =>
      s.everypay.requests.filter(
        (r) => r.path === '/api/v4/payments/refund' && (r.body as Record<string, unknown>).payment_reference === reference,
      );
    expect(await sweepOrders(sweep, Date.now())).toEqual({ ran: true, result: expect.objectContaining({ refunded: 1 }) });
    expect(refundsOf()).toHaveLength(1);
    expect(s.everypay.payment(reference)).toMatchObject({ state: 'refunded', standingCents: 0 });
    const payment = await db()
      .selectFrom('order_payment')
      .select(['state', 'refund_due_at'])
      .where('reference', '=', reference)
      .executeTakeFirstOrThrow();
    expect(payment).toMatchObject({ state: 'refunded', refund_due_at: null });
    await sweepOrders(sweep, Date.now());
    expect(refundsOf()).toHaveLength(1);
    expect((await order(link.orderId)).status).toBe('PAYMENT_FAILED');
  });

  it('given up twice (FAILED, then refunded in full: CANCELLED), the card gets its share back once', async () => {
    const code = await card(s.t, 10);
    const link = await cardCheckout(await shopperWithCard(20, code));
    const { reference } = await createForm(s, { ...link, code: '', totalCents: 0, productId: 0 });
    await s.everypay.shopper(reference, 'pay');
    await s.everypay.callbacksIdle();
    const { code: orderCode } = await order(link.orderId);
    // Stuck in processing: FAILED gives the card its share back.
    // Stuck in processing: the sweep processes it, then (later still) makes it FAILED, which gives the card its share back.
    const stuck = s.t.config.orders.stuckAfterMs + 60_000;
    await sweepOrders(sweep, Date.now() + stuck);
    await sweepOrders(sweep, Date.now() + 2 * stuck);
    expect((await order(link.orderId)).status).toBe('FAILED');
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 1000, entrySumCents: 1000, holds: [{ state: 'REFUNDED' }] });
    // The gateway part refunded in full: CANCELLED runs the hook again; the card is not paid twice.
    const whole = await refund(orderCode, {});
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.json()).toMatchObject({ status: 'CANCELLED' });
    expect(await ledger(db(), code)).toMatchObject({
      balanceCents: 1000,
      entrySumCents: 1000,
      kinds: ['IMPORT', 'RESERVE', 'CAPTURE', 'REFUND'],
    });
  });
});
