import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLines } from '../basket/import-helpers.js';
import { activeShelfSubscriber, call, PLAN_LINES, startSubscriptionShop, subscriptionRow, type SubscriptionShop } from './helpers.js';

// A plan the back office stops selling (`active: false`, or taken off the store) keeps its subscribers:
// their renewals go on charging it. One of them who chose a cheaper plan for the next period and then
// changes their mind chooses their current plan again, which calls the downgrade off (PUT
// /subscription/{id}/plan). That plan was looked up as a plan to sell: a 422 "plan not found", and the
// subscriber could not keep the plan they are on.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
  const cheaper = { ...PLAN_LINES[2], code: 'SHELF2', titles: { et: 'Riiul 2' }, shelfSize: 2, monthlyPrice: 3.5, position: 9 };
  const imported = await importLines(s.t, 'subscription-plans', [...PLAN_LINES, cheaper]);
  expect(imported.statusCode, imported.body).toBe(200);
  const row = await s.t.database.db.selectFrom('subscription_plan').select('id').where('code', '=', 'SHELF2').executeTakeFirstOrThrow();
  s.plans.SHELF2 = Number(row.id);
});
afterAll(async () => s.close());

describe('the current plan again, once it is no longer sold', () => {
  it('calls off the downgrade chosen for the period end', async () => {
    const { customer, id } = await activeShelfSubscriber(s);
    const down = await call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.SHELF2 });
    expect(down.statusCode, down.body).toBe(200);
    expect(down.json()).toMatchObject({ plan: { code: 'SHELF5' }, nextPlanId: s.plans.SHELF2 });

    const retired = await importLines(s.t, 'subscription-plans', [{ ...PLAN_LINES[2], active: false }]);
    expect(retired.statusCode, retired.body).toBe(200);

    const kept = await call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.SHELF5 });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json()).toMatchObject({ status: 'ACTIVE', plan: { code: 'SHELF5' }, nextPlanId: null });
    expect((await subscriptionRow(s, id)).next_plan_id).toBeNull();

    // Another plan it no longer sells is still refused.
    const old = await call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.OLD });
    expect(old.statusCode).toBe(422);
  });
});
