import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { until, withTableHeld } from '../helpers/lock-waits.js';
import {
  DAY,
  MIT_PATH,
  bill,
  call,
  chargesOf,
  createCustomer,
  mitPayments,
  releaseHeldCallbacks,
  saveCard,
  startSubscriptionShop,
  subscribe,
  type SubscriptionShop,
} from './helpers.js';

// A plan change sent as the trial ends, while the billing run renews it. The trial's first month is
// charged once, never twice and never not at all: whichever claims the subscription first (each locks
// it, and neither claims past a charge of the other still pending) decides, and the other sees it. The
// run first: its renewal of the old plan, and the change is told a payment is pending (409). The
// change first: an upgrade charges the new plan's first month (the trial being over, trials.ts) and
// the run finds nothing due; a downgrade is what the run then charges. The gateway's answer to the
// winner's charge is held until the loser has answered, so the loser meets that charge pending.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());
afterEach(() => releaseHeldCallbacks(s));

const PRICES: Record<string, number> = { AUDIO1: 999, AUDIOMAX: 1999 };

/** A customer on the plan's trial, which ended a minute ago and which no billing run has renewed yet. */
async function trialJustOver(code: string) {
  const customer = await createCustomer(s.t.database.db);
  await saveCard(s, customer);
  const sub = (await subscribe(s, customer, code)).json();
  expect(sub).toMatchObject({ status: 'TRIAL', plan: { code } });
  const end = Date.now() - 60_000;
  const length = Date.parse(sub.currentPeriodEnd) - Date.parse(sub.currentPeriodStart);
  await s.t.database.db
    .updateTable('subscription')
    .set({ period_start: end - length, period_end: end })
    .where('id', '=', sub.id)
    .execute();
  return { customer, id: sub.id as number };
}

const changePlan = (customer: TestCustomer, id: number, code: string) =>
  call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans[code] });

/** Holds the answer (and callbacks) of the next charge at EveryPay; `release` lets them go. */
function holdNextCharge() {
  let answer!: () => void;
  s.everypay.answerLate(MIT_PATH, new Promise<void>((resolve) => (answer = resolve)));
  s.everypay.holdCallbacks();
  return async () => {
    answer();
    await releaseHeldCallbacks(s);
  };
}

/** The subscription once both ended: one charge, the first month of the plan it is on, and a paid month ahead. */
async function chargedOnce(customer: TestCustomer, id: number, code: string) {
  const shown = (await call(s, customer, 'GET', '/subscription')).json()[0];
  expect(shown).toMatchObject({ status: 'ACTIVE', trial: false, plan: { code } });
  expect(Date.parse(shown.currentPeriodEnd)).toBeGreaterThan(Date.now() + 27 * DAY);
  const charges = await chargesOf(s, id);
  expect(charges.map((charge) => [charge.state, charge.plan_id, charge.amount_cents])).toEqual([['settled', s.plans[code], PRICES[code]]]);
  expect(mitPayments(s, id)).toHaveLength(1);
  // A later run charges nothing more.
  await bill(s, Date.now());
  expect(await chargesOf(s, id)).toHaveLength(1);
  return charges[0]!;
}

describe('an upgrade as the trial ends, racing the billing run', () => {
  it('the run first: it renews the old plan, and the upgrade is told a payment is pending', async () => {
    const { customer, id } = await trialJustOver('AUDIO1');
    const release = holdNextCharge();
    const run = bill(s, Date.now());
    await until('the renewal at the gateway', () => mitPayments(s, id).length === 1);
    expectErrorBody(await changePlan(customer, id, 'AUDIOMAX'), 409, 'Conflict');
    await release();
    expect(await run).toMatchObject({ charged: 1 });
    expect(await chargedOnce(customer, id, 'AUDIO1')).toMatchObject({ purpose: 'PERIOD', period_number: 1 });
  });

  it("the upgrade first: it charges the new plan's first month, and the run finds nothing due", async () => {
    const { customer, id } = await trialJustOver('AUDIO1');
    const release = holdNextCharge();
    const changed = changePlan(customer, id, 'AUDIOMAX');
    await until('the upgrade at the gateway', () => mitPayments(s, id).length === 1);
    expect(await bill(s, Date.now())).toMatchObject({ charged: 0, skipped: 1 });
    await release();
    expect((await changed).statusCode).toBe(200);
    expect(await chargedOnce(customer, id, 'AUDIOMAX')).toMatchObject({ purpose: 'UPGRADE', period_number: 0 });
  });
});

describe.each([
  { change: 'an upgrade', from: 'AUDIO1', to: 'AUDIOMAX' },
  { change: 'a downgrade', from: 'AUDIOMAX', to: 'AUDIO1' },
])('$change sent at the very moment the billing run renews the trial', ({ from, to }) => {
  it('charges the first month once: of the new plan when the change came first, else of the old one', async () => {
    const { customer, id } = await trialJustOver(from);
    const release = holdNextCharge();
    // On PostgreSQL both wait for the subscription's table, having read what they read unlocked, and then meet at its row.
    const [changed] = await withTableHeld(s.t.database.db, 'subscription', async () => {
      let loserAnswered = false;
      const run = bill(s, Date.now()).finally(() => (loserAnswered = true));
      const change = changePlan(customer, id, to).finally(() => (loserAnswered = true));
      await until('one charge at the gateway and the other side answered', () => mitPayments(s, id).length === 1 && loserAnswered);
      await release();
      return Promise.all([change, run]);
    });
    if (changed.statusCode === 409) {
      expectErrorBody(changed, 409, 'Conflict');
      await chargedOnce(customer, id, from);
    } else {
      expect(changed.statusCode, changed.body).toBe(200);
      await chargedOnce(customer, id, to);
    }
  });
});
