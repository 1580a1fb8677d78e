import type { ParsedMail } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importLines } from '../basket/import-helpers.js';
import type { TestCustomer } from '../helpers/customers.js';
import { answers } from '../helpers/everypay-order.js';
import { failCommitsOfUpdate } from '../helpers/failing-commit.js';
import { expectErrorBody } from '../helpers/http.js';
import {
  DAY,
  PLAN_LINES,
  billStalePending,
  call,
  chargesOf,
  mailJobs,
  halfWayAudio1,
  mailMoney,
  mailsReceivedBy,
  setMailLanguage,
  shownSubscription,
  upgradeCharges,
  type MailingShop,
  releaseHeldCallbacks,
  startMailingShop,
} from './helpers.js';

// PUT /subscription/{id}/plan to a dearer plan charges the days left. When EveryPay answers that charge
// while the card's bank is still deciding, the customer is told 503 subscriptions.paymentPending ("the
// payment is still being processed"). The bank's decision then comes by EveryPay's callback, or by the
// billing run's look-up of a charge left pending, and the customer hears it by mail (through the local
// SMTP server): the upgrade active, or declined with the plan unchanged. The mail is queued in the
// transaction that finishes the charge, so it goes out once, whatever callbacks repeat or race the run.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
  // Both audio plans titled in every language, so each mail names them in the subscriber's.
  const one = { ...PLAN_LINES[0], titles: { et: 'Audio 1', en: 'Audio one', ru: 'Аудио 1' } };
  const max = { ...PLAN_LINES[1], titles: { et: 'Audio piiramatu', en: 'Audio unlimited', ru: 'Аудио без ограничений' } };
  const imported = await importLines(s.t, 'subscription-plans', [one, max, ...PLAN_LINES.slice(2)]);
  expect(imported.statusCode, imported.body).toBe(200);
});
afterAll(() => s.close());
afterEach(() => releaseHeldCallbacks(s));

/** The billing run, now, with the subscription's pending charge made old enough for its look-up. */
const billLeftPending = (id: number) => billStalePending(s, id);

const shown = (customer: TestCustomer) => shownSubscription(s, customer);

const upgrades = (id: number) => upgradeCharges(s, id);

/** The mails the SMTP server received for the customer, after the worker sent what was queued. */
const mailsTo = (customer: TestCustomer) => mailsReceivedBy(s, customer);

/**
 * A paid AUDIO1 subscription half-way through its period (a second client account of a user who had
 * the trial, speaking `language`) whose upgrade to AUDIOMAX EveryPay answered while the bank was still
 * deciding: 503 paymentPending, still AUDIO1, the charge pending. The bank decides `outcome` at once,
 * and EveryPay's callback of it is held.
 */
async function pendingUpgrade(outcome: 'settled' | 'failed', language: 'et' | 'en' | 'ru' = 'et') {
  const { customer, id, token } = await halfWayAudio1(s, 16 * DAY);
  await setMailLanguage(s, customer, language);
  s.everypay.setCardOutcome(token, outcome, { processing: true });
  s.everypay.holdCallbacks();
  const pending = await call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIOMAX });
  // In the request's language (Estonian), not the subscriber's.
  expect(expectErrorBody(pending, 503, 'Service Unavailable').message).toBe(
    'Makse on veel töös; uus pakett hakkab kehtima, kui makse on kinnitatud, ja tulemusest saadame teile e-kirja.',
  );
  expect(await shown(customer)).toMatchObject({ status: 'ACTIVE', plan: { code: 'AUDIO1' } });
  const charge = (await chargesOf(s, id)).at(-1)!;
  expect(charge).toMatchObject({ purpose: 'UPGRADE', state: 'pending' });
  // Nothing about the upgrade is mailed while it is pending: only the subscription's start.
  expect(await mailJobs(s, id)).toEqual(['purchased']);
  return { customer, id, reference: charge.reference!, amount: Number(charge.amount_cents) };
}

const APPLIED = /on nüüd jõus$|is now active$|(?<!не) выполнен$/;
const DECLINED = /ei õnnestunud$|did not go through$|не выполнен$/;
const about = (mails: ParsedMail[], subject: RegExp) => mails.filter((mail) => subject.test(mail.subject ?? ''));

