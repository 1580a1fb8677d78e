import type { ParsedMail } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recipientsOf } from '../back-in-stock/helpers.js';
import { importLines } from '../basket/import-helpers.js';
import type { TestCustomer } from '../helpers/customers.js';
import { answers } from '../helpers/everypay-order.js';
import { failCommitsOfUpdate } from '../helpers/failing-commit.js';
import { expectErrorBody } from '../helpers/http.js';
import { sample, scrape } from '../metrics/metrics-text.js';
import {
  DAY,
  PLAN_LINES,
  bill,
  call,
  chargesOf,
  mailJobs,
  subscriptionRow,
  halfWayAudio1,
  loginEmailOf,
  mailMoney,
  setMailLanguage,
  shownSubscription,
  upgradeCharges,
  type MailingShop,
  refundRequests,
  releaseHeldCallbacks,
  startMailingShop,
} from './helpers.js';

// PUT /subscription/{id}/plan to a dearer plan charges the days left; EveryPay declined that charge
// (the customer was told 409 subscriptions.paymentDeclined), and the card's bank then approves it
// after all: EveryPay settles it and calls back. The customer paid for the upgrade, so while they
// still wait for it (the subscription live in that period, on the plan the upgrade started from, no
// upgrade tried again and no other plan chosen since) the upgrade is applied. Otherwise the money
// goes back at once, through the refund job. Either happens once, whatever callbacks repeat, and
// the customer, told the upgrade was declined, gets one mail (through the local SMTP server) of
// what became of it: the upgrade active, or the payment refunded once it was.

const METRICS_TOKEN = 'late-upgrade-metrics-0123456789abcdef';
let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop({ METRICS_TOKEN });
  // A cheaper audio plan, for a downgrade chosen after the declined upgrade; the upgrade's plan titled in every language.
  const cheaper = { ...PLAN_LINES[0], code: 'AUDIO0', titles: { et: 'Audio 0' }, monthlyPrice: 4.99, position: 9 };
  const max = { ...PLAN_LINES[1], titles: { et: 'Audio piiramatu', en: 'Audio unlimited', ru: 'Аудио без ограничений' } };
  const imported = await importLines(s.t, 'subscription-plans', [PLAN_LINES[0], max, ...PLAN_LINES.slice(2), cheaper]);
  expect(imported.statusCode, imported.body).toBe(200);
  const row = await s.t.database.db.selectFrom('subscription_plan').select('id').where('code', '=', 'AUDIO0').executeTakeFirstOrThrow();
  s.plans.AUDIO0 = Number(row.id);
});
afterAll(() => s.close());
afterEach(() => releaseHeldCallbacks(s));

const refundsOf = (reference: string) => refundRequests(s, reference);

const changePlan = (customer: TestCustomer, id: number, code: string) =>
  call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans[code] });

const shown = (customer: TestCustomer) => shownSubscription(s, customer);

const upgrades = (id: number) => upgradeCharges(s, id);

/**
 * A paid AUDIO1 subscription half-way through its period (a second client account of a user who had
 * the trial) whose upgrade to AUDIOMAX EveryPay declined: 409, still AUDIO1, the upgrade's charge failed.
 */
async function declinedUpgrade() {
  const { customer, id, token } = await halfWayAudio1(s, 16 * DAY - 3_600_000);
  s.everypay.setCardOutcome(token, 'failed');
  const declined = await changePlan(customer, id, 'AUDIOMAX');
  expect(expectErrorBody(declined, 409, 'Conflict').message).toBe('Kaardimakse lükati tagasi.');
  await s.everypay.callbacksIdle();
  expect(await shown(customer)).toMatchObject({ status: 'ACTIVE', plan: { code: 'AUDIO1' } });
  const charge = (await chargesOf(s, id)).at(-1)!;
  expect(charge).toMatchObject({ purpose: 'UPGRADE', attempt: 1, state: 'failed', from_plan_id: s.plans.AUDIO1 });
  return { customer, id, token, reference: charge.reference!, chargeId: Number(charge.id) };
}

