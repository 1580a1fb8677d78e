import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionStats } from '../../src/modules/subscriptions/index.js';
import { importLines } from '../basket/import-helpers.js';
import type { TestCustomer } from '../helpers/customers.js';
import { answers } from '../helpers/everypay-order.js';
import { expectErrorBody } from '../helpers/http.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import {
  DAY,
  PLAN_LINES,
  bill,
  call,
  chargesOf,
  createCustomer,
  mailJobs,
  refundRequests,
  releaseHeldCallbacks,
  saveCard,
  secondAccountOf,
  startSubscriptionShop,
  subscribe,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';

// A plan change during a trial (PUT /subscription/{id}/plan; AUDIO1's trial is 14 days, AUDIOMAX's 7,
// AUDIOPRO's none). A trial lasts at most the trial days of the plan it is on, counted from the trial's
// start: an upgrade keeps the trial that far (and the client has then had the new plan's trial), or,
// when that leaves nothing, ends the trial and charges the new plan's first month at once. A downgrade
// waits for the trial's end, as it waits for a period's end. Before, an upgrade kept the whole trial of
// the old plan and recorded no trial of the new one, which could then be taken again.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
  const pro = { ...PLAN_LINES[1], code: 'AUDIOPRO', titles: { et: 'Audio pro' }, monthlyPrice: 29.99, trialDays: 0, position: 9 };
  const imported = await importLines(s.t, 'subscription-plans', [...PLAN_LINES, pro]);
  expect(imported.statusCode, imported.body).toBe(200);
  const row = await s.t.database.db.selectFrom('subscription_plan').select('id').where('code', '=', 'AUDIOPRO').executeTakeFirstOrThrow();
  s.plans.AUDIOPRO = Number(row.id);
});
afterAll(async () => s.close());

const iso = (ms: number) => new Date(ms).toISOString();

const changePlan = (customer: TestCustomer, id: number, code: string) =>
  call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans[code] });

const charges = async (id: number) =>
  (await chargesOf(s, id)).map((charge) => [charge.purpose, charge.period_number, charge.state, charge.amount_cents]);

/** A customer (or `customer`) on the plan's trial, which started `daysAgo` days ago; `start` is when. */
async function trialStarted(code: string, daysAgo: number, given?: TestCustomer) {
  const customer = given ?? (await createCustomer(s.t.database.db));
  if (!given) await saveCard(s, customer);
  const token = s.everypay.cards().at(-1)!.token;
  const sub = (await subscribe(s, customer, code)).json();
  expect(sub).toMatchObject({ status: 'TRIAL', plan: { code } });
  const start = Date.now() - daysAgo * DAY;
  const length = Date.parse(sub.currentPeriodEnd) - Date.parse(sub.currentPeriodStart);
  await s.t.database.db
    .updateTable('subscription')
    .set({ period_start: start, period_end: start + length })
    .where('id', '=', sub.id)
    .execute();
  return { customer, id: sub.id as number, start, token };
}

