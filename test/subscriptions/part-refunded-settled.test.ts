import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionStats } from '../../src/modules/subscriptions/index.js';
import { answers } from '../helpers/everypay-order.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import { activeShelfSubscriber, chargesOf, mailJobs, startSubscriptionShop, subscriptionRow, type SubscriptionShop } from './helpers.js';

// A settled subscription charge refunded only in part in EveryPay's portal (a goodwill refund, say): the
// callback found the charge finished and changed nothing, so `subscription stats` counted the whole charge
// as revenue, money the shop had given back. The charge now records what its payment's refunds came to
// (refunded_cents, from EveryPay's standing_amount), once however often the callback comes, and the stats
// count what is left; a later refund of the rest makes it refunded, no revenue at all.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000/1m' });
});
afterAll(() => s.close());

const revenueCents = async () => Math.round((await subscriptionStats(s.t.database.db)).reduce((sum, m) => sum + m.revenue, 0) * 100);

async function settledCharge() {
  const subscriber = await activeShelfSubscriber(s);
  await s.everypay.callbacksIdle();
  const charge = (await chargesOf(s, subscriber.id)).at(-1)!;
  expect(charge).toMatchObject({ period_number: 1, state: 'settled' });
  return { ...subscriber, charge };
}

describe('a settled subscription charge refunded in part in the portal', () => {
  it('is revenue less the part refunded, counted once however often its callback comes', async () => {
    const { id, charge } = await settledCharge();
    const before = await revenueCents();

    expect(answers(await s.everypay.refund(charge.reference!, 200))).toEqual([[200, { outcome: 'applied' }]]);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'settled', refunded_cents: 200 });
    expect(await revenueCents()).toBe(before - 200);

    // Repeated, and twice at once: nothing more comes off.
    await s.everypay.notify(charge.reference!);
    const again = await withTableHeld(s.t.database.db, 'subscription_charge', () => s.everypay.notify(charge.reference!, { times: 2 }));
    expect(answers(again)).toEqual(Array(2).fill([200, { outcome: 'applied' }]));
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'settled', refunded_cents: 200 });
    expect(await revenueCents()).toBe(before - 200);

    // A second part refund: what the refunds came to in all.
    await s.everypay.refund(charge.reference!, 100);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'settled', refunded_cents: 300 });
    expect(await revenueCents()).toBe(before - 300);

    // The subscription is as it was; nobody is mailed.
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 1 });
    expect(await mailJobs(s, id)).toEqual(['purchased']);
  });

  it('refunded of the rest later: refunded, no revenue at all', async () => {
    const { id, charge } = await settledCharge();
    const before = await revenueCents();

    await s.everypay.refund(charge.reference!, 150);
    expect(await revenueCents()).toBe(before - 150);
    await s.everypay.refund(charge.reference!, charge.amount_cents - 150);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'refunded', refunded_cents: charge.amount_cents });
    expect(await revenueCents()).toBe(before - charge.amount_cents);
    // A late copy of the first refund's callback moves nothing back.
    await s.everypay.notify(charge.reference!);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'refunded', refunded_cents: charge.amount_cents });
  });

  it('charged back after a part refund: refunded, no revenue at all', async () => {
    const { id, charge } = await settledCharge();
    const before = await revenueCents();

    await s.everypay.refund(charge.reference!, 150);
    await s.everypay.setState(charge.reference!, 'chargebacked');
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ state: 'refunded', refunded_cents: charge.amount_cents });
    expect(await revenueCents()).toBe(before - charge.amount_cents);
  });
});