type Declined = Awaited<ReturnType<typeof declinedUpgrade>>;

const emailOf = (customer: TestCustomer) => loginEmailOf(s, customer);

const setLanguage = (customer: TestCustomer, language: 'et' | 'en' | 'ru') => setMailLanguage(s, customer, language);

const APPLIED_SUBJECT = /Üleminek paketile|upgrade to .* is now active|Переход на тариф/;
const REFUNDED_SUBJECT = /makse .* on tagastatud|payment of .* was refunded|платёж .* возвращён/;

/** The mails the SMTP server received for the customer about the upgrade: the upgrade active, and the refund. */
async function upgradeMails(customer: TestCustomer): Promise<{ applied: ParsedMail[]; refunded: ParsedMail[] }> {
  const email = await emailOf(customer);
  const theirs = s.smtp.mails.filter((mail) => recipientsOf(mail).includes(email));
  return {
    applied: theirs.filter((mail) => APPLIED_SUBJECT.test(mail.subject ?? '')),
    refunded: theirs.filter((mail) => REFUNDED_SUBJECT.test(mail.subject ?? '')),
  };
}

const amountOf = async (chargeId: number) =>
  Number(
    (await s.t.database.db.selectFrom('subscription_charge').select('amount_cents').where('id', '=', chargeId).executeTakeFirstOrThrow())
      .amount_cents,
  );