describe('an upgrade during a trial', () => {
  it("keeps the trial only to the new plan's own length from the trial's start, and renews on the new plan then", async () => {
    const { customer, id, start } = await trialStarted('AUDIO1', 3);
    const upgraded = await changePlan(customer, id, 'AUDIOMAX');
    expect(upgraded.statusCode, upgraded.body).toBe(200);
    // AUDIOMAX gives 7 days: the trial ends on day 7, not on AUDIO1's day 14.
    expect(upgraded.json()).toMatchObject({
      status: 'TRIAL',
      trial: true,
      plan: { code: 'AUDIOMAX' },
      currentPeriodEnd: iso(start + 7 * DAY),
    });
    expect(await charges(id)).toEqual([]);
    await bill(s, start + 7 * DAY + 1000);
    expect((await call(s, customer, 'GET', '/subscription')).json()[0]).toMatchObject({
      status: 'ACTIVE',
      trial: false,
      plan: { code: 'AUDIOMAX' },
    });
    expect(await charges(id)).toEqual([['PERIOD', 1, 'settled', 1999]]);
  });

  it("records the new plan's trial as had: a later subscription to it is charged, not another trial", async () => {
    const { customer, id, start } = await trialStarted('AUDIO1', 1);
    expect((await changePlan(customer, id, 'AUDIOMAX')).json()).toMatchObject({ status: 'TRIAL', plan: { code: 'AUDIOMAX' } });
    expect((await call(s, customer, 'DELETE', `/subscription/${id}`)).statusCode).toBe(200);
    await bill(s, start + 7 * DAY + 1000);
    const again = await subscribe(s, customer, 'AUDIOMAX');
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ status: 'ACTIVE', trial: false, plan: { code: 'AUDIOMAX' } });
    expect(await charges(again.json().id)).toEqual([['PERIOD', 1, 'settled', 1999]]);
  });

  it("past the new plan's trial (day 10; AUDIOMAX gives 7) ends the trial and charges the new plan's first month now, once", async () => {
    const month = new Date().toISOString().slice(0, 7);
    const converted = async () => (await subscriptionStats(s.t.database.db)).find((m) => m.month === month)?.trialsConverted ?? 0;
    const { customer, id, start } = await trialStarted('AUDIO1', 10);
    const convertedBefore = await converted();
    const before = Date.now();
    const upgraded = await changePlan(customer, id, 'AUDIOMAX');
    expect(upgraded.statusCode, upgraded.body).toBe(200);
    const sub = upgraded.json();
    expect(sub).toMatchObject({ status: 'ACTIVE', trial: false, plan: { code: 'AUDIOMAX' }, nextPlanId: null });
    // A paid month from now: the trial's rest is given up for the better plan at once.
    expect(Date.parse(sub.currentPeriodStart)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(sub.currentPeriodEnd) - Date.parse(sub.currentPeriodStart)).toBeGreaterThanOrEqual(28 * DAY);
    expect(await charges(id)).toEqual([['UPGRADE', 0, 'settled', 1999]]);
    // The trial's old end charges nothing more.
    await bill(s, start + 14 * DAY + 1000);
    expect(await charges(id)).toEqual([['UPGRADE', 0, 'settled', 1999]]);
    // The trial was converted: its first month is paid.
    expect(await converted()).toBe(convertedBefore + 1);
  });

  it('to a plan without a trial charges its first month now', async () => {
    const { customer, id } = await trialStarted('AUDIO1', 1);
    const upgraded = await changePlan(customer, id, 'AUDIOPRO');
    expect(upgraded.json()).toMatchObject({ status: 'ACTIVE', trial: false, plan: { code: 'AUDIOPRO' } });
    expect(await charges(id)).toEqual([['UPGRADE', 0, 'settled', 2999]]);
  });

  it("whose trial the user had on another account charges the new plan's first month now", async () => {
    const payer = await createCustomer(s.t.database.db);
    await saveCard(s, payer);
    expect((await subscribe(s, payer, 'AUDIOMAX')).json()).toMatchObject({ status: 'TRIAL' });
    const company = await secondAccountOf(s, payer);
    await saveCard(s, company);
    // The user never had AUDIO1's kind of trial: the company's subscription gets it.
    const { id } = await trialStarted('AUDIO1', 1, company);
    const upgraded = await changePlan(company, id, 'AUDIOMAX');
    expect(upgraded.json()).toMatchObject({ status: 'ACTIVE', trial: false, plan: { code: 'AUDIOMAX' } });
    expect(await charges(id)).toEqual([['UPGRADE', 0, 'settled', 1999]]);
  });

  it("and a subscription of the user's other account, at once: the new plan's trial is had once", async () => {
    const payer = await createCustomer(s.t.database.db);
    await saveCard(s, payer);
    const company = await secondAccountOf(s, payer);
    await saveCard(s, company);
    const { id } = await trialStarted('AUDIO1', 1, company);
    // On PostgreSQL both have read that the user never had AUDIOMAX's trial before either records it.
    const [upgraded, subscribed] = await withTableHeld(s.t.database.db, 'subscription_trial_use', () =>
      Promise.all([changePlan(company, id, 'AUDIOMAX'), subscribe(s, payer, 'AUDIOMAX')]),
    );
    // The one that records it second is refused (409, nothing changed) or, having seen it, is charged.
    for (const answer of [upgraded, subscribed]) expect([200, 201, 409], answer.body).toContain(answer.statusCode);
    const trials = [upgraded, subscribed].filter((answer) => answer.statusCode < 300 && answer.json().trial === true);
    expect(trials).toHaveLength(1);
    const uses = await s.t.database.db
      .selectFrom('subscription_trial_use')
      .select('subscription_id')
      .where('plan_kind', '=', 'AUDIO_UNLIMITED');
    expect(
      new Set((await uses.where('subscription_id', 'in', [id, subscribed.json().id ?? 0]).execute()).map((use) => use.subscription_id))
        .size,
    ).toBe(1);
  });

  it('still with the bank: 503 and the trial as it was; the callback that settles it starts the paid month then, mailed once', async () => {
    const { customer, id, token } = await trialStarted('AUDIO1', 10);
    s.everypay.setCardOutcome(token, 'settled', { processing: true });
    s.everypay.holdCallbacks();
    expectErrorBody(await changePlan(customer, id, 'AUDIOMAX'), 503, 'Service Unavailable');
    expect((await call(s, customer, 'GET', '/subscription')).json()[0]).toMatchObject({ status: 'TRIAL', plan: { code: 'AUDIO1' } });
    const settledAt = Date.now();
    await releaseHeldCallbacks(s);
    const shown = (await call(s, customer, 'GET', '/subscription')).json()[0];
    expect(shown).toMatchObject({ status: 'ACTIVE', trial: false, plan: { code: 'AUDIOMAX' } });
    expect(Date.parse(shown.currentPeriodStart)).toBeGreaterThanOrEqual(settledAt);
    expect(await charges(id)).toEqual([['UPGRADE', 0, 'settled', 1999]]);
    expect(await mailJobs(s, id)).toEqual(['purchased', 'upgradeConfirmed']);
  });

  it('declined: 409, and the trial goes on as it was (a late settle of it refunded); its end renews the old plan', async () => {
    const { customer, id, start, token } = await trialStarted('AUDIO1', 10);
    s.everypay.setCardOutcome(token, 'failed');
    const declined = await changePlan(customer, id, 'AUDIOMAX');
    expectErrorBody(declined, 409, 'Conflict');
    const shown = (await call(s, customer, 'GET', '/subscription')).json()[0];
    expect(shown).toMatchObject({ status: 'TRIAL', trial: true, plan: { code: 'AUDIO1' }, currentPeriodEnd: iso(start + 14 * DAY) });
    // The bank approves it after all: the customer, told it was declined, keeps the trial, and the money goes back.
    await s.everypay.callbacksIdle();
    const before = await subscriptionRow(s, id);
    const { reference } = (await chargesOf(s, id))[0]!;
    expect(answers(await s.everypay.settle(reference!))).toEqual([[200, { outcome: 'applied' }]]);
    await s.t.drainJobs();
    await s.everypay.callbacksIdle();
    expect(refundRequests(s, reference!)).toHaveLength(1);
    expect(await subscriptionRow(s, id)).toEqual(before);
    s.everypay.setCardOutcome(token, 'settled');
    await bill(s, start + 14 * DAY + 1000);
    expect((await call(s, customer, 'GET', '/subscription')).json()[0]).toMatchObject({ status: 'ACTIVE', plan: { code: 'AUDIO1' } });
    expect(await charges(id)).toEqual([
      ['UPGRADE', 0, 'refunded', 1999],
      ['PERIOD', 1, 'settled', 999],
    ]);
  });
});