describe('an upgrade answered "being processed" (503) that the bank then decides', () => {
  it('settled, by the callback: the better plan, and one mail in Estonian naming it and the amount; the callback again mails nothing', async () => {
    const { customer, id, reference, amount } = await pendingUpgrade('settled');
    // Another change meanwhile waits for this one's payment: the plan it would start from is not known yet.
    const again = await call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIO1 });
    expect(expectErrorBody(again, 409, 'Conflict').message).toBe(
      'Selle tellimuse makse on veel töös; proovige uuesti, kui see on kinnitatud.',
    );
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    expect(await shown(customer)).toMatchObject({ id, status: 'ACTIVE', plan: { code: 'AUDIOMAX' } });
    expect(await upgrades(id)).toEqual([[1, 'settled']]);
    for (let i = 0; i < 2; i++) expect(answers(await s.everypay.notify(reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(answers(await s.everypay.notify(reference, { times: 2 }))).toEqual(Array(2).fill([200, { outcome: 'applied' }]));
    await billLeftPending(id);
    const mails = await mailsTo(customer);
    expect(about(mails, DECLINED)).toEqual([]);
    expect(about(mails, APPLIED).map((mail) => mail.subject)).toEqual(['Üleminek paketile Audio piiramatu on nüüd jõus']);
    const [applied] = about(mails, APPLIED);
    expect(applied!.text).toContain(`Teie pank kinnitas paketile Audio piiramatu ülemineku makse ${mailMoney(amount, 'et')}`);
    // Confirmed, not "approved after all": it was never said to be declined.
    expect(applied!.text).not.toContain('siiski');
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeConfirmed']);
  });

  it('declined, by the callback: the plan unchanged, and one mail in English that the upgrade did not go through', async () => {
    const { customer, id, reference, amount } = await pendingUpgrade('failed', 'en');
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    expect(await shown(customer)).toMatchObject({ id, status: 'ACTIVE', plan: { code: 'AUDIO1' } });
    expect(await upgrades(id)).toEqual([[1, 'failed']]);
    expect(answers(await s.everypay.notify(reference, { times: 2 }))).toEqual(Array(2).fill([200, { outcome: 'applied' }]));
    await billLeftPending(id);
    const mails = await mailsTo(customer);
    expect(about(mails, APPLIED)).toEqual([]);
    expect(about(mails, DECLINED).map((mail) => mail.subject)).toEqual(['Your upgrade to Audio unlimited did not go through']);
    const [declined] = about(mails, DECLINED);
    expect(declined!.text).toContain(
      `Your bank declined the payment of ${mailMoney(amount, 'en')} for the upgrade to Audio unlimited, so the upgrade did not go through`,
    );
    expect(declined!.text).toContain('Your subscription stays Audio one.');
    // The bank may still take the payment (a late settle: the upgrade made, or the money refunded), so no "nothing was charged".
    expect(declined!.text).toContain('Should your bank take the payment after all, we will e-mail you');
    expect(declined!.text).not.toContain('nothing was charged');
    expect(declined!.html).toContain('Audio one');
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeDeclined']);
  });

  it('declined, in Russian: the mail names the plan kept', async () => {
    const { customer, id, amount } = await pendingUpgrade('failed', 'ru');
    await s.everypay.releaseCallbacks();
    const mails = about(await mailsTo(customer), DECLINED);
    expect(mails.map((mail) => mail.subject)).toEqual(['Переход на тариф Аудио без ограничений не выполнен']);
    expect(mails[0]!.text).toContain(`Ваш банк отклонил платёж ${mailMoney(amount, 'ru')} за переход на тариф Аудио без ограничений`);
    expect(mails[0]!.text).toContain('Ваша подписка остаётся прежней: Аудио 1.');
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeDeclined']);
  });

  it("settled, found by the billing run's look-up before the callback: applied and mailed once; the late callback changes nothing", async () => {
    const { customer, id } = await pendingUpgrade('settled', 'en');
    expect(await billLeftPending(id)).toMatchObject({ reconciled: 1 });
    expect(await shown(customer)).toMatchObject({ plan: { code: 'AUDIOMAX' } });
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    const mails = await mailsTo(customer);
    expect(about(mails, APPLIED).map((mail) => mail.subject)).toEqual(['Your upgrade to Audio unlimited is now active']);
    expect(about(mails, DECLINED)).toEqual([]);
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeConfirmed']);
  });

  it.each(['settled', 'failed'] as const)('%s, the callback and the billing run at once: one mail', async (outcome) => {
    const { customer, id } = await pendingUpgrade(outcome);
    const [sent] = await Promise.all([s.everypay.releaseCallbacks(), billLeftPending(id)]);
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    expect(await upgrades(id)).toEqual([[1, outcome]]);
    const mails = await mailsTo(customer);
    expect(about(mails, outcome === 'settled' ? APPLIED : DECLINED)).toHaveLength(1);
    expect(about(mails, outcome === 'settled' ? DECLINED : APPLIED)).toEqual([]);
    expect(await mailJobs(s, id)).toEqual(['purchased', outcome === 'settled' ? 'upgradeConfirmed' : 'upgradeDeclined']);
  });

  it('settled, its transaction failing at COMMIT: nothing applied and nothing mailed; the callback again applies and mails once', async () => {
    const { customer, id, reference } = await pendingUpgrade('settled');
    const repair = await failCommitsOfUpdate(s.t.database, 'subscription', 'plan_id', id);
    let sent;
    try {
      sent = await s.everypay.releaseCallbacks();
      await s.everypay.callbacksIdle();
    } finally {
      await repair();
    }
    expect(sent.map((callback) => callback.status)).not.toContain(200);
    expect(await upgrades(id)).toEqual([[1, 'pending']]);
    expect(await mailJobs(s, id)).toEqual(['purchased']);
    expect(answers(await s.everypay.notify(reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await upgrades(id)).toEqual([[1, 'settled']]);
    expect(about(await mailsTo(customer), APPLIED)).toHaveLength(1);
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeConfirmed']);
  });

  it('answered with another amount (unproven, so still pending): 503 as pending, not 200 on the old plan, and the outcome mailed', async () => {
    const { customer, id, token } = await halfWayAudio1(s, 16 * DAY);
    s.everypay.setCardOutcome(token, 'settled', { processing: true });
    s.everypay.holdCallbacks();
    s.everypay.breakApi('other-amount', 1, '/api/v4/payments/mit');
    const changed = await call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIOMAX });
    expectErrorBody(changed, 503, 'Service Unavailable');
    expect(await upgrades(id)).toEqual([[1, 'pending']]);
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    expect(await shown(customer)).toMatchObject({ id, status: 'ACTIVE', plan: { code: 'AUDIOMAX' } });
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeConfirmed']);
  });
});
