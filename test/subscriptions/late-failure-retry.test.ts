import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { localTime } from '../../src/infra/shop-time.js';
import { answers } from '../helpers/everypay-order.js';
import {
  DAY,
  activeShelfSubscriber,
  bill,
  callbackUrlOf,
  chargesOf,
  mailsReceivedBy,
  mitPayments,
  MIT_PATH,
  resetGateway,
  saveCard,
  setMailLanguage,
  startMailingShop,
  subscriptionRow,
  type MailingShop,
} from './helpers.js';

// A renewal's failure the shop learns late: a chargeback (weeks after the payment, as they come), a refund made in
// EveryPay's portal, or a callback saying failed that comes days late, of a charge whose answer was lost. Its retries
// were counted from the period's end, so they were all due already: the mail named a retry day already past ("we
// will try on <a day gone>", "save a new card before <a day gone>"), and the next hourly runs made every retry at
// once, lapsing the subscription before the customer could save a card. A failure learned after its next retry's
// time now counts the rest from when it was learned, at the normal intervals (1, 2 and 4 days apart). So does one
// learned more than an hour late but before that (a chargeback 23 hours on): kept on schedule, its retry came an hour
// later and the mail said to save a card "before" it. One told within the hour (a decline, the gateway's latency)
// keeps the schedule from the period's end.

const clock = fixedClock(Date.now());
let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop({}, { clock });
});
afterAll(() => s.close());
afterEach(() => resetGateway(s));

const OTHER_LAST_FOUR = '4242';
/** Weeks after the period ended: a chargeback's usual delay. */
const LATE = 20 * DAY;
/** How long before the test's start its renewal was due: what it does after fits before that start. */
const PAST = LATE + 20 * DAY;

const dayOf = (ms: number) => localTime(ms).date;

/**
 * A SHELF5 subscriber whose renewal was charged (EveryPay `outcome`: the payment settled or declined there) but
 * whose answer and callback were lost: the charge is pending. `otherCard`: a second saved card, valid.
 */
async function unheardRenewal(outcome: 'settled' | 'failed', otherCard = false, middayUtc = false) {
  clock.set(Date.now());
  const subscriber = await activeShelfSubscriber(s);
  await setMailLanguage(s, subscriber.customer, 'en');
  if (otherCard) {
    const id = await saveCard(s, subscriber.customer);
    await s.everypay.callbacksIdle();
    await s.t.database.db.updateTable('subscription_card').set({ last_four: OTHER_LAST_FOUR }).where('id', '=', id).execute();
  }
  s.everypay.setCardOutcome(subscriber.token, outcome);
  // In the past, so that what follows happens at times the job worker (on the system's clock) runs the mails of.
  // `middayUtc`: due at 12:00 UTC, so that a day after it and a day after 23 hours later are different days in the shop.
  const due = middayUtc ? Math.floor((clock.now() - PAST) / DAY) * DAY + DAY / 2 : clock.now() - PAST;
  clock.set(due);
  await s.t.database.db
    .updateTable('subscription')
    .set({ period_start: due - 30 * DAY, period_end: due })
    .where('id', '=', subscriber.id)
    .execute();
  s.everypay.setCallbackUrl(null);
  s.everypay.breakApi('lost-answer', 1, MIT_PATH);
  expect(await bill(s, due)).toMatchObject({ pending: 1 });
  s.everypay.breakApi(null);
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  await s.t.drainJobs();
  const payment = s.everypay.paymentsFor(`SUB${subscriber.id}-2P1`)[0]!;
  return { ...subscriber, due, payment };
}

/** The billing run at `now`, the clock there too (its mails are queued then, and sent). */
async function billAt(now: number) {
  clock.set(now);
  await bill(s, now);
  await s.everypay.callbacksIdle();
}