describe('a downgrade during a trial', () => {
  it("waits for the trial's end, which it does not move, and the cheaper plan is charged then", async () => {
    const { customer, id, start } = await trialStarted('AUDIOMAX', 2);
    const down = await changePlan(customer, id, 'AUDIO1');
    expect(down.statusCode, down.body).toBe(200);
    expect(down.json()).toMatchObject({
      status: 'TRIAL',
      plan: { code: 'AUDIOMAX' },
      nextPlanId: s.plans.AUDIO1,
      currentPeriodEnd: iso(start + 7 * DAY),
    });
    expect(await charges(id)).toEqual([]);
    await bill(s, start + 7 * DAY + 1000);
    expect((await call(s, customer, 'GET', '/subscription')).json()[0]).toMatchObject({
      status: 'ACTIVE',
      plan: { code: 'AUDIO1' },
      nextPlanId: null,
    });
    expect(await charges(id)).toEqual([['PERIOD', 1, 'settled', 999]]);
  });

  it('back to the plan the trial started on does not lengthen the trial an upgrade shortened', async () => {
    const { customer, id, start } = await trialStarted('AUDIO1', 2);
    expect((await changePlan(customer, id, 'AUDIOMAX')).json()).toMatchObject({ currentPeriodEnd: iso(start + 7 * DAY) });
    const back = await changePlan(customer, id, 'AUDIO1');
    expect(back.json()).toMatchObject({
      status: 'TRIAL',
      plan: { code: 'AUDIOMAX' },
      nextPlanId: s.plans.AUDIO1,
      currentPeriodEnd: iso(start + 7 * DAY),
    });
    await bill(s, start + 7 * DAY + 1000);
    expect(await charges(id)).toEqual([['PERIOD', 1, 'settled', 999]]);
  });
});

describe('two accounts of one user subscribing to a plan with a trial at once', () => {
  it('one trial, and the other is told the trial was just taken', async () => {
    const payer = await createCustomer(s.t.database.db);
    await saveCard(s, payer);
    const company = await secondAccountOf(s, payer);
    await saveCard(s, company);
    // On PostgreSQL both have read that the user never had AUDIOMAX's trial before either records it.
    const answers = await withTableHeld(s.t.database.db, 'subscription_trial_use', () =>
      Promise.all([subscribe(s, payer, 'AUDIOMAX'), subscribe(s, company, 'AUDIOMAX')]),
    );
    const trials = answers.filter((answer) => answer.statusCode === 201 && answer.json().trial === true);
    expect(trials).toHaveLength(1);
    const other = answers.find((answer) => !trials.includes(answer))!;
    // SQLite writes one at a time: the second saw the trial had and was charged. On PostgreSQL it
    // collided on recording the trial: a 409 saying so, not "you already have a subscription of this
    // kind" (the account has none), and nothing of it stays.
    if (other.statusCode === 409) {
      const refused = expectErrorBody(other, 409, 'Conflict');
      const winner = trials[0] === answers[0] ? payer : company;
      // Another plan of the family: the same one again would be a repeat of the winner's request (subscribe-twice.test.ts).
      const already = expectErrorBody(await subscribe(s, winner, 'AUDIO1'), 409, 'Conflict');
      expect(refused.message).not.toBe(already.message);
      const loser = winner === payer ? company : payer;
      expect((await call(s, loser, 'GET', '/subscription')).json()).toEqual([]);
    } else expect(other.json()).toMatchObject({ trial: false, status: 'ACTIVE' });
  });
});
