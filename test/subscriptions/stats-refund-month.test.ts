import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { runCli } from '../helpers/cli.js';
import { answers } from '../helpers/everypay-order.js';
import { activeShelfSubscriber, call, chargesOf, startSubscriptionShop, type SubscriptionShop } from './helpers.js';
import { settledForNothing } from './late-settle-helpers.js';

// `subscription stats` booked what a refund in part gave back, and a chargeback, in the month the charge settled:
// an accountant who had closed November saw its revenue change when a refund was made in December, and a
// chargeback in December took the subscription off November's `started` (the charge no longer settled). Each
// refund and chargeback is now recorded with its time, and is booked in its own month; the month a charge settled
// keeps it whole, and a subscription whose first charge settled stays started.

const clock = fixedClock(Date.now());
let s: SubscriptionShop;
let env: Record<string, string>;
beforeAll(async () => {
  // A database file on SQLite, which the command opens beside the shop.
  s = await startSubscriptionShop({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000/1m' }, { sqliteFile: true, clock });
  env = { DATABASE_URL: s.t.config.databaseUrl };
});
afterAll(() => s.close());

interface Month {
  month: string;
  revenue: number;
  started: number;
  activeAtEnd: number;
}

/** `storefront subscription stats`, by month. */
async function stats(): Promise<Map<string, Month>> {
  const result = await runCli(['subscription', 'stats'], env);
  expect(result.code, result.stderr).toBe(0);
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  return new Map(lines.map((line) => JSON.parse(line) as Month).map((month) => [month.month, month]));
}

const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const cents = (month: Month | undefined) => Math.round((month?.revenue ?? 0) * 100);

/** A SHELF5 subscriber whose first charge settled now (month A); the clock then moved to the month after (B). */
async function settledThenNextMonth() {
  const settledAt = Date.now();
  clock.set(settledAt);
  const subscriber = await activeShelfSubscriber(s);
  await s.everypay.callbacksIdle();
  const charge = (await chargesOf(s, subscriber.id)).at(-1)!;
  expect(charge).toMatchObject({ period_number: 1, state: 'settled' });
  const before = await stats();
  const a = new Date(settledAt);
  const later = Date.UTC(a.getUTCFullYear(), a.getUTCMonth() + 1, 10);
  clock.set(later);
  return { ...subscriber, charge, before, monthA: monthOf(settledAt), monthB: monthOf(later) };
}

describe('subscription stats of a charge refunded or charged back in a later month', () => {
  it('a refund in part: the month it settled keeps it whole, the refund comes off in its own month', async () => {
    const { charge, before, monthA, monthB } = await settledThenNextMonth();
    expect(cents(before.get(monthA))).toBeGreaterThanOrEqual(charge.amount_cents);

    expect(answers(await s.everypay.refund(charge.reference!, 200))).toEqual([[200, { outcome: 'applied' }]]);
    // Its callback repeated: nothing more comes off.
    await s.everypay.notify(charge.reference!);
    const after = await stats();
    expect(after.get(monthA)).toEqual(before.get(monthA));
    expect(cents(after.get(monthB))).toBe(cents(before.get(monthB)) - 200);
    expect((await chargesOf(s, charge.subscription_id)).at(-1)).toMatchObject({ state: 'settled', refunded_cents: 200 });
  });

  it('a chargeback: the month it settled keeps its revenue and its started subscription; the sum comes off in its own month', async () => {
    const { charge, before, monthA, monthB } = await settledThenNextMonth();

    expect(answers(await s.everypay.setState(charge.reference!, 'chargebacked'))).toEqual([[200, { outcome: 'applied' }]]);
    expect((await chargesOf(s, charge.subscription_id)).at(-1)).toMatchObject({ state: 'refunded' });
    const after = await stats();
    expect(after.get(monthA)).toEqual(before.get(monthA));
    expect(cents(after.get(monthB))).toBe(cents(before.get(monthB)) - charge.amount_cents);
    // The subscription goes on (its period stands): no churn, still active at B's end.
    expect(after.get(monthB)?.activeAtEnd).toBe(before.get(monthB)?.activeAtEnd ?? before.get(monthA)!.activeAtEnd);
  });

  it('a refund in part and the rest later: each in its own month, nothing of the charge left', async () => {
    const { customer, charge, before, monthA, monthB } = await settledThenNextMonth();

    await s.everypay.refund(charge.reference!, 150);
    const c = monthOf(Date.UTC(new Date(clock.now()).getUTCFullYear(), new Date(clock.now()).getUTCMonth() + 1, 10));
    clock.set(Date.parse(`${c}-10T00:00:00Z`));
    await s.everypay.refund(charge.reference!, charge.amount_cents - 150);
    expect((await chargesOf(s, charge.subscription_id)).at(-1)).toMatchObject({ state: 'refunded', refunded_cents: charge.amount_cents });
    const after = await stats();
    expect(after.get(monthA)).toEqual(before.get(monthA));
    expect(cents(after.get(monthB))).toBe(cents(before.get(monthB)) - 150);
    expect(cents(after.get(c))).toBe(cents(before.get(c)) - (charge.amount_cents - 150));

    // The customer's data still shows what went back of the charge: all of it.
    clock.set(Date.now());
    const response = await call(s, customer, 'GET', '/client-account/export');
    expect(response.statusCode, response.body).toBe(200);
    const exported = response.json().subscriptions.subscriptions[0].charges;
    expect(exported).toEqual([
      expect.objectContaining({ amount: charge.amount_cents / 100, refunded: charge.amount_cents / 100, state: 'refunded' }),
    ]);
  });

  it('money taken for nothing and refunded by the shop: in no month, its refund recorded all the same', async () => {
    clock.set(Date.now());
    const { chargeId } = await settledForNothing(s);
    const before = await stats();
    await s.t.jobs.worker.drain({ includeDelayed: true });
    const charge = await s.t.database.db.selectFrom('subscription_charge').selectAll().where('id', '=', chargeId).executeTakeFirstOrThrow();
    expect(charge).toMatchObject({ state: 'refunded', settled_at: null, refunded_cents: charge.amount_cents });
    const refunds = await s.t.database.db
      .selectFrom('subscription_charge_refund')
      .select(['kind', 'amount_cents'])
      .where('charge_id', '=', chargeId)
      .execute();
    expect(refunds).toEqual([{ kind: 'refund', amount_cents: charge.amount_cents }]);
    expect(await stats()).toEqual(before);
  });
});
