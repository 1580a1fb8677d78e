import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionCardPruning } from '../../src/modules/subscriptions/index.js';
import type { TestCustomer } from '../helpers/customers.js';
import {
  bill,
  billStalePending,
  call,
  chargesOf,
  createCustomer,
  saveCard,
  startSubscriptionShop,
  subscribe,
  type SubscriptionShop,
} from './helpers.js';

// A subscription whose card went while no other card was left (removed by its owner, or pruned when
// it expired) has no card: its renewal fails, and the mail asks the customer to save a new one. The
// card they save next is the one it is paid with: a subscription without a card, or one whose renewal
// was declined (FAILED), takes the client's card saved after it, so that the renewal (or its retry)
// charges it instead of failing until the subscription lapses.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());
afterEach(async () => {
  await s.everypay.releaseCallbacks();
  await s.everypay.callbacksIdle();
});

const subscriptionsOf = async (customer: TestCustomer) => {
  const response = await call(s, customer, 'GET', '/subscription');
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { id: number; status: string; cardId: number | null; currentPeriodEnd: string }[];
};

/** A paying SHELF5 subscriber whose only card is then taken away (`how`): the subscription is left with none. */
async function subscriberWithoutCard(how: 'removed' | 'expired') {
  const customer = await createCustomer(s.t.database.db);
  const only = await saveCard(s, customer);
  await s.everypay.callbacksIdle();
  const made = await subscribe(s, customer, 'SHELF5');
  expect(made.statusCode, made.body).toBe(201);
  expect(made.json()).toMatchObject({ status: 'ACTIVE', cardId: only });
  if (how === 'removed') expect((await call(s, customer, 'DELETE', `/subscription-credit-card/${only}`)).statusCode).toBe(204);
  else {
    await s.t.database.db.updateTable('subscription_card').set({ expiry_year: 2000 }).where('id', '=', only).execute();
    await subscriptionCardPruning(s.t.database.db, Date.now());
  }
  expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id: made.json().id, cardId: null })]);
  return { customer, id: made.json().id as number, end: Date.parse(made.json().currentPeriodEnd) };
}

describe('a subscription left without a card', () => {
  it.each(['removed', 'expired'] as const)('its only card %s: the card saved next pays its renewal', async (how) => {
    const { customer, id, end } = await subscriberWithoutCard(how);
    const saved = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'ACTIVE', cardId: saved })]);
    await bill(s, end + 1000);
    const [renewed] = await subscriptionsOf(customer);
    expect(renewed).toMatchObject({ id, status: 'ACTIVE', cardId: saved });
    expect(Date.parse(renewed!.currentPeriodEnd)).toBeGreaterThan(end);
    expect((await chargesOf(s, id)).map((charge) => [charge.period_number, charge.state])).toEqual([
      [1, 'settled'],
      [2, 'settled'],
    ]);
  });

  it('whose renewal failed for want of a card: the card saved then pays the retry', async () => {
    const { customer, id, end } = await subscriberWithoutCard('removed');
    // The run records a charge with no gateway to send it to; its next look-up finds it cannot be paid.
    await bill(s, end + 1000);
    await billStalePending(s, id);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'FAILED', cardId: null })]);
    const saved = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    const [failed] = await subscriptionsOf(customer);
    expect(failed).toMatchObject({ id, status: 'FAILED', cardId: saved });
    await bill(s, end + 2 * 86_400_000);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'ACTIVE', cardId: saved })]);
  });

  it('whose renewal was declined: the card saved then pays the retry, not the declined one again', async () => {
    const customer = await createCustomer(s.t.database.db);
    const declined = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    const made = await subscribe(s, customer, 'SHELF5');
    expect(made.statusCode, made.body).toBe(201);
    const { id } = made.json() as { id: number };
    const end = Date.parse(made.json().currentPeriodEnd);
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'failed');
    await bill(s, end + 1000);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'FAILED', cardId: declined })]);
    const saved = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'FAILED', cardId: saved })]);
    await bill(s, end + 86_400_000);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'ACTIVE', cardId: saved })]);
    expect((await chargesOf(s, id)).map((charge) => [charge.period_number, charge.state])).toEqual([
      [1, 'settled'],
      [2, 'failed'],
      [2, 'settled'],
    ]);
  });

  it('its renewal fails in the run that finds it due, not an hour later: it is FAILED, and a cancel is not told a payment is pending', async () => {
    const { customer, id, end } = await subscriberWithoutCard('removed');
    const report = await bill(s, end + 1000);
    expect(report).toMatchObject({ failed: 1, pending: 0 });
    expect((await chargesOf(s, id)).map((charge) => [charge.period_number, charge.state])).toEqual([
      [1, 'settled'],
      [2, 'failed'],
    ]);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'FAILED', cardId: null })]);
    const cancelled = await call(s, customer, 'DELETE', `/subscription/${id}`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({ id, status: 'ENDED' });
  });

  it("another client's new card is not given to it, nor is a card of the same client given to a subscription that has one", async () => {
    const { customer, id } = await subscriberWithoutCard('removed');
    const other = await createCustomer(s.t.database.db);
    const othersCard = await saveCard(s, other);
    await s.everypay.callbacksIdle();
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, cardId: null })]);
    // The same client with a card on its other subscription: that one keeps its card.
    const first = await saveCard(s, customer);
    const audio = await subscribe(s, customer, 'AUDIO1', first);
    expect(audio.statusCode, audio.body).toBe(201);
    const second = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    const subs = await subscriptionsOf(customer);
    expect(subs.map((sub) => [sub.id, sub.cardId]).sort()).toEqual(
      [
        [id, first],
        [audio.json().id, first],
      ].sort(),
    );
    expect(second).not.toBe(first);
    expect(othersCard).not.toBe(first);
  });
});
