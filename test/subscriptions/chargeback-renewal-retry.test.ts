import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localTime } from '../../src/infra/shop-time.js';
import { answers } from '../helpers/everypay-order.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import {
  DAY,
  activeShelfSubscriber,
  bill,
  call,
  callbackUrlOf,
  mailJobs,
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

// A renewal the cardholder's bank took back (a chargeback) before the shop heard it settled: the charge fails, the
// disputed card goes (billing.apply.ts) and the renewal is retried. The customer was mailed that the shop would not
// "charge it again", and a second mail about the card, while the retry charged their other saved card (also one
// expired, which dropSavedCard chose); and with no card left the retries failed without the billingFailed mail any
// other failed renewal sends, the first word being that the subscription had lapsed. Now one mail tells what happens:
// the other saved card (valid for the retry) is tried on the retry's day, or a new card is to be saved before it; the
// disputed card is never charged again; and a retry that fails then is mailed billingFailed, as any failed renewal.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(() => resetGateway(s));

type OtherCard = 'valid' | 'expired' | 'none';
const OTHER_LAST_FOUR = '4242';

/** The tokens EveryPay was asked to charge for the subscription (merchant-initiated), in order. */
const chargedTokens = (id: number) => mitPayments(s, id).map((request) => String((request.body as Record<string, unknown>).token));

/**
 * A SHELF5 subscriber whose renewal's answer and callback were lost, then charged back (the callback `times` at
 * once); `other`: a second saved card, valid or expired (not pruned yet), or none.
 */
async function renewalChargedBack(other: OtherCard, language: 'en' | 'et' | 'ru' = 'en', times: 1 | 2 = 1) {
  const subscriber = await activeShelfSubscriber(s);
  await setMailLanguage(s, subscriber.customer, language);
  let otherCard: { id: number; token: string } | null = null;
  if (other !== 'none') {
    const id = await saveCard(s, subscriber.customer);
    await s.everypay.callbacksIdle();
    otherCard = { id, token: s.everypay.cards().at(-1)!.token };
    await s.t.database.db
      .updateTable('subscription_card')
      .set({ last_four: OTHER_LAST_FOUR, ...(other === 'expired' ? { expiry_year: 2000 } : {}) })
      .where('id', '=', id)
      .execute();
  }
  const due = Date.now() - 15 * 60_000;
  await s.t.database.db.updateTable('subscription').set({ period_end: due }).where('id', '=', subscriber.id).execute();
  s.everypay.setCallbackUrl(null);
  s.everypay.breakApi('lost-answer', 1, MIT_PATH);
  expect(await bill(s, due)).toMatchObject({ pending: 1 });
  s.everypay.breakApi(null);
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  const payment = s.everypay.paymentsFor(`SUB${subscriber.id}-2P1`)[0]!;
  await s.t.drainJobs();
  const since = s.smtp.mails.length;
  // Twice: on PostgreSQL both held until each waits to write the charge (withTableHeld needs the two of them).
  const chargeBack = () => s.everypay.setState(payment.reference, 'chargebacked', { times });
  const sent = times === 2 ? await withTableHeld(s.t.database.db, 'subscription_charge', chargeBack) : await chargeBack();
  expect(answers(sent)).toEqual(Array(times).fill([200, { outcome: 'applied' }]));
  const retryAt = due + DAY;
  expect(await subscriptionRow(s, subscriber.id)).toMatchObject({ status: 'FAILED', failed_attempts: 1, next_attempt_at: retryAt });
  return { ...subscriber, otherCard, since, retryAt, retryOn: localTime(retryAt).date };
}

/** The retry, due now (its mails are queued at the run's time: due at once, as in a run on time). */
async function retryNow(id: number) {
  await s.t.database.db
    .updateTable('subscription')
    .set({ next_attempt_at: Date.now() - 1000 })
    .where('id', '=', id)
    .execute();
  await bill(s, Date.now());
  await s.everypay.callbacksIdle();
}

const shownCardOf = async (renewal: Awaited<ReturnType<typeof renewalChargedBack>>) => {
  const response = await call(s, renewal.customer, 'GET', '/subscription');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: number; cardId: number | null }[]).find((sub) => sub.id === renewal.id)!.cardId;
};

