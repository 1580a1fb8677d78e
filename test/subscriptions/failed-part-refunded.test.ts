import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answers } from '../helpers/everypay-order.js';
import {
  callbackUrlOf,
  chargesOf,
  mailJobs,
  refundRequests,
  releaseHeldCallbacks,
  startMailingShop,
  subscriptionRow,
  type MailingShop,
} from './helpers.js';
import { declinedRenewal } from './late-settle-helpers.js';

// A renewal recorded failed (declined) whose payment the bank settled after all, the settled callback lost, and
// which an operator then refunded in part in EveryPay's portal: the part refund's callback found the charge finished
// and only recorded the part, so the shop kept the rest of a payment for a charge it thinks failed, and nobody was
// told. The rest is now owed back as for a late settle nothing waits for (refund_due, refunded by its job, mailed).

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(async () => {
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  await releaseHeldCallbacks(s);
});

describe('a failed charge settled unheard, then refunded in part', () => {
  it('has the rest refunded and its customer told, once', async () => {
    const { id, reference } = await declinedRenewal(s);
    const charge = (await chargesOf(s, id)).at(-1)!;
    const mailsBefore = await mailJobs(s, id);

    // The bank settles it after all; that callback never arrives.
    s.everypay.setCallbackUrl(null);
    await s.everypay.settle(reference);
    s.everypay.setCallbackUrl(callbackUrlOf(s));
    // An operator refunds a part in the portal; its callback comes, twice.
    expect(answers(await s.everypay.refund(reference, 300))).toEqual([[200, { outcome: 'applied' }]]);
    await s.everypay.notify(reference);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ id: charge.id, state: 'refund_due', refunded_cents: 300 });

    await s.t.drainJobs();
    await s.everypay.callbacksIdle();
    expect(refundRequests(s, reference).map((r) => (r.body as { amount: number }).amount)).toEqual([(charge.amount_cents - 300) / 100]);
    expect(s.everypay.payment(reference)!.standingCents).toBe(0);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ id: charge.id, state: 'refunded' });
    expect(await mailJobs(s, id)).toEqual([...mailsBefore, 'paymentRefunded']);
    // The renewal is retried as before: the money went back.
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', failed_attempts: 1 });
  });
});
