import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importLines } from '../basket/import-helpers.js';
import type { TestCustomer } from '../helpers/customers.js';
import { answers } from '../helpers/everypay-order.js';
import { expectErrorBody } from '../helpers/http.js';
import {
  DAY,
  PLAN_LINES,
  bill,
  call,
  chargesOf,
  createCustomer,
  saveCard,
  secondAccountOf,
  startSubscriptionShop,
  subscribe,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';

// PUT /subscription/{id}/plan to a dearer plan charges the days left; EveryPay declined that charge
// (the customer was told 409 subscriptions.paymentDeclined), and the card's bank then approves it
// after all: EveryPay settles it and calls back. The customer paid for the upgrade, so while they
// still wait for it (the subscription live in that period, on the plan the upgrade started from, no
// upgrade tried again and no other plan chosen since) the upgrade is applied. Otherwise the money
// goes back at once, through the refund job. Either happens once, whatever callbacks repeat.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000/1m' });
  // A cheaper audio plan, for a downgrade chosen after the declined upgrade.
  const cheaper = { ...PLAN_LINES[0], code: 'AUDIO0', titles: { et: 'Audio 0' }, monthlyPrice: 4.99, position: 9 };
  const imported = await importLines(s.t, 'subscription-plans', [...PLAN_LINES, cheaper]);
  expect(imported.statusCode, imported.body).toBe(200);
  const row = await s.t.database.db.selectFrom('subscription_plan').select('id').where('code', '=', 'AUDIO0').executeTakeFirstOrThrow();
  s.plans.AUDIO0 = Number(row.id);
});
afterAll(async () => s.close());
afterEach(async () => {
  await s.everypay.releaseCallbacks();
  await s.everypay.callbacksIdle();
});

const REFUND_PATH = '/api/v4/payments/refund';
const refundsOf = (reference: string) =>
  s.everypay.requests.filter((r) => r.path === REFUND_PATH && (r.body as Record<string, unknown>).payment_reference === reference);

const changePlan = (customer: TestCustomer, id: number, code: string) =>
  call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans[code] });

const shown = async (customer: TestCustomer) => {
  const response = await call(s, customer, 'GET', '/subscription');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: number; status: string; plan: { code: string }; nextPlanId: number | null }[])[0]!;
};

const upgrades = async (id: number) =>
  (await chargesOf(s, id)).filter((charge) => charge.purpose === 'UPGRADE').map((charge) => [charge.attempt, charge.state]);

/**
 * A paid AUDIO1 subscription half-way through its period (a second client account of a user who had
 * the trial) whose upgrade to AUDIOMAX EveryPay declined: 409, still AUDIO1, the upgrade's charge failed.
 */
async function declinedUpgrade() {
  const payer = await createCustomer(s.t.database.db);
  await saveCard(s, payer);
  const customer = await secondAccountOf(s, payer);
  await saveCard(s, customer);
  await s.everypay.callbacksIdle();
  const token = s.everypay.cards().at(-1)!.token;
  s.everypay.setCardOutcome(token, 'settled');
  await subscribe(s, payer, 'AUDIO1');
  const sub = (await subscribe(s, customer, 'AUDIO1')).json();
  expect(sub.status).toBe('ACTIVE');
  const id = sub.id as number;
  const now = Date.now();
  await s.t.database.db
    .updateTable('subscription')
    .set({ period_start: now - 14 * DAY, period_end: now + 16 * DAY - 3_600_000 })
    .where('id', '=', id)
    .execute();
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

describe('a declined upgrade charge that EveryPay settles later', () => {
  it('the customer still on the plan it started from, nothing since: the upgrade is applied, once, and nothing is refunded', async () => {
    const { customer, id, reference } = await declinedUpgrade();
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
  });
});