describe('a renewal charged back before the shop heard it settled', () => {
  it('with another saved card: one mail, once for the callback twice at once, naming that card and the retry day; the retry charges it', async () => {
    const renewal = await renewalChargedBack('valid', 'en', 2);
    expect(await shownCardOf(renewal)).toBe(renewal.otherCard!.id);
    const mails = await mailsReceivedBy(s, renewal.customer, renewal.since);
    expect(mails.map((mail) => mail.subject)).toEqual([expect.stringContaining('Your bank returned your payment')]);
    expect(mails[0]!.text).not.toContain('nor charge it again');
    expect(mails[0]!.text).toContain('no longer charge the card it was made with');
    expect(mails[0]!.text).toContain(`your saved card ending in ${OTHER_LAST_FOUR} on ${renewal.retryOn}`);
    expect((await mailJobs(s, renewal.id)).filter((kind) => kind !== 'purchased')).toEqual(['renewalChargedBack']);

    const before = chargedTokens(renewal.id).length;
    await retryNow(renewal.id);
    expect(chargedTokens(renewal.id).slice(before)).toEqual([renewal.otherCard!.token]);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
  });

  it('its mail sent only after the retry renewed with the other card: the chargeback and the card, not "nor charge it again"', async () => {
    const renewal = await renewalChargedBack('valid');
    // The mail job runs late (the worker down, the SMTP server failing): the retry comes first, and renews.
    await retryNow(renewal.id);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    const mails = await mailsReceivedBy(s, renewal.customer, renewal.since);
    expect(mails.map((mail) => mail.subject)).toEqual([expect.stringContaining('Your bank returned your payment')]);
    expect(mails[0]!.text).not.toContain('nor charge it again');
    expect(mails[0]!.text).toContain('no longer charge the card it was made with');
    expect(mails[0]!.text).not.toContain('not renewed yet');
  });

  it('the other saved card declines the retry: the billingFailed mail, as any failed renewal', async () => {
    const renewal = await renewalChargedBack('valid');
    s.everypay.setCardOutcome(renewal.otherCard!.token, 'failed');
    await s.t.drainJobs();
    const since = s.smtp.mails.length;
    await retryNow(renewal.id);
    expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', failed_attempts: 2 });
    const mails = await mailsReceivedBy(s, renewal.customer, since);
    expect(mails.map((mail) => mail.subject)).toEqual(['We could not renew your subscription Shelf of 5']);
  });

  it.each(['none', 'expired'] as const)(
    'no other card (%s): asked for a new card before the retry day; the retry charges no card and mails billingFailed',
    async (other) => {
      const renewal = await renewalChargedBack(other);
      expect(await shownCardOf(renewal)).toBeNull();
      const mails = await mailsReceivedBy(s, renewal.customer, renewal.since);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).not.toContain('nor charge it again');
      expect(mails[0]!.text).not.toContain('your saved card ending in');
      expect(mails[0]!.text).toContain(`save a new card in your account before ${renewal.retryOn}`);

      const before = chargedTokens(renewal.id).length;
      const since = s.smtp.mails.length;
      await retryNow(renewal.id);
      expect(chargedTokens(renewal.id).length).toBe(before);
      expect(await subscriptionRow(s, renewal.id)).toMatchObject({ status: 'FAILED', failed_attempts: 2 });
      const retried = await mailsReceivedBy(s, renewal.customer, since);
      expect(retried.map((mail) => mail.subject)).toEqual(['We could not renew your subscription Shelf of 5']);
    },
  );

  const SAYS = {
    et: { card: `salvestatud kaardilt, mille number lõpeb ${OTHER_LAST_FOUR}`, save: 'salvestage oma kontol uus kaart enne' },
    ru: { card: `с сохранённой карты, оканчивающейся на ${OTHER_LAST_FOUR}`, save: 'сохраните новую карту в своём аккаунте до' },
  } as const;
  it.each(['et', 'ru'] as const)('says the same in %s', async (language) => {
    const withCard = await renewalChargedBack('valid', language);
    const [told] = await mailsReceivedBy(s, withCard.customer, withCard.since);
    expect(told!.text).toContain(SAYS[language].card);
    expect(told!.text).toContain(withCard.retryOn);
    const without = await renewalChargedBack('none', language);
    const [asked] = await mailsReceivedBy(s, without.customer, without.since);
    expect(asked!.text).toContain(`${SAYS[language].save} ${without.retryOn}`);
  });
});