describe('a renewal failure the shop learns after its first retry was due', () => {
  it('a chargeback 20 days on: the retry a day after it, the mail names that day, and the retries and the lapse follow from it', async () => {
    const renewal = await unheardRenewal('settled');
    const learnedAt = renewal.due + LATE;
    clock.set(learnedAt);
    const since = s.smtp.mails.length;
    expect(answers(await s.everypay.setState(renewal.payment.reference, 'chargebacked'))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({
      status: 'FAILED',
      failed_attempts: 1,
      next_attempt_at: learnedAt + DAY,
    });
    const mails = await mailsReceivedBy(s, renewal.customer, since);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(`save a new card in your account before ${dayOf(learnedAt + DAY)}`);
    expect(mails[0]!.text).not.toContain(dayOf(renewal.due + DAY));

    // The run right after charges nothing: the retry is a day away, not due since the period's end.
    const charges = (await chargesOf(s, renewal.id)).length;
    await billAt(learnedAt + 60_000);
    expect(await chargesOf(s, renewal.id)).toHaveLength(charges);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', failed_attempts: 1 });

    // No card left (the chargeback retired it): each retry fails on its day, 1, 3 and 7 days after the chargeback.
    await billAt(learnedAt + DAY);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({
      status: 'FAILED',
      failed_attempts: 2,
      next_attempt_at: learnedAt + 3 * DAY,
    });
    await billAt(learnedAt + 3 * DAY);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({
      status: 'FAILED',
      failed_attempts: 3,
      next_attempt_at: learnedAt + 7 * DAY,
    });
    await billAt(learnedAt + 7 * DAY - 60_000);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', failed_attempts: 3 });
    await billAt(learnedAt + 7 * DAY);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'LAPSED', failed_attempts: 4, ended_at: learnedAt + 7 * DAY });
  });

  it('a chargeback 20 days on, another saved card: the mail names that card and the real retry day', async () => {
    const renewal = await unheardRenewal('settled', true);
    const learnedAt = renewal.due + LATE;
    clock.set(learnedAt);
    const since = s.smtp.mails.length;
    expect(answers(await s.everypay.setState(renewal.payment.reference, 'chargebacked'))).toEqual([[200, { outcome: 'applied' }]]);
    const [mail] = await mailsReceivedBy(s, renewal.customer, since);
    expect(mail!.text).toContain(`your saved card ending in ${OTHER_LAST_FOUR} on ${dayOf(learnedAt + DAY)}`);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', next_attempt_at: learnedAt + DAY });
  });

  it('a refund in the portal learned 20 days on: the retry a day after it', async () => {
    const renewal = await unheardRenewal('settled');
    const learnedAt = renewal.due + LATE;
    clock.set(learnedAt);
    const since = s.smtp.mails.length;
    expect(answers(await s.everypay.refund(renewal.payment.reference, renewal.payment.initialCents))).toEqual([
      [200, { outcome: 'applied' }],
    ]);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', failed_attempts: 1, next_attempt_at: learnedAt + DAY });
    const mails = await mailsReceivedBy(s, renewal.customer, since);
    expect(mails.map((mail) => mail.subject)).toEqual([expect.stringContaining('was refunded')]);
  });

  it('a decline whose callback comes 5 days late: the retry a day after it, not at once', async () => {
    const renewal = await unheardRenewal('failed');
    const learnedAt = renewal.due + 5 * DAY;
    clock.set(learnedAt);
    expect(answers(await s.everypay.notify(renewal.payment.reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', failed_attempts: 1, next_attempt_at: learnedAt + DAY });
    const before = mitPayments(s, renewal.id).length;
    await billAt(learnedAt + 60_000);
    expect(mitPayments(s, renewal.id)).toHaveLength(before);
  });

  it("a retry's decline learned 10 days late: the next retry as long after it as after a retry on time (2 days), then 4", async () => {
    const renewal = await unheardRenewal('failed');
    clock.set(renewal.due + 60_000);
    expect(answers(await s.everypay.notify(renewal.payment.reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ failed_attempts: 1, next_attempt_at: renewal.due + DAY });
    // The retry, on its day: its answer and callback lost too.
    s.everypay.setCallbackUrl(null);
    s.everypay.breakApi('lost-answer', 1, MIT_PATH);
    await billAt(renewal.due + DAY);
    s.everypay.breakApi(null);
    s.everypay.setCallbackUrl(callbackUrlOf(s));
    const retry = s.everypay.paymentsFor(`SUB${renewal.id}-2P2`)[0]!;
    const learnedAt = renewal.due + 10 * DAY;
    clock.set(learnedAt);
    expect(answers(await s.everypay.notify(retry.reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ failed_attempts: 2, next_attempt_at: learnedAt + 2 * DAY });
    await billAt(learnedAt + 2 * DAY);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ failed_attempts: 3, next_attempt_at: learnedAt + 6 * DAY });
  });
});

describe('a renewal failure the shop learns late, before its first retry was due', () => {
  it('a chargeback 23 hours on: the retry a full day after it (not an hour later), and the mail names that day', async () => {
    const renewal = await unheardRenewal('settled', false, true);
    const learnedAt = renewal.due + 23 * 60 * 60_000;
    clock.set(learnedAt);
    const since = s.smtp.mails.length;
    expect(answers(await s.everypay.setState(renewal.payment.reference, 'chargebacked'))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', failed_attempts: 1, next_attempt_at: learnedAt + DAY });
    const mails = await mailsReceivedBy(s, renewal.customer, since);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(`save a new card in your account before ${dayOf(learnedAt + DAY)}`);
    expect(dayOf(renewal.due + DAY)).not.toBe(dayOf(learnedAt + DAY));
    expect(mails[0]!.text).not.toContain(dayOf(renewal.due + DAY));

    // The run an hour on, when the retry on time was due, charges nothing.
    const charges = (await chargesOf(s, renewal.id)).length;
    await billAt(renewal.due + DAY);
    expect(await chargesOf(s, renewal.id)).toHaveLength(charges);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', failed_attempts: 1, next_attempt_at: learnedAt + DAY });
  });

  it('a decline told 30 minutes late (within the hour): the schedule from the period’s end, to the millisecond', async () => {
    const renewal = await unheardRenewal('failed');
    clock.set(renewal.due + 30 * 60_000);
    expect(answers(await s.everypay.notify(renewal.payment.reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({
      status: 'FAILED',
      failed_attempts: 1,
      next_attempt_at: renewal.due + DAY,
    });
  });
});
