import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { answers } from '../helpers/everypay-order.js';
import {
  bill,
  chargesOf,
  createCustomer,
  mailJobs,
  releaseHeldCallbacks,
  saveCard,
  subscribe,
  subscriptionRow,
  type SubscriptionShop,
  startSubscriptionShop,
} from './helpers.js';

// A subscription's charge is paid only by euros on the shop's own EveryPay processing account, as an
// order is (test/orders/payment-currency.test.ts): a payment in another currency, or held on another
// of the merchant's accounts, proves nothing of this charge whatever its amount, as an answer of
// another amount proves nothing. The charge stays pending for the operator, and the period is not paid.

let s: SubscriptionShop;
beforeAll(async () => {
  // Besides the shop's euro account the merchant has a dollar account and another euro one (another shop's, say).
  s = await startSubscriptionShop({}, { everypay: { otherAccounts: { USD3D1: 'USD', EUR9: 'EUR' } } });
});
afterEach(() => releaseHeldCallbacks(s));
afterAll(() => s.close());

/** A customer on AUDIO1's trial, its card saved on the shop's own account; `end`: the trial's end. */
async function trialSubscriber() {
  const customer = await createCustomer(s.t.database.db);
  await saveCard(s, customer);
  await s.everypay.callbacksIdle();
  const token = s.everypay.cards().at(-1)!.token;
  const started = await subscribe(s, customer, 'AUDIO1');
  expect(started.statusCode, started.body).toBe(201);
  expect(started.json()).toMatchObject({ status: 'TRIAL' });
  const id = started.json().id as number;
  return { id, token, end: Number((await subscriptionRow(s, id)).period_end) };
}

/**
 * Bills the trial's end with EveryPay's callbacks held. The bank decides just after EveryPay answered
 * (sent for processing), and what EveryPay then holds is on `account`, in its currency, not the shop's.
 */
async function renewalHeldOn(subscriber: { id: number; token: string; end: number }, account: { accountName: string; currency: string }) {
  s.everypay.setCardOutcome(subscriber.token, 'settled', { processing: true });
  s.everypay.holdCallbacks();
  const report = await bill(s, subscriber.end + 1);
  expect(report).toMatchObject({ charged: 0, failed: 0, pending: 1 });
  const [charge] = await chargesOf(s, subscriber.id);
  const [payment] = s.everypay.paymentsFor(charge!.order_reference);
  Object.assign(payment!, account);
  expect(s.everypay.paymentsFor(charge!.order_reference)).toMatchObject([{ state: 'settled', ...account }]);
  return charge!;
}

it('a renewal EveryPay settled in dollars does not pay the period: the charge stays pending, the callback finds nothing to pay', async () => {
  const subscriber = await trialSubscriber();
  const { id } = subscriber;
  const mailsBefore = await mailJobs(s, id);
  await renewalHeldOn(subscriber, { accountName: 'USD3D1', currency: 'USD' });
  const statuses = answers(await s.everypay.releaseCallbacks()).map(([status]) => status as number);
  expect(statuses).toEqual([404]);
  expect(await subscriptionRow(s, id)).toMatchObject({ status: 'TRIAL', period_number: 0 });
  expect((await chargesOf(s, id)).map((row) => row.state)).toEqual(['pending']);
  expect(await mailJobs(s, id)).toEqual(mailsBefore);
});

it("a renewal settled in euros on another of the merchant's accounts does not pay the period either", async () => {
  const subscriber = await trialSubscriber();
  await renewalHeldOn(subscriber, { accountName: 'EUR9', currency: 'EUR' });
  const statuses = answers(await s.everypay.releaseCallbacks()).map(([status]) => status as number);
  expect(statuses).toEqual([404]);
  expect(await subscriptionRow(s, subscriber.id)).toMatchObject({ status: 'TRIAL', period_number: 0 });
  expect((await chargesOf(s, subscriber.id)).map((row) => row.state)).toEqual(['pending']);
});
