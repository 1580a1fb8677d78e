import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionStats } from '../../src/modules/subscriptions/index.js';
import { bill, call, createCustomer, saveCard, startSubscriptionShop, subscribe, type SubscriptionShop } from './helpers.js';

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());

describe('subscription stats', () => {
  it('counts revenue, trials and their conversion, and churn per month', async () => {
    const trialist = await createCustomer(s.t.database.db);
    await saveCard(s, trialist);
    const trial = (await subscribe(s, trialist, 'AUDIO1')).json();
    const payer = await createCustomer(s.t.database.db);
    await saveCard(s, payer);
    const paid = (await subscribe(s, payer, 'SHELF5')).json();
    // A declined first charge never started: not counted.
    const declined = await createCustomer(s.t.database.db);
    await saveCard(s, declined);
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'failed');
    expect((await subscribe(s, declined, 'SHELF5')).statusCode).toBe(409);

    await bill(s, Date.parse(trial.currentPeriodEnd) + 1000);
    await call(s, payer, 'DELETE', `/subscription/${paid.id}`);
    await bill(s, Date.parse(paid.currentPeriodEnd) + 1000);

    const months = await subscriptionStats(s.t.database.db);
    const now = new Date().toISOString().slice(0, 7);
    expect(months.find((m) => m.month === now)).toMatchObject({ started: 2, trials: 1, trialsConverted: 1, trialConversion: 1 });
    const total = months.reduce((sum, m) => sum + m.revenue, 0);
    expect(Math.round(total * 100)).toBe(750 + 999);
    expect(months.reduce((sum, m) => sum + m.churned, 0)).toBe(1);
    const last = months.at(-1)!;
    expect(last.month).toBe(new Date(Date.parse(paid.currentPeriodEnd) + 1000).toISOString().slice(0, 7));
    expect(last).toMatchObject({ churned: 1, activeAtEnd: 1, churnRate: 0.5 });
  });

  it('counts a trial upgraded to a plan of another kind once: started once, one trial', async () => {
    const thisMonth = async () => {
      const now = new Date().toISOString().slice(0, 7);
      return (await subscriptionStats(s.t.database.db)).find((m) => m.month === now) ?? { started: 0, trials: 0 };
    };
    const before = await thisMonth();
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    const trial = (await subscribe(s, customer, 'AUDIO1')).json();
    // AUDIOMAX (another kind of plan) keeps the trial on: its trial is then had on this subscription too.
    const upgraded = await call(s, customer, 'PUT', `/subscription/${trial.id}/plan`, { planId: s.plans.AUDIOMAX });
    expect(upgraded.json()).toMatchObject({ status: 'TRIAL', plan: { code: 'AUDIOMAX' } });
    const after = await thisMonth();
    expect({ started: after.started - before.started, trials: after.trials - before.trials }).toEqual({ started: 1, trials: 1 });
  });
});
