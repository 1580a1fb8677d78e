import type { ParsedMail } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestCustomer } from '../helpers/customers.js';
import { answers } from '../helpers/everypay-order.js';
import {
  billStalePending,
  chargesOf,
  mailJobs,
  mailMoney,
  mailsReceivedBy,
  paidSubscriber,
  setMailLanguage,
  shownSubscription,
  subscribe,
  type MailingShop,
  releaseHeldCallbacks,
  startMailingShop,
} from './helpers.js';

// POST /subscription without a trial charges the first month at once. When EveryPay answers that charge
// while the card's bank is still deciding, the customer is answered 201 with the subscription PENDING. The
// bank's decision then comes by EveryPay's callback, or by the billing run's look-up of a charge left
// pending, and the customer hears it by mail (through the local SMTP server): the subscription started
// (its usual start mail), or declined: it did not start (and money the bank takes after all is refunded). The mail is queued in
// the transaction that finishes the charge, so it goes out once, whatever callbacks repeat or race the run.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());
afterEach(() => releaseHeldCallbacks(s));

/** The mails the customer received since the subscription was answered PENDING (not its user's trial on another account). */
const mailsTo = ({ customer, mailsBefore }: { customer: TestCustomer; mailsBefore: number }) => mailsReceivedBy(s, customer, mailsBefore);

/**
 * A customer (speaking `language`) whose first month of AUDIO1 EveryPay answered while the bank was still
 * deciding: 201 PENDING, the charge pending. The bank decides `outcome` at once, and EveryPay's callback
 * of it is held.
 */
async function pendingStart(outcome: 'settled' | 'failed', language: 'et' | 'en' | 'ru' = 'et') {
  const { customer, token } = await paidSubscriber(s);
  await setMailLanguage(s, customer, language);
  await s.t.drainJobs();
  const mailsBefore = s.smtp.mails.length;
  s.everypay.setCardOutcome(token, outcome, { processing: true });
  s.everypay.holdCallbacks();
  const started = await subscribe(s, customer, 'AUDIO1');
  expect(started.statusCode, started.body).toBe(201);
  expect(started.json()).toMatchObject({ status: 'PENDING', plan: { code: 'AUDIO1' } });
  const id = started.json().id as number;
  const [charge] = await chargesOf(s, id);
  expect(charge).toMatchObject({ purpose: 'PERIOD', period_number: 1, state: 'pending' });
  // Nothing is mailed while the first month is with the bank.
  expect(await mailJobs(s, id)).toEqual([]);
  return { customer, mailsBefore, id, reference: charge!.reference!, amount: Number(charge!.amount_cents) };
}

const STARTED = /on alanud$|has started$|(?<!не )началась$/;
const DECLINED = /ei alanud$|did not start$|не началась$/;
const about = (mails: ParsedMail[], subject: RegExp) => mails.filter((mail) => subject.test(mail.subject ?? ''));

