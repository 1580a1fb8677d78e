import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EveryPayState } from '../helpers/everypay-server.js';
import {
  createForm,
  placeCardOrder,
  settleEveryPay,
  shopperReturns,
  startEveryPayShop,
  viewOrder,
  type EveryPayShop,
} from './everypay-helpers.js';

// A callback's look-up that meets EveryPay down pauses every look-up (PAYMENT_CALLBACK_GATEWAY_PAUSE): none
// would be answered. EveryPay answering about one payment in a way the shop cannot read (a payment_state it
// does not know, say one EveryPay added for a payment method) is no outage: the other payments are answered
// as ever. Taken for one, that one payment's callback made every other callback a 503 for the pause, and
// every shopper coming back meanwhile saw their payment pending, again at each of EveryPay's retries of it.

let s: EveryPayShop;
beforeAll(async () => {
  s = await startEveryPayShop({ PAYMENT_CALLBACK_GATEWAY_PAUSE: '10m' });
});
afterEach(() => settleEveryPay(s));
afterAll(() => s?.close());

/** A payment on the shop's account (made outside this shop's checkout) in a state EveryPay's list did not have. */
function paymentInAnUnknownState() {
  const payment = s.everypay.addPayment({ orderReference: 'PORTAL-0001', amountCents: 1500 });
  payment.state = 'waiting_for_capture' as EveryPayState;
  return payment;
}

describe('a payment EveryPay answers about in a way the shop cannot read', () => {
  it("is a 503 to its own callback, and the other payments' callbacks and returns are looked up and applied", async () => {
    const odd = paymentInAnUnknownState();
    const [unread] = await s.everypay.notify(odd.reference);
    expect(unread!.status, unread!.answer).toBe(503);

    const order = await placeCardOrder(s);
    const { reference } = await createForm(s, order);
    s.everypay.holdCallbacks();
    const back = await s.everypay.shopper(reference, 'pay');
    // The shopper's return asks EveryPay and pays the order, before its callback comes.
    expect(await shopperReturns(back)).toMatchObject({ status: 303 });
    expect(await viewOrder(s.t, order)).toMatchObject({ status: 'PENDING_PROCESSING', jobs: 1 });
    const [callback] = await s.everypay.releaseCallbacks();
    expect(callback!.status, callback!.answer).toBe(200);
    expect(JSON.parse(callback!.answer!)).toEqual({ outcome: 'duplicate' });

    // Another payment's callback is looked up too: EveryPay's answer about it is read as ever.
    const second = await placeCardOrder(s);
    const started = await createForm(s, second);
    const [paid] = await s.everypay.settle(started.reference);
    expect(paid!.status, paid!.answer).toBe(200);
    expect(await viewOrder(s.t, second)).toMatchObject({ status: 'PENDING_PROCESSING', jobs: 1 });

    // And the unreadable one is asked about again at EveryPay's retry (503 again), not refused unasked.
    const asked = s.everypay.requests.filter((request) => request.path === `/api/v4/payments/${odd.reference}`).length;
    const [again] = await s.everypay.notify(odd.reference);
    expect(again!.status, again!.answer).toBe(503);
    expect(s.everypay.requests.filter((request) => request.path === `/api/v4/payments/${odd.reference}`).length).toBe(asked + 1);
  });
});
