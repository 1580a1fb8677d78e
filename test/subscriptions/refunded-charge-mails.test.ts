import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  activeShelfSubscriber,
  call,
  DAY,
  halfWayAudio1,
  bill,
  callbackUrlOf,
  chargesOf,
  mailMoney,
  mailsReceivedBy,
  MIT_PATH,
  paidSubscriber,
  releaseHeldCallbacks,
  resetGateway,
  setMailLanguage,
  subscribe,
  startMailingShop,
  subscriptionRow,
  type MailingShop,
} from './helpers.js';

// A renewal EveryPay took whose answer and callback were lost, and whose payment was then given back in
// EveryPay's portal (an operator's refund, a chargeback) before the shop heard of it: the charge fails and the
// renewal is retried (refunded-before-settled.test.ts). The customer was mailed the first decline's words: "We
// could not charge your saved card ... please check your card or save a new one", of a card that was charged
// and whose money came back. They are now told what happened: the payment was refunded, so it renewed
// nothing, and the card is charged again in the coming days. So is a first month told "being processed"
// (201 PENDING) whose payment was refunded so, and an upgrade told so (503): they were mailed that the bank
// declined the payment.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(() => resetGateway(s));

/** A renewal EveryPay settled whose answer and callback were lost, in `language`: the charge pending. */
async function lostRenewal(language: 'en' | 'et' | 'ru') {
  const subscriber = await activeShelfSubscriber(s);
  await setMailLanguage(s, subscriber.customer, language);
  const since = s.smtp.mails.length;
  await s.t.drainJobs();
  const due = Date.now() - 15 * 60_000;
  await s.t.database.db.updateTable('subscription').set({ period_end: due }).where('id', '=', subscriber.id).execute();
  s.everypay.setCallbackUrl(null);
  s.everypay.breakApi('lost-answer', 1, MIT_PATH);
  expect(await bill(s, due)).toMatchObject({ pending: 1 });
  s.everypay.breakApi(null);
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  const payment = s.everypay.paymentsFor(`SUB${subscriber.id}-2P1`)[0]!;
  const charge = (await chargesOf(s, subscriber.id)).at(-1)!;
  expect(charge.state).toBe('pending');
  return { ...subscriber, since: Math.max(since, s.smtp.mails.length), reference: payment.reference, amountCents: charge.amount_cents };
}

const SAYS = {
  en: { declined: 'We could not charge your saved card', refunded: 'was refunded to your card', retry: 'again in the coming days' },
  et: { declined: 'Me ei saanud teie salvestatud kaardilt', refunded: 'on kaardile tagastatud', retry: 'lähipäevil uuesti' },
  ru: { declined: 'Не удалось списать оплату', refunded: 'возвращён на карту', retry: 'в ближайшие дни' },
} as const;

describe('a renewal whose payment was refunded before it settled', () => {
  for (const language of ['en', 'et', 'ru'] as const) {
    it(`is mailed as refunded and to be tried again, not as a card that could not be charged (${language})`, async () => {
      const renewal = await lostRenewal(language);
      await s.everypay.refund(renewal.reference, renewal.amountCents);
      await s.everypay.callbacksIdle();
      expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', failed_attempts: 1 });

      const mails = await mailsReceivedBy(s, renewal.customer, renewal.since);
      expect(mails).toHaveLength(1);
      const text = mails[0]!.text ?? '';
      expect(text).not.toContain(SAYS[language].declined);
      expect(text).toContain(SAYS[language].refunded);
      expect(text).toContain(SAYS[language].retry);
      expect(text).toContain(mailMoney(renewal.amountCents, language));
      expect(mails[0]!.subject).toContain(mailMoney(renewal.amountCents, language));
    });
  }

  // Refunded in part, the charge fails and the rest goes back by the shop's refund, whose mail tells the whole
  // amount refunded: the charge's own mail is the decline's (to be tried again), not a second "your payment of
  // the whole amount was refunded".
  it('refunded in part: told to be tried again, and once that the whole amount was refunded', async () => {
    const renewal = await lostRenewal('en');
    await s.everypay.refund(renewal.reference, 100);
    await s.everypay.callbacksIdle();
    await bill(s, Date.now());
    await s.everypay.callbacksIdle();
    expect((await chargesOf(s, renewal.id)).at(-1)!.state).toBe('refunded');
    const mails = await mailsReceivedBy(s, renewal.customer, renewal.since);
    expect(mails[0]!.text).toContain(SAYS.en.retry);
    const whole = `Your payment of ${mailMoney(renewal.amountCents, 'en')}`;
    expect(mails.filter((mail) => (mail.text ?? '').includes(whole))).toHaveLength(1);
  });
});

describe('a first month told "being processed" whose payment was refunded before it settled', () => {
  it('is mailed as refunded, not as declined by the bank', async () => {
    const { customer, token } = await paidSubscriber(s);
    await setMailLanguage(s, customer, 'en');
    await s.t.drainJobs();
    const since = s.smtp.mails.length;
    s.everypay.setCardOutcome(token, 'settled', { processing: true });
    s.everypay.holdCallbacks();
    const started = await subscribe(s, customer, 'AUDIO1');
    expect(started.json()).toMatchObject({ status: 'PENDING' });
    const id = started.json().id as number;
    const [charge] = await chargesOf(s, id);
    await s.everypay.refund(charge!.reference!, charge!.amount_cents);
    await releaseHeldCallbacks(s);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ENDED' });

    const mails = await mailsReceivedBy(s, customer, since);
    expect(mails.map((mail) => mail.subject)).toEqual(['Your subscription Audio one did not start']);
    expect(mails[0]!.text).not.toContain('declined');
    expect(mails[0]!.text).toContain(
      `Your payment of ${mailMoney(charge!.amount_cents, 'en')} for the first month of Audio one was refunded to your card`,
    );
  });
});

describe('an upgrade told "being processed" whose payment was refunded before it settled', () => {
  it('is mailed as refunded, not as declined by the bank', async () => {
    const { customer, id, token } = await halfWayAudio1(s, 16 * DAY);
    await setMailLanguage(s, customer, 'en');
    await s.t.drainJobs();
    const since = s.smtp.mails.length;
    s.everypay.setCardOutcome(token, 'settled', { processing: true });
    s.everypay.holdCallbacks();
    const pending = await call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIOMAX });
    expect(pending.statusCode, pending.body).toBe(503);
    const charge = (await chargesOf(s, id)).at(-1)!;
    expect(charge).toMatchObject({ purpose: 'UPGRADE', state: 'pending' });
    await s.everypay.refund(charge.reference!, charge.amount_cents);
    await releaseHeldCallbacks(s);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', plan_id: s.plans.AUDIO1 });

    const mails = await mailsReceivedBy(s, customer, since);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).not.toContain('declined');
    expect(mails[0]!.text).toContain(`Your payment of ${mailMoney(charge.amount_cents, 'en')} for the upgrade to`);
    expect(mails[0]!.text).toContain('was refunded to your card');
  });
});