describe('a declined upgrade charge that EveryPay settles later', () => {
  it('the customer still on the plan it started from, nothing since: the upgrade is applied, once, and nothing is refunded', async () => {
    const declined = await declinedUpgrade();
    const { customer, id, reference } = declined;
    const before = await subscriptionRow(s, id);
    expect(answers(await s.everypay.settle(reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await shown(customer)).toMatchObject({ id, status: 'ACTIVE', plan: { code: 'AUDIOMAX' }, nextPlanId: null });
    expect(await upgrades(id)).toEqual([[1, 'settled']]);
    const row = await subscriptionRow(s, id);
    // The period is the one it was: only the plan changed.
    expect({ ...row, plan_id: before.plan_id, updated_at: before.updated_at }).toEqual(before);
    // The same callback again, a billing run, the jobs: nothing moves and nothing goes back.
    expect(answers(await s.everypay.notify(reference))).toEqual([[200, { outcome: 'applied' }]]);
    await s.t.drainJobs();
    expect(await bill(s, Date.now())).toMatchObject({ refunded: 0, refundsLeft: 0 });
    expect(refundsOf(reference)).toEqual([]);
    expect(s.everypay.payment(reference)!.state).toBe('settled');
    expect(await subscriptionRow(s, id)).toEqual(row);
    // One mail, in the subscriber's language (Estonian), naming the plan and the amount; none of a refund.
    const mails = await upgradeMails(customer);
    expect(mails.refunded).toEqual([]);
    expect(mails.applied.map((mail) => mail.subject)).toEqual(['Üleminek paketile Audio piiramatu on nüüd jõus']);
    expect(mails.applied[0]!.text).toContain(`ülemineku makse ${mailMoney(await amountOf(declined.chargeId), 'et')}`);
  });

  const meanwhile: [string, (declined: Declined) => Promise<void>, string][] = [
    [
      'the upgrade tried again and paid',
      async ({ customer, id, token }) => {
        s.everypay.setCardOutcome(token, 'settled');
        expect((await changePlan(customer, id, 'AUDIOMAX')).statusCode).toBe(200);
      },
      'AUDIOMAX',
    ],
    [
      'the upgrade tried again and declined again',
      async ({ customer, id }) => {
        expect((await changePlan(customer, id, 'AUDIOMAX')).statusCode).toBe(409);
      },
      'AUDIO1',
    ],
    [
      'a downgrade chosen',
      async ({ customer, id }) => {
        expect((await changePlan(customer, id, 'AUDIO0')).statusCode).toBe(200);
      },
      'AUDIO1',
    ],
    [
      'the subscription cancelled (at the period end)',
      async ({ customer, id }) => {
        expect((await call(s, customer, 'DELETE', `/subscription/${id}`)).statusCode).toBe(200);
      },
      'AUDIO1',
    ],
    [
      'the period renewed',
      async ({ id, token }) => {
        s.everypay.setCardOutcome(token, 'settled');
        await bill(s, Number((await subscriptionRow(s, id)).period_end) + 1000);
        await s.everypay.callbacksIdle();
        expect((await subscriptionRow(s, id)).period_number).toBe(2);
      },
      'AUDIO1',
    ],
    [
      'the plan changed since without a charge (an upgrade once the period is over, before its renewal)',
      async ({ customer, id }) => {
        await s.t.database.db
          .updateTable('subscription')
          .set({ period_end: Date.now() - 1000 })
          .where('id', '=', id)
          .execute();
        const upgraded = await changePlan(customer, id, 'AUDIOMAX');
        expect(upgraded.statusCode, upgraded.body).toBe(200);
        expect(await upgrades(id)).toEqual([[1, 'failed']]);
      },
      'AUDIOMAX',
    ],
    [
      'the renewal declined since (FAILED, the same period)',
      async ({ id }) => {
        await bill(s, Number((await subscriptionRow(s, id)).period_end) + 1000);
        await s.everypay.callbacksIdle();
        expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', period_number: 1 });
      },
      'AUDIO1',
    ],
    [
      'the upgrade charged before charges named the plan they started from',
      async ({ chargeId }) => {
        await s.t.database.db.updateTable('subscription_charge').set({ from_plan_id: null }).where('id', '=', chargeId).execute();
      },
      'AUDIO1',
    ],
  ];

  it.each(meanwhile)('%s: the money goes back through the refund job, once, and the plan stays', async (_, change, plan) => {
    const declined = await declinedUpgrade();
    const { customer, id, reference } = declined;
    await change(declined);
    await s.everypay.callbacksIdle();
    const before = await subscriptionRow(s, id);
    expect(answers(await s.everypay.settle(reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect((await chargesOf(s, id)).find((charge) => charge.reference === reference)!.state).toBe('refund_due');
    expect(await subscriptionRow(s, id)).toEqual(before);
    // Marked, not refunded yet: no mail of it is queued.
    expect(await mailJobs(s, id)).not.toContain('upgradeRefunded');
    await s.t.drainJobs();
    await s.everypay.callbacksIdle();
    expect(refundsOf(reference)).toHaveLength(1);
    expect(s.everypay.payment(reference)).toMatchObject({ state: 'refunded', standingCents: 0 });
    expect((await chargesOf(s, id)).find((charge) => charge.reference === reference)!.state).toBe('refunded');
    expect((await shown(customer)).plan.code).toBe(plan);
    expect(await subscriptionRow(s, id)).toEqual(before);
    expect(answers(await s.everypay.notify(reference))).toEqual([[200, { outcome: 'applied' }]]);
    await s.t.drainJobs();
    expect(refundsOf(reference)).toHaveLength(1);
    // One mail, once the refund was made: the upgrade's plan and the amount refunded; none of the upgrade applied.
    const mails = await upgradeMails(customer);
    expect(mails.applied).toEqual([]);
    const amount = mailMoney(await amountOf(declined.chargeId), 'et');
    expect(mails.refunded.map((mail) => mail.subject)).toEqual([`Teie makse ${amount} on tagastatud`]);
    expect(mails.refunded[0]!.text).toContain(`Teie makse ${amount} paketile Audio piiramatu ülemineku eest on kaardile tagastatud`);
  });
});

describe('the mail of a late-settled upgrade', () => {
  it('the upgrade applied: in English for an English-speaking subscriber, once, whatever callbacks and runs follow', async () => {
    const { customer, id, reference, chargeId } = await declinedUpgrade();
    await setLanguage(customer, 'en');
    expect(answers(await s.everypay.settle(reference))).toEqual([[200, { outcome: 'applied' }]]);
    await s.t.drainJobs();
    for (let i = 0; i < 2; i++) expect(answers(await s.everypay.notify(reference))).toEqual([[200, { outcome: 'applied' }]]);
    await s.t.drainJobs();
    await bill(s, Date.now());
    await s.t.drainJobs();
    const mails = await upgradeMails(customer);
    expect(mails.refunded).toEqual([]);
    expect(mails.applied.map((mail) => mail.subject)).toEqual(['Your upgrade to Audio unlimited is now active']);
    expect(mails.applied[0]!.text).toContain(
      `Your bank approved the payment of ${mailMoney(await amountOf(chargeId), 'en')} for the upgrade to Audio unlimited after all`,
    );
    expect(mails.applied[0]!.html).toContain('Audio unlimited');
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeApplied']);
  });

  it('the refund: in Russian for a Russian-speaking subscriber, and a refund that fails once then succeeds mails once, after it succeeded', async () => {
    const declined = await declinedUpgrade();
    const { customer, id, reference, chargeId } = declined;
    await setLanguage(customer, 'ru');
    expect((await changePlan(customer, id, 'AUDIO0')).statusCode).toBe(200);
    expect(answers(await s.everypay.settle(reference))).toEqual([[200, { outcome: 'applied' }]]);
    // EveryPay down for the job's first look-up of the payment: the refund is left for the job's next try.
    s.everypay.breakApi({ status: 503 }, 1, `/api/v4/payments/${reference}`);
    await s.t.drainJobs();
    expect((await chargesOf(s, id)).find((charge) => charge.reference === reference)!.state).toBe('refund_due');
    expect(refundsOf(reference)).toEqual([]);
    expect(await mailJobs(s, id)).toEqual(['purchased']);
    expect(await upgradeMails(customer)).toEqual({ applied: [], refunded: [] });
    await s.t.jobs.worker.drain({ includeDelayed: true });
    expect(refundsOf(reference)).toHaveLength(1);
    expect((await chargesOf(s, id)).find((charge) => charge.reference === reference)!.state).toBe('refunded');
    // A repeated callback, another drain and a billing run: nothing more is refunded or mailed.
    expect(answers(await s.everypay.notify(reference))).toEqual([[200, { outcome: 'applied' }]]);
    await bill(s, Date.now());
    await s.t.jobs.worker.drain({ includeDelayed: true });
    expect(refundsOf(reference)).toHaveLength(1);
    const mails = await upgradeMails(customer);
    expect(mails.applied).toEqual([]);
    const amount = mailMoney(await amountOf(chargeId), 'ru');
    expect(mails.refunded.map((mail) => mail.subject)).toEqual([`Ваш платёж ${amount} возвращён`]);
    expect(mails.refunded[0]!.text).toContain(`Ваш платёж ${amount} за переход на тариф Аудио без ограничений возвращён на карту`);
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeRefunded']);
  });
});

describe('storefront_subscription_late_settles_total', () => {
  const applied = async () =>
    sample(await scrape(s.t, METRICS_TOKEN), 'storefront_subscription_late_settles_total', { outcome: 'applied' }) ?? 0;

  it('counts a late upgrade applied once its transaction committed: a commit that fails counts nothing and mails nothing', async () => {
    const { customer, id, reference } = await declinedUpgrade();
    const before = await applied();
    const repair = await failCommitsOfUpdate(s.t.database, 'subscription', 'plan_id', id);
    let sent;
    try {
      sent = await s.everypay.settle(reference);
    } finally {
      await repair();
    }
    expect(sent.map((callback) => callback.status)).not.toContain(200);
    expect(await upgrades(id)).toEqual([[1, 'failed']]);
    expect((await shown(customer)).plan.code).toBe('AUDIO1');
    expect(await applied()).toBe(before);
    expect(await mailJobs(s, id)).toEqual(['purchased']);
    // EveryPay's callback again, the commit no longer failing: applied and counted, once.
    expect(answers(await s.everypay.notify(reference))).toEqual([[200, { outcome: 'applied' }]]);
    expect(await upgrades(id)).toEqual([[1, 'settled']]);
    expect(await applied()).toBe(before + 1);
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeApplied']);
  });
});
