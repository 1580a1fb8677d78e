import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionStats } from '../../src/modules/subscriptions/index.js';
import type { TestCustomer } from '../helpers/customers.js';
import { answers } from '../helpers/everypay-order.js';
import { sample, scrape } from '../metrics/metrics-text.js';
import {
  activeShelfSubscriber,
  bill,
  call,
  chargesOf,
  mailJobs,
  mitPayments,
  startSubscriptionShop,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';

// A settled subscription charge whose payment the cardholder disputed and the issuer took back (EveryPay's
// `chargebacked`), or that was refunded whole in EveryPay's portal: the callback found the charge finished and
// changed nothing. The charge stayed settled, so `subscription stats` counted the money taken back as revenue
// and storefront_payments_total counted the chargeback as a repeated callback. The charge is now marked
// refunded (what the money is), once, whichever callback comes first.
// A chargeback also retires the card the charge was made with, as a removal does: card-network rules say a
// disputed card (often a stolen one) is not billed again. The renewal charged it as ever. A refund made in the
// portal is the shop's own doing and leaves the card.

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
const cardsOf = async (customer: TestCustomer) => {
  const response = await call(s, customer, 'GET', '/subscription-credit-card');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { id: number }[]).map((card) => card.id);
};

/** A paying SHELF5 subscriber, its settled first charge, and its one card. */
async function subscriberWithSettledCharge() {
  const subscriber = await activeShelfSubscriber(s);
  await s.everypay.callbacksIdle();
  const charge = (await chargesOf(s, subscriber.id)).at(-1)!;
  expect(charge).toMatchObject({ period_number: 1, state: 'settled' });
  const cardId = Number((await subscriptionRow(s, subscriber.id)).card_id);
  expect(await cardsOf(subscriber.customer)).toEqual([cardId]);
  return { ...subscriber, charge, cardId };
}

describe('a settled subscription charge charged back', () => {
  it('is marked refunded, once, and is no revenue', async () => {
    const { id, charge } = await subscriberWithSettledCharge();
    const revenueBefore = await revenueCents();
    const countedBefore = await chargebacks();

    expect(answers(await s.everypay.setState(charge.reference!, 'chargebacked'))).toEqual([[200, { outcome: 'applied' }]]);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ id: charge.id, state: 'refunded' });
    expect(await revenueCents()).toBe(revenueBefore - charge.amount_cents);

    // EveryPay repeats its callback: nothing moves again.
    expect(answers(await s.everypay.notify(charge.reference!))).toEqual([[200, { outcome: 'applied' }]]);
    expect((await chargesOf(s, id)).at(-1)!.state).toBe('refunded');
    expect(await revenueCents()).toBe(revenueBefore - charge.amount_cents);
    expect(await chargebacks()).toEqual({ applied: countedBefore.applied + 1, duplicate: countedBefore.duplicate + 1 });
  });

  it('retires the card it was paid with: the period stands, and the renewal finds no card to charge', async () => {
    const { customer, id, end, charge } = await subscriberWithSettledCharge();
    const before = await subscriptionRow(s, id);

    await s.everypay.setState(charge.reference!, 'chargebacked');
    expect(await cardsOf(customer)).toEqual([]);
    const after = await subscriptionRow(s, id);
    expect(after).toMatchObject({ status: 'ACTIVE', card_id: null, period_number: 1 });
    expect([Number(after.period_start), Number(after.period_end)]).toEqual([Number(before.period_start), Number(before.period_end)]);
    // Repeated: nothing more goes (nor any card the customer saved since).
    await s.everypay.notify(charge.reference!);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', card_id: null });

    // The renewal: no card, so no charge of the disputed one at EveryPay; failed as any renewal without a card is.
    const requestsBefore = mitPayments(s, id).length;
    await bill(s, end + 1000);
    expect(mitPayments(s, id)).toHaveLength(requestsBefore);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ period_number: 2, gateway: 'none', state: 'failed' });
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', card_id: null });
    expect(await mailJobs(s, id)).toEqual(['purchased', 'cardRetired', 'billingFailed']);
  });

  it('refunded whole in the portal instead: the card stays, and the renewal charges it', async () => {
    const { customer, id, end, charge, cardId } = await subscriberWithSettledCharge();

    await s.everypay.refund(charge.reference!, charge.amount_cents);
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ id: charge.id, state: 'refunded' });
    expect(await cardsOf(customer)).toEqual([cardId]);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', card_id: cardId });

    await bill(s, end + 1000);
    await s.everypay.callbacksIdle();
    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ period_number: 2, state: 'settled' });
  });
});

describe('a renewal charged back before the shop heard it settled', () => {
  // Its answer said processing; the payment settled and was charged back before either callback came. The charge
  // fails as a payment refunded before it settled (the retry schedule, mailed as refunded), and was retried on the
  // disputed card. Its card is now retired as a settled charge's is: the retry finds no card and charges nothing.
  it('fails, retires its card, and the retry charges nothing', async () => {
    const { customer, id, end, token } = await subscriberWithSettledCharge();
    s.everypay.setCardOutcome(token, 'settled', { processing: true });
    s.everypay.holdCallbacks();
    await bill(s, end + 1000);
    const renewal = (await chargesOf(s, id)).at(-1)!;
    expect(renewal).toMatchObject({ period_number: 2, state: 'pending' });
    await s.everypay.setState(renewal.reference!, 'chargebacked');
    await s.everypay.releaseCallbacks();
    await s.everypay.callbacksIdle();

    expect((await chargesOf(s, id)).at(-1)).toMatchObject({ id: renewal.id, state: 'failed' });
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'FAILED', card_id: null });
    expect(await cardsOf(customer)).toEqual([]);
    // One mail, which tells the card too (chargeback-renewal-retry.test.ts); the failed retry, the billingFailed one.
    expect(await mailJobs(s, id)).toEqual(['purchased', 'renewalChargedBack']);

    const requestsBefore = mitPayments(s, id).length;
    await bill(s, end + 1000 + 86_400_000);
    expect(mitPayments(s, id)).toHaveLength(requestsBefore);
    expect(await mailJobs(s, id)).toEqual(['purchased', 'renewalChargedBack', 'billingFailed']);
  });
});
