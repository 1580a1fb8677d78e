import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  activeShelfSubscriber,
  bill,
  callbackUrlOf,
  chargesOf,
  DAY,
  mailJobs,
  MIT_PATH,
  refundRequests,
  startSubscriptionShop,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';

// A renewal EveryPay took whose answer and callback were lost (the charge pending), and whose payment an
// operator (or the issuer: a chargeback) then gave back in EveryPay's portal before the shop heard of it: the
// first word the shop gets is "refunded". That was read as paid (outcomeOf took refunded for settled): the
// period started for money that had gone back, and the customer had a month for nothing. A payment given
// back before it settled the charge is no payment: the charge fails as a declined one does (the retry
// schedule), and what the gateway still holds of a payment refunded in part is refunded.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(() => s.close());
afterEach(() => {
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  s.everypay.breakApi(null);
});

/** A renewal EveryPay settled whose answer and callback were lost: the charge pending; the callback URL back. */
async function lostRenewal() {
  const subscriber = await activeShelfSubscriber(s);
  const due = Date.now() - 15 * 60_000;
  await s.t.database.db.updateTable('subscription').set({ period_end: due }).where('id', '=', subscriber.id).execute();
  s.everypay.setCallbackUrl(null);
  s.everypay.breakApi('lost-answer', 1, MIT_PATH);
  expect(await bill(s, due)).toMatchObject({ pending: 1 });
  s.everypay.breakApi(null);
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  const payment = s.everypay.paymentsFor(`SUB${subscriber.id}-2P1`)[0]!;
  expect(payment.state).toBe('settled');
  const charge = (await chargesOf(s, subscriber.id)).at(-1)!;
  expect(charge.state).toBe('pending');
  return { ...subscriber, due, reference: payment.reference, amountCents: charge.amount_cents };
}

describe('a pending charge whose first status is refunded', () => {
  it('refunded whole in the portal: the charge fails, the renewal is retried, no period starts', async () => {
    const renewal = await lostRenewal();
    await s.everypay.refund(renewal.reference, renewal.amountCents);
    await s.everypay.callbacksIdle();

    expect((await chargesOf(s, renewal.id)).at(-1)).toMatchObject({ period_number: 2, state: 'failed' });
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({
      status: 'FAILED',
      period_number: 1,
      failed_attempts: 1,
      next_attempt_at: renewal.due + DAY,
    });
    expect(await mailJobs(s, renewal.id)).toContain('renewalRefunded');
    // Nothing is left to give back: no refund is sent.
    await bill(s, Date.now());
    expect(refundRequests(s, renewal.reference)).toHaveLength(0);
  });

  it('refunded in part: the charge fails and the rest of the payment is refunded', async () => {
    const renewal = await lostRenewal();
    await s.everypay.refund(renewal.reference, 100);
    await s.everypay.callbacksIdle();

    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', period_number: 1, failed_attempts: 1 });
    await bill(s, Date.now());
    await s.everypay.callbacksIdle();
    expect(s.everypay.payment(renewal.reference)!.standingCents).toBe(0);
    expect(refundRequests(s, renewal.reference).map((r) => (r.body as { amount: number }).amount)).toEqual([
      (renewal.amountCents - 100) / 100,
    ]);
    expect((await chargesOf(s, renewal.id)).at(-1)!.state).toBe('refunded');
  });
});