describe('a first month answered "being processed" (201 PENDING) that the bank then decides', () => {
  it('declined, by the callback: ENDED, and one mail in Estonian that it did not start; the callback again mails nothing', async () => {
    const started = await pendingStart('failed');
    const { customer, id, reference, amount } = started;
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    expect(await shownSubscription(s, customer)).toMatchObject({ id, status: 'ENDED' });
    expect(answers(await s.everypay.notify(reference, { times: 2 }))).toEqual(Array(2).fill([200, { outcome: 'applied' }]));
    await billStalePending(s, id);
    const mails = await mailsTo(started);
    expect(about(mails, STARTED)).toEqual([]);
    expect(about(mails, DECLINED).map((mail) => mail.subject)).toEqual(['Teie tellimus Audio 1 ei alanud']);
    expect(about(mails, DECLINED)[0]!.text).toContain(
      `Teie pank lükkas tellimuse Audio 1 esimese kuu makse ${mailMoney(amount, 'et')} tagasi, nii et tellimus ei alanud.`,
    );
    expect(await mailJobs(s, id)).toEqual(['startDeclined']);
  });

  it('declined, then settled late after all: told that it did not start and that money taken anyway goes back, then that it went back; never that nothing was charged', async () => {
    const started = await pendingStart('failed', 'en');
    const { id, reference, amount } = started;
    await s.everypay.releaseCallbacks();
    const declined = await mailsTo(started);
    expect(answers(await s.everypay.settle(reference))).toEqual([[200, { outcome: 'applied' }]]);
    await s.t.drainJobs();
    await s.everypay.callbacksIdle();
    expect((await chargesOf(s, id)).map((charge) => charge.state)).toEqual(['refunded']);
    const mails = await mailsTo(started);
    const money = mailMoney(amount, 'en');
    expect(mails.map((mail) => mail.subject)).toEqual([
      'Your subscription Audio one did not start',
      `Your payment of ${money} was refunded`,
    ]);
    expect(declined.map((mail) => mail.subject)).toEqual(['Your subscription Audio one did not start']);
    expect(mails[0]!.text).toContain(
      `Your bank declined the payment of ${money} for the first month of Audio one, so your subscription did not start. Should your bank take the payment after all, we will refund it to your card.`,
    );
    expect(mails.map((mail) => mail.text).join('\n')).not.toMatch(/nothing was charged/);
    expect(mails[1]!.text).toContain(`Your payment of ${money} for the subscription Audio one was refunded to your card`);
    expect(await mailJobs(s, id)).toEqual(['startDeclined', 'paymentRefunded']);
  });

  it('declined, in English and Russian: the mail names the plan and the amount', async () => {
    for (const [language, subject, text] of [
      ['en', 'Your subscription Audio one did not start', 'Your bank declined the payment of {amount} for the first month of Audio one'],
      ['ru', 'Ваша подписка Аудио 1 не началась', 'Ваш банк отклонил платёж {amount} за первый месяц подписки Аудио 1'],
    ] as const) {
      const started = await pendingStart('failed', language);
      await s.everypay.releaseCallbacks();
      const mails = about(await mailsTo(started), DECLINED);
      expect(mails.map((mail) => mail.subject)).toEqual([subject]);
      expect(mails[0]!.text).toContain(text.replace('{amount}', mailMoney(started.amount, language)));
    }
  });

  it('settled, by the callback: ACTIVE, and the start mail once; the callback again mails nothing', async () => {
    const started = await pendingStart('settled', 'en');
    const { customer, id, reference } = started;
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    expect(await shownSubscription(s, customer)).toMatchObject({ id, status: 'ACTIVE' });
    expect(answers(await s.everypay.notify(reference, { times: 2 }))).toEqual(Array(2).fill([200, { outcome: 'applied' }]));
    const mails = await mailsTo(started);
    expect(about(mails, STARTED).map((mail) => mail.subject)).toEqual(['Your subscription Audio one has started']);
    expect(about(mails, DECLINED)).toEqual([]);
    expect(await mailJobs(s, id)).toEqual(['purchased']);
  });

  it("declined, found by the billing run's look-up before the callback: mailed once; the late callback changes nothing", async () => {
    const started = await pendingStart('failed', 'en');
    const { customer, id } = started;
    expect(await billStalePending(s, id)).toMatchObject({ reconciled: 1 });
    expect(await shownSubscription(s, customer)).toMatchObject({ id, status: 'ENDED' });
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    expect(about(await mailsTo(started), DECLINED)).toHaveLength(1);
    expect(await mailJobs(s, id)).toEqual(['startDeclined']);
  });

  it('answered with another amount (unproven, so still pending): 201 PENDING, and the decline that comes is mailed', async () => {
    const { customer, token } = await paidSubscriber(s);
    await s.t.drainJobs();
    s.everypay.setCardOutcome(token, 'failed', { processing: true });
    s.everypay.holdCallbacks();
    s.everypay.breakApi('other-amount', 1, '/api/v4/payments/mit');
    const started = await subscribe(s, customer, 'AUDIO1');
    expect(started.statusCode, started.body).toBe(201);
    expect(started.json()).toMatchObject({ status: 'PENDING' });
    const id = started.json().id as number;
    expect((await chargesOf(s, id)).map((charge) => charge.state)).toEqual(['pending']);
    expect(answers(await s.everypay.releaseCallbacks())).toEqual([[200, { outcome: 'applied' }]]);
    expect(await shownSubscription(s, customer)).toMatchObject({ id, status: 'ENDED' });
    expect(await mailJobs(s, id)).toEqual(['startDeclined']);
  });

  it('declined at once: the customer hears it from the 409, and no mail is sent', async () => {
    const { customer, token } = await paidSubscriber(s);
    s.everypay.setCardOutcome(token, 'failed');
    const started = await subscribe(s, customer, 'AUDIO1');
    expect(started.statusCode, started.body).toBe(409);
    await s.everypay.callbacksIdle();
    const { id, status } = await shownSubscription(s, customer);
    expect(status).toBe('ENDED');
    await s.t.drainJobs();
    expect(await mailJobs(s, id)).toEqual([]);
  });

  it.each(['settled', 'failed'] as const)('%s, the callback and the billing run at once: one mail', async (outcome) => {
    const started = await pendingStart(outcome);
    const { id } = started;
    const [sent] = await Promise.all([s.everypay.releaseCallbacks(), billStalePending(s, id)]);
    expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
    expect((await chargesOf(s, id)).map((charge) => charge.state)).toEqual([outcome]);
    const mails = await mailsTo(started);
    expect(about(mails, outcome === 'settled' ? STARTED : DECLINED)).toHaveLength(1);
    expect(about(mails, outcome === 'settled' ? DECLINED : STARTED)).toEqual([]);
    expect(await mailJobs(s, id)).toEqual([outcome === 'settled' ? 'purchased' : 'startDeclined']);
  });
});
