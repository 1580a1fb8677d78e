import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createForm,
  pageOf,
  placeCardOrder,
  settleEveryPay,
  shopperReturns,
  startEveryPayShop,
  viewOrder,
  type EveryPayShop,
  type PlacedOrder,
} from './everypay-helpers.js';

// A card purchase through EveryPay at the order level, against the local EveryPay server over real
// HTTP: checkout, create-form, the payment page, EveryPay's callbacks (once, repeated, late,
// reordered, forged) and the shopper's return. After each step: the order's status, one history
// row per real change, one processing job, and the callback inbox.

let s: EveryPayShop;
beforeAll(async () => {
  s = await startEveryPayShop();
});
afterEach(() => settleEveryPay(s));
afterAll(async () => {
  await s?.close();
});

const view = (order: PlacedOrder) => viewOrder(s.t, order);
const PAID_MOVES = ['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING'];

async function startedPayment() {
  const order = await placeCardOrder(s);
  const { form, reference } = await createForm(s, order);
  return { order, form, reference };
}

describe('a card payment through EveryPay', () => {
  it('create-form points at the payment link of a payment made for the order, and the shopper pays; one callback moves it', async () => {
    const order = await placeCardOrder(s, 12.3);
    const { form, reference } = await createForm(s, order);
    expect(form).toEqual({ url: `${s.everypay.url}/lp`, method: 'GET', fields: { payment_reference: reference } });
    expect(s.everypay.payment(reference)).toMatchObject({ orderReference: order.code, initialCents: order.totalCents, state: 'initial' });
    expect(s.everypay.payment(reference)!.customerUrl).toContain(`/bank/return-internal?orderId=${order.orderId}&checksum=`);
    expect(await view(order)).toMatchObject({ status: 'PENDING_PAYMENT', moves: ['NEW', 'PENDING_PAYMENT'], jobs: 0, inbox: [] });
    // The browser submits the form (GET: the fields become the query) and sees the payment page.
    const page = await fetch(`${form.url}?${new URLSearchParams(form.fields)}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(order.code);
    // Another create-form answers the same form: no second payment.
    expect((await createForm(s, order)).form).toEqual(form);
    expect(s.everypay.paymentsFor(order.code)).toHaveLength(1);

    const back = await s.everypay.shopper(reference, 'pay');
    await s.everypay.callbacksIdle();
    const sent = s.everypay.callbacks.filter((callback) => callback.fields.payment_reference === reference);
    expect(sent.map((callback) => callback.status)).toEqual([200]);
    const paid = await view(order);
    expect(paid).toMatchObject({ status: 'PENDING_PROCESSING', moves: PAID_MOVES, jobs: 1 });
    expect(paid.inbox).toEqual([{ reference, state: 'settled', outcome: 'applied', received: 1 }]);

    // The shopper's return after the callback: the finished page, nothing moves again, and the
    // order paid already, EveryPay is not asked (the inbox counts what EveryPay was asked about).
    const returned = await shopperReturns(back);
    expect(returned.status).toBe(303);
    expect(pageOf(s.t, returned.location)).toBe('finished');
    expect(await view(order)).toMatchObject({ status: 'PENDING_PROCESSING', moves: PAID_MOVES, jobs: 1 });
    expect((await view(order)).inbox).toEqual([{ reference, state: 'settled', outcome: 'applied', received: 1 }]);
    const result = await s.t.app.inject({
      method: 'POST',
      url: '/bank/payment-result',
      payload: { orderId: order.orderId, checksum: order.checksum },
    });
    expect(result.json()).toMatchObject({ result: 'SUCCESS', order: { code: order.code } });
  });

  it('a callback sent ten times at once moves the order once and queues one processing', async () => {
    const { order, reference } = await startedPayment();
    const sent = await s.everypay.settle(reference, { times: 10 });
    expect(sent.map((callback) => callback.status)).toEqual(Array(10).fill(200));
    const after = await view(order);
    expect(after).toMatchObject({ status: 'PENDING_PROCESSING', moves: PAID_MOVES, jobs: 1, reserved: 1 });
    expect(after.inbox).toEqual([{ reference, state: 'settled', outcome: 'applied', received: 10 }]);
  });

  it('the return before the callback settles the order; the late callback changes nothing', async () => {
    const { order, reference } = await startedPayment();
    s.everypay.holdCallbacks();
    const back = await s.everypay.shopper(reference, 'pay');
    expect((await view(order)).status).toBe('PENDING_PAYMENT');
    const returned = await shopperReturns(back);
    expect(pageOf(s.t, returned.location)).toBe('finished');
    expect(await view(order)).toMatchObject({ status: 'PENDING_PROCESSING', moves: PAID_MOVES, jobs: 1 });

    const late = await s.everypay.releaseCallbacks();
    expect(late.map((callback) => callback.status)).toEqual([200]);
    const later = await s.everypay.notify(reference, { delayMs: 50, times: 3 });
    expect(later.map((callback) => callback.status)).toEqual([200, 200, 200]);
    const after = await view(order);
    expect(after).toMatchObject({ status: 'PENDING_PROCESSING', moves: PAID_MOVES, jobs: 1 });
    expect(after.inbox).toEqual([{ reference, state: 'settled', outcome: 'applied', received: 5 }]);
  });

  it('a declined payment: the failed page, stock released; a second return or callback changes nothing', async () => {
    const { order, reference } = await startedPayment();
    const back = await s.everypay.shopper(reference, 'decline');
    await s.everypay.callbacksIdle();
    const returned = await shopperReturns(back);
    expect(pageOf(s.t, returned.location)).toBe('failed');
    await s.everypay.notify(reference, { times: 2 });
    const after = await view(order);
    expect(after).toMatchObject({ status: 'PAYMENT_FAILED', moves: ['NEW', 'PENDING_PAYMENT', 'PAYMENT_FAILED'], jobs: 0, reserved: 0 });
    // The callback and the two repeated; the return of an order no longer waiting for it asked nothing.
    expect(after.inbox).toEqual([{ reference, state: 'failed', outcome: 'applied', received: 3 }]);
  });
});

describe('reordered callbacks end in the state EveryPay finally reports', () => {
  it('abandoned, then settled: each real change moves the order once; a late abandoned callback changes nothing', async () => {
    const { order, reference } = await startedPayment();
    await s.everypay.shopper(reference, 'cancel');
    await s.everypay.callbacksIdle();
    expect(await view(order)).toMatchObject({ status: 'PAYMENT_FAILED', reserved: 0 });
    // The payment goes through after all (EveryPay settles it): the money is ours, the order goes on.
    await s.everypay.settle(reference);
    // EveryPay's retry of the old abandoned notification arrives last.
    await s.everypay.notify(reference, { eventName: 'abandoned', delayMs: 20 });
    const after = await view(order);
    expect(after).toMatchObject({
      status: 'PENDING_PROCESSING',
      moves: ['NEW', 'PENDING_PAYMENT', 'PAYMENT_FAILED', 'PENDING_PROCESSING'],
      jobs: 1,
      reserved: 1,
    });
    expect(after.inbox).toEqual([
      { reference, state: 'abandoned', outcome: 'applied', received: 1 },
      { reference, state: 'settled', outcome: 'applied', received: 2 },
    ]);
  });

  it('failed then settled, held and released in reverse: the order moves once, to what EveryPay says now', async () => {
    const { order, reference } = await startedPayment();
    s.everypay.holdCallbacks();
    await s.everypay.fail(reference);
    await s.everypay.settle(reference);
    const sent = await s.everypay.releaseCallbacks('reversed');
    expect(sent.map((callback) => callback.status)).toEqual([200, 200]);
    const after = await view(order);
    expect(after).toMatchObject({ status: 'PENDING_PROCESSING', moves: PAID_MOVES, jobs: 1, reserved: 1 });
    // The shop never trusts a callback's word: both asked EveryPay, which said settled both times.
    expect(after.inbox).toEqual([{ reference, state: 'settled', outcome: 'applied', received: 2 }]);
  });

  it('3-D Secure still running, then settled: a pending status moves nothing', async () => {
    const { order, reference } = await startedPayment();
    await s.everypay.setState(reference, 'waiting_for_3ds_response');
    expect(await view(order)).toMatchObject({ status: 'PENDING_PAYMENT', moves: ['NEW', 'PENDING_PAYMENT'] });
    await s.everypay.settle(reference);
    expect(await view(order)).toMatchObject({ status: 'PENDING_PROCESSING', moves: PAID_MOVES, jobs: 1 });
  });
});

describe('forged callbacks change nothing', () => {
  it('an unknown payment reference is a 404, with nothing written', async () => {
    const { order, reference } = await startedPayment();
    await s.everypay.settle(reference);
    const before = await view(order);
    const [forged] = await s.everypay.forgeCallback({
      payment_reference: 'f'.repeat(64),
      order_reference: order.code,
      event_name: 'status_updated',
    });
    expect(forged!.status).toBe(404);
    const [garbage] = await s.everypay.forgeCallback({ payment_reference: '../../etc', order_reference: order.code });
    expect(garbage!.status).toBe(400);
    expect(await view(order)).toEqual(before);
    const inbox = await s.t.database.db
      .selectFrom('payment_callback')
      .select('reference')
      .where('reference', '=', 'f'.repeat(64))
      .execute();
    expect(inbox).toEqual([]);
  });

  it("a real EveryPay payment of another sum for the order's code is a mismatch: the order stays unpaid", async () => {
    const { order, reference } = await startedPayment();
    const other = s.everypay.addPayment({ orderReference: order.code, amountCents: 100, state: 'settled' });
    const sent = await s.everypay.notify(other.reference, { times: 2 });
    expect(sent.map((callback) => callback.status)).toEqual([200, 200]);
    const after = await view(order);
    expect(after).toMatchObject({ status: 'PENDING_PAYMENT', moves: ['NEW', 'PENDING_PAYMENT'], jobs: 0, reserved: 1 });
    expect(after.inbox).toEqual([{ reference: other.reference, state: 'settled', outcome: 'mismatch', received: 2 }]);
    // The shop's own payment still settles the order.
    await s.everypay.settle(reference);
    expect(await view(order)).toMatchObject({ status: 'PENDING_PROCESSING', moves: PAID_MOVES, jobs: 1 });
  });

  it("EveryPay's record of the shop's own payment with another sum is a mismatch: nothing moves", async () => {
    const { order, reference } = await startedPayment();
    // What EveryPay holds for the reference no longer matches what the shop asked for.
    s.everypay.payment(reference)!.initialCents = order.totalCents - 1;
    s.everypay.payment(reference)!.standingCents = order.totalCents - 1;
    const [sent] = await s.everypay.settle(reference);
    expect(sent!.status).toBe(200);
    const after = await view(order);
    expect(after).toMatchObject({ status: 'PENDING_PAYMENT', moves: ['NEW', 'PENDING_PAYMENT'], jobs: 0, reserved: 1 });
    expect(after.inbox).toEqual([{ reference, state: 'settled', outcome: 'mismatch', received: 1 }]);
  });

  it('a real EveryPay payment for an order code the shop never had is a 404, recorded as unknown', async () => {
    const stranger = s.everypay.addPayment({ orderReference: 'WT99999999', amountCents: 500, state: 'settled' });
    const [sent] = await s.everypay.notify(stranger.reference);
    expect(sent!.status).toBe(404);
    const inbox = await s.t.database.db
      .selectFrom('payment_callback')
      .select(['order_id', 'outcome'])
      .where('reference', '=', stranger.reference)
      .execute();
    expect(inbox).toEqual([{ order_id: null, outcome: 'unknown' }]);
  });
});
