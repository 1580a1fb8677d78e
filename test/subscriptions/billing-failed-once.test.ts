import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  activeShelfSubscriber,
  bill,
  callbackUrlOf,
  chargesOf,
  mailJobs,
  MIT_PATH,
  resetGateway,
  startMailingShop,
  subscriptionRow,
  type MailingShop,
} from './helpers.js';
import { declinedRenewal } from './late-settle-helpers.js';

// billingFailed is mailed at a renewal period's first decline (billing.apply.ts), also after attempts whose payment
// was given back before it settled (renewalRefunded, renewalChargedBack), so once a period. A declined attempt (mailed
// billingFailed) whose payment the bank settled unheard, then refunded in the portal or charged back, is failed and
// refunded whole like those: counted as one of them, the next decline mailed billingFailed a second time.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(() => resetGateway(s));

/** The subscription's retry, due now. */
async function retryNow(id: number) {
  await s.t.database.db
    .updateTable('subscription')
    .set({ next_attempt_at: Date.now() - 1000 })
    .where('id', '=', id)
    .execute();
  await bill(s, Date.now());
  await s.everypay.callbacksIdle();
}

/** The declined renewal's payment settled by the bank after all, that callback lost. */
async function settledUnheard(reference: string) {
  s.everypay.setCallbackUrl(null);
  await s.everypay.settle(reference);
  s.everypay.setCallbackUrl(callbackUrlOf(s));
}

const mailsOf = async (id: number) => (await mailJobs(s, id)).filter((kind) => kind !== 'purchased');

describe('billingFailed, once a period', () => {
  it('declined, settled unheard and refunded in the portal, then declined again: mailed at the first decline only', async () => {
    const { id, reference } = await declinedRenewal(s);
    const charge = (await chargesOf(s, id)).at(-1)!;
    await settledUnheard(reference);
    await s.everypay.refund(reference, charge.amount_cents);
    await s.everypay.callbacksIdle();
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'failed', refunded_cents: charge.amount_cents });

    await retryNow(id);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', failed_attempts: 2 });
    expect(await mailsOf(id)).toEqual(['billingFailed']);
  });

  it('declined, settled unheard and charged back, then the retry finds no card: mailed at the first decline only', async () => {
    const { id, reference } = await declinedRenewal(s);
    await settledUnheard(reference);
    await s.everypay.setState(reference, 'chargebacked');
    await s.everypay.callbacksIdle();

    await retryNow(id);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', failed_attempts: 2 });
    expect(await mailsOf(id)).toEqual(['billingFailed', 'cardRetired']);
  });

  it('refunded in the portal before it settled, then declined twice: mailed at the first decline only', async () => {
    const subscriber = await activeShelfSubscriber(s);
    const due = Date.now() - 15 * 60_000;
    await s.t.database.db.updateTable('subscription').set({ period_end: due }).where('id', '=', subscriber.id).execute();
    s.everypay.setCallbackUrl(null);
    s.everypay.breakApi('lost-answer', 1, MIT_PATH);
    expect(await bill(s, due)).toMatchObject({ pending: 1 });
    s.everypay.breakApi(null);
    s.everypay.setCallbackUrl(callbackUrlOf(s));
    const charge = (await chargesOf(s, subscriber.id)).at(-1)!;
    await s.everypay.refund(s.everypay.paymentsFor(charge.order_reference)[0]!.reference, charge.amount_cents);
    await s.everypay.callbacksIdle();

    s.everypay.setCardOutcome(subscriber.token, 'failed');
    await retryNow(subscriber.id);
    await retryNow(subscriber.id);
    expect(await subscriptionRow(s, subscriber.id)).toMatchObject({ status: 'FAILED', failed_attempts: 3 });
    expect(await mailsOf(subscriber.id)).toEqual(['renewalRefunded', 'billingFailed']);
  });
});
