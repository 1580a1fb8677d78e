import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localTime } from '../../src/infra/shop-time.js';
import { answers } from '../helpers/everypay-order.js';
import {
  callbackUrlOf,
  DAY,
  chargesOf,
  mailJobs,
  mailsReceivedBy,
  releaseHeldCallbacks,
  setMailLanguage,
  startMailingShop,
  subscriptionRow,
  type MailingShop,
} from './helpers.js';
import { declinedRenewal } from './late-settle-helpers.js';

// A renewal recorded failed (declined) whose payment the bank settled after all, that callback lost, and which the
// cardholder then disputed (a chargeback): the chargeback's callback found the charge failed, neither settled nor
// owed back, and retired no card, so the retry schedule charged the disputed card again.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(async () => {
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  await releaseHeldCallbacks(s);
});

describe('a failed charge settled unheard, then charged back', () => {
  it('retires the disputed card and tells the subscription, once', async () => {
    const { customer, id, end, reference } = await declinedRenewal(s);
    await setMailLanguage(s, customer, 'en');
    const charge = (await chargesOf(s, id)).at(-1)!;
    expect(Number((await subscriptionRow(s, id)).card_id)).toBeGreaterThan(0);
    const mailsBefore = await mailJobs(s, id);
    await s.t.drainJobs();
    const since = s.smtp.mails.length;

    s.everypay.setCallbackUrl(null);
    await s.everypay.settle(reference);
    s.everypay.setCallbackUrl(callbackUrlOf(s));
    const sent = await s.everypay.setState(reference, 'chargebacked', { times: 2 });
    expect(answers(sent).every(([status]) => status === 200)).toBe(true);

    // The money is back with the customer: nothing to refund, the charge stays failed.
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ id: charge.id, state: 'failed' });
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', card_id: null });
    expect(await mailJobs(s, id)).toEqual([...mailsBefore, 'cardRetired']);
    // Retrying: asked for a new card before the day of the next try, which charges it.
    const mails = await mailsReceivedBy(s, customer, since);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(`save a new card in your account before ${localTime(end + DAY).date}, when we try again`);
  });
});
