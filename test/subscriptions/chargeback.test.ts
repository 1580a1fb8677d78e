import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionStats } from '../../src/modules/subscriptions/index.js';
import { answers } from '../helpers/everypay-order.js';
import { sample, scrape } from '../metrics/metrics-text.js';
import { activeShelfSubscriber, chargesOf, startSubscriptionShop, type SubscriptionShop } from './helpers.js';

// A settled subscription charge whose payment the cardholder disputed and the issuer took back (EveryPay's
// `chargebacked`; the same for a whole refund made in EveryPay's portal): the callback found the charge
// finished and changed nothing. The charge stayed settled, so `subscription stats` counted the money taken
// back as revenue and storefront_payments_total counted the chargeback as a repeated callback. The charge
// is now marked refunded (what the money is), once, whichever callback comes first.

const METRICS_TOKEN = 'chargeback-metrics-0123456789abcdef';

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop({ METRICS_TOKEN });
});
afterAll(() => s.close());

const revenueCents = async () => Math.round((await subscriptionStats(s.t.database.db)).reduce((sum, m) => sum + m.revenue, 0) * 100);
const chargebacks = async () => {
  const text = await scrape(s.t, METRICS_TOKEN);
  const of = (outcome: string) =>
    sample(text, 'storefront_payments_total', { gateway: 'everypay', state: 'refunded', applied_to: 'subscription_charge', outcome }) ?? 0;
  return { applied: of('applied'), duplicate: of('duplicate') };
};

describe('a settled subscription charge charged back', () => {
  it('is marked refunded, once, and is no revenue', async () => {
    const subscriber = await activeShelfSubscriber(s);
    await s.everypay.callbacksIdle();
    const charge = (await chargesOf(s, subscriber.id)).at(-1)!;
    expect(charge).toMatchObject({ period_number: 1, state: 'settled' });
    const revenueBefore = await revenueCents();
    const countedBefore = await chargebacks();

    expect(answers(await s.everypay.setState(charge.reference!, 'chargebacked'))).toEqual([[200, { outcome: 'applied' }]]);
    expect((await chargesOf(s, subscriber.id)).at(-1)).toMatchObject({ id: charge.id, state: 'refunded' });
    expect(await revenueCents()).toBe(revenueBefore - charge.amount_cents);

    // EveryPay repeats its callback: nothing moves again.
    expect(answers(await s.everypay.notify(charge.reference!))).toEqual([[200, { outcome: 'applied' }]]);
    expect((await chargesOf(s, subscriber.id)).at(-1)!.state).toBe('refunded');
    expect(await revenueCents()).toBe(revenueBefore - charge.amount_cents);
    expect(await chargebacks()).toEqual({ applied: countedBefore.applied + 1, duplicate: countedBefore.duplicate + 1 });
  });
});
