import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionStats } from '../../src/modules/subscriptions/index.js';
import type { TestCustomer } from '../helpers/customers.js';
import { answers } from '../helpers/everypay-order.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import { sample, scrape } from '../metrics/metrics-text.js';
import {
  activeShelfSubscriber,
  call,
  chargesOf,
  mailJobs,
  startSubscriptionShop,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';

// EveryPay may deliver one callback twice at once (its retries, two of its servers). The callback of a
// settled charge charged back, or refunded whole in the portal, is applied once however the two
// interleave: one move settled -> refunded, one card retired (a chargeback's, mailed once), the money taken
// off the revenue once, and the second counted as a repeat. On PostgreSQL both are held until each has
// read the charge settled and waits to write it (withTableHeld); SQLite runs them one after the other.

const METRICS_TOKEN = 'chargeback-race-metrics-0123456789abcdef';

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop({ METRICS_TOKEN, PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000/1m' });
});
afterAll(() => s.close());

const revenueCents = async () => Math.round((await subscriptionStats(s.t.database.db)).reduce((sum, m) => sum + m.revenue, 0) * 100);
const refundedCounted = async () => {
  const text = await scrape(s.t, METRICS_TOKEN);
  const of = (outcome: string) =>
    sample(text, 'storefront_payments_total', { gateway: 'everypay', state: 'refunded', applied_to: 'subscription_charge', outcome }) ?? 0;
  return { applied: of('applied'), duplicate: of('duplicate') };
};
const cardsOf = async (customer: TestCustomer) => {
  const response = await call(s, customer, 'GET', '/subscription-credit-card');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: number }[]).map((card) => card.id);
};
const cardRows = (id: number) => s.t.database.db.selectFrom('subscription_card').selectAll().where('id', '=', id).execute();

async function subscriberWithSettledCharge() {
  const subscriber = await activeShelfSubscriber(s);
  await s.everypay.callbacksIdle();
  const charge = (await chargesOf(s, subscriber.id)).at(-1)!;
  expect(charge).toMatchObject({ period_number: 1, state: 'settled' });
  const cardId = Number((await subscriptionRow(s, subscriber.id)).card_id);
  return { ...subscriber, charge, cardId };
}

describe('the same callback of a settled charge taken back, twice at once', () => {
  it('a chargeback: one move, one card retired, its mail once, the revenue less the charge once', async () => {
    const { customer, id, charge, cardId } = await subscriberWithSettledCharge();
    const revenueBefore = await revenueCents();
    const countedBefore = await refundedCounted();

    const sent = await withTableHeld(s.t.database.db, 'subscription_charge', () =>
      s.everypay.setState(charge.reference!, 'chargebacked', { times: 2 }),
    );
    expect(answers(sent)).toEqual(Array(2).fill([200, { outcome: 'applied' }]));

    expect((await chargesOf(s, id)).map((c) => [c.id, c.state])).toEqual([[charge.id, 'refunded']]);
    expect(await cardsOf(customer)).toEqual([]);
    expect(await cardRows(cardId)).toEqual([]);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', card_id: null, period_number: 1 });
    expect(await mailJobs(s, id)).toEqual(['purchased', 'cardRetired']);
    expect(await revenueCents()).toBe(revenueBefore - charge.amount_cents);
    expect(await refundedCounted()).toEqual({ applied: countedBefore.applied + 1, duplicate: countedBefore.duplicate + 1 });
  });

  it('a refund of the whole in the portal: one move, the card kept, no mail, the revenue less the charge once', async () => {
    const { customer, id, charge, cardId } = await subscriberWithSettledCharge();
    const revenueBefore = await revenueCents();
    const countedBefore = await refundedCounted();

    const sent = await withTableHeld(s.t.database.db, 'subscription_charge', () =>
      s.everypay.refund(charge.reference!, charge.amount_cents, { times: 2 }),
    );
    expect(answers(sent)).toEqual(Array(2).fill([200, { outcome: 'applied' }]));

    expect((await chargesOf(s, id)).map((c) => [c.id, c.state])).toEqual([[charge.id, 'refunded']]);
    expect(await cardsOf(customer)).toEqual([cardId]);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', card_id: cardId });
    expect(await mailJobs(s, id)).toEqual(['purchased']);
    expect(await revenueCents()).toBe(revenueBefore - charge.amount_cents);
    expect(await refundedCounted()).toEqual({ applied: countedBefore.applied + 1, duplicate: countedBefore.duplicate + 1 });
  });
});
