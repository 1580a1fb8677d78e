import { expect } from 'vitest';
import { answers } from '../helpers/everypay-order.js';
import {
  DAY,
  bill,
  call,
  chargesOf,
  createCustomer,
  endPeriodASecondAgo,
  saveCard,
  subscribe,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';

// The charges the late-settle tests start from: a renewal EveryPay declined, and one it then
// settled after the subscription was cancelled (refund_due, its refund queued).

/** A SHELF5 subscriber whose renewal EveryPay declined: FAILED, its retry a day on. */
export async function declinedRenewal(s: SubscriptionShop) {
  const customer = await createCustomer(s.t.database.db);
  await saveCard(s, customer);
  const token = s.everypay.cards().at(-1)!.token;
  s.everypay.setCardOutcome(token, 'settled');
  const sub = (await subscribe(s, customer, 'SHELF5')).json();
  expect(sub.status).toBe('ACTIVE');
  const id = sub.id as number;
  const end = await endPeriodASecondAgo(s, id);
  s.everypay.setCardOutcome(token, 'failed');
  await bill(s, end + 1000);
  await s.everypay.callbacksIdle();
  expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', failed_attempts: 1, next_attempt_at: end + DAY });
  const charge = (await chargesOf(s, id)).at(-1)!;
  expect(charge).toMatchObject({ period_number: 2, state: 'failed' });
  return { customer, id, end, reference: charge.reference!, token };
}

/** A FAILED renewal cancelled (ENDED), whose declined charge EveryPay then settles: refund_due, its refund queued. */
export async function settledForNothing(s: SubscriptionShop) {
  const renewal = await declinedRenewal(s);
  const cancelled = await call(s, renewal.customer, 'DELETE', `/subscription/${renewal.id}`);
  expect(cancelled.statusCode, cancelled.body).toBe(200);
  expect(answers(await s.everypay.settle(renewal.reference))).toEqual([[200, { outcome: 'applied' }]]);
  const charge = (await chargesOf(s, renewal.id)).at(-1)!;
  expect(charge.state).toBe('refund_due');
  return { ...renewal, chargeId: Number(charge.id) };
}

/** The refund jobs queued for a charge, oldest first. */
export const refundJobs = async (s: SubscriptionShop, chargeId: number) =>
  (await s.t.database.db.selectFrom('job').selectAll().where('type', '=', 'subscription.refund').orderBy('id').execute()).filter(
    (job) => (JSON.parse(job.payload) as { chargeId: number }).chargeId === chargeId,
  );
