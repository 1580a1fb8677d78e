import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionCardPruning } from '../../src/modules/subscriptions/index.js';
import type { TestCustomer } from '../helpers/customers.js';
import { expectFieldErrors } from '../helpers/http.js';
import { call, createCustomer, saveCard, startSubscriptionShop, subscribe, subscriptionRow, type SubscriptionShop } from './helpers.js';
import { withTableHeld } from '../helpers/lock-waits.js';

// A card that goes (removed by its owner, or pruned when it expired) leaves no subscription naming
// it and no client without a default card while it has a usable one. POST /subscription takes the
// client account's lock before it reads the card, as every writer of the client's cards does, so
// a removal at the same moment is either seen by it (refused as the card gone) or sees the new
// subscription (and moves it to the card left). Forced on PostgreSQL as card-default-race.test.ts
// does: the subscription table is held (read, not written) until both requests wait on a lock, by
// which time, without the client's lock, the subscribe has read the card and the removal has read
// the subscriptions it moves. SQLite runs one write transaction at a time; there the two just run
// at once, and the sequential tests below hold on both engines.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());
afterEach(async () => {
  await s.everypay.releaseCallbacks();
  await s.everypay.callbacksIdle();
});

const listed = async (customer: TestCustomer) => {
  const response = await call(s, customer, 'GET', '/subscription-credit-card');
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { id: number; isDefault: boolean }[];
};

const subscriptionsOf = async (customer: TestCustomer) => {
  const response = await call(s, customer, 'GET', '/subscription');
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { id: number; status: string; cardId: number | null; plan: { code: string } }[];
};

/** A client with two saved cards (the first the default), whose charges settle. */
async function twoCards() {
  const customer = await createCustomer(s.t.database.db);
  const first = await saveCard(s, customer);
  const second = await saveCard(s, customer);
  await s.everypay.callbacksIdle();
  for (const card of s.everypay.cards().slice(-2)) s.everypay.setCardOutcome(card.token, 'settled');
  expect(await listed(customer)).toEqual([
    expect.objectContaining({ id: first, isDefault: true }),
    expect.objectContaining({ id: second, isDefault: false }),
  ]);
  return { customer, first, second };
}

const expire = (id: number) => s.t.database.db.updateTable('subscription_card').set({ expiry_year: 2000 }).where('id', '=', id).execute();

describe('POST /subscription and DELETE of its card at once', () => {
  it.each(['named', 'the default'] as const)(
    'the card %s (PostgreSQL: both past their reads): the subscription names a live card, or the subscribe was refused',
    async (which) => {
      const { customer, first, second } = await twoCards();
      const [subscribed, removed] = await withTableHeld(s.t.database.db, 'subscription', () =>
        Promise.all([
          subscribe(s, customer, 'SHELF5', which === 'named' ? first : undefined),
          call(s, customer, 'DELETE', `/subscription-credit-card/${first}`),
        ]),
      );
      await s.everypay.callbacksIdle();
      expect(removed.statusCode, removed.body).toBe(204);
      expect(await listed(customer)).toEqual([expect.objectContaining({ id: second, isDefault: true })]);
      const subs = await subscriptionsOf(customer);
      if (subscribed.statusCode === 201) {
        // Subscribed before the removal: the removal moved it to the card left.
        expect(subs).toEqual([expect.objectContaining({ id: subscribed.json().id, status: 'ACTIVE', cardId: second })]);
      } else {
        // The removal first: the card named (or the default read) is gone, and nothing was subscribed.
        expect(expectFieldErrors(subscribed)).toEqual(['cardId']);
        expect(subs).toEqual([]);
      }
    },
  );

  it('one after the other: a removed card is refused (422 cardId); a subscription made first moves to the card left', async () => {
    const { customer, first, second } = await twoCards();
    expect((await call(s, customer, 'DELETE', `/subscription-credit-card/${first}`)).statusCode).toBe(204);
    expect(expectFieldErrors(await subscribe(s, customer, 'SHELF5', first))).toEqual(['cardId']);
    expect(await subscriptionsOf(customer)).toEqual([]);
    const other = await twoCards();
    const made = await subscribe(s, other.customer, 'SHELF5', other.first);
    expect(made.statusCode, made.body).toBe(201);
    expect((await call(s, other.customer, 'DELETE', `/subscription-credit-card/${other.first}`)).statusCode).toBe(204);
    expect(await subscriptionsOf(other.customer)).toEqual([expect.objectContaining({ id: made.json().id, cardId: other.second })]);
    // The first client's default is the card left: a subscription without a card named is paid with it.
    const later = await subscribe(s, customer, 'SHELF5');
    expect(later.statusCode, later.body).toBe(201);
    expect(later.json()).toMatchObject({ status: 'ACTIVE', cardId: second });
  });
});

describe('pruning expired cards', () => {
  it("the default card expired: the newest usable card is the default, and the expired cards' subscriptions move to it", async () => {
    const customer = await createCustomer(s.t.database.db);
    const [a, b, c, d] = [
      await saveCard(s, customer),
      await saveCard(s, customer),
      await saveCard(s, customer),
      await saveCard(s, customer),
    ];
    await s.everypay.callbacksIdle();
    for (const card of s.everypay.cards().slice(-4)) s.everypay.setCardOutcome(card.token, 'settled');
    expect((await listed(customer)).map((card) => [card.id, card.isDefault])).toEqual([
      [a, true],
      [b, false],
      [c, false],
      [d, false],
    ]);
    const shelf = await subscribe(s, customer, 'SHELF5', a);
    const audio = await subscribe(s, customer, 'AUDIO1', d);
    expect([shelf.statusCode, audio.statusCode]).toEqual([201, 201]);
    // The default card and the newest one expire: c is the newest still usable.
    await expire(a);
    await expire(d);
    expect(await subscriptionCardPruning(s.t.database.db, Date.now())).toBeGreaterThanOrEqual(2);
    expect((await listed(customer)).map((card) => [card.id, card.isDefault])).toEqual([
      [b, false],
      [c, true],
    ]);
    const subs = await subscriptionsOf(customer);
    expect(subs.map((sub) => [sub.id, sub.cardId]).sort()).toEqual(
      [
        [shelf.json().id, c],
        [audio.json().id, c],
      ].sort(),
    );
    // The new default is the default as any: removing the other card leaves it so.
    expect((await call(s, customer, 'DELETE', `/subscription-credit-card/${b}`)).statusCode).toBe(204);
    expect(await listed(customer)).toEqual([expect.objectContaining({ id: c, isDefault: true })]);
  });

  it('a card that is not the default expired: the default stays, and its subscription moves to the default', async () => {
    const { customer, first, second } = await twoCards();
    const sub = await subscribe(s, customer, 'SHELF5', second);
    expect(sub.statusCode, sub.body).toBe(201);
    await expire(second);
    await subscriptionCardPruning(s.t.database.db, Date.now());
    expect(await listed(customer)).toEqual([expect.objectContaining({ id: first, isDefault: true })]);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id: sub.json().id, cardId: first })]);
  });

  it("the client's only card expired: no card is left, and its subscription has none (as after a removal)", async () => {
    const customer = await createCustomer(s.t.database.db);
    const only = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'settled');
    const sub = await subscribe(s, customer, 'SHELF5');
    expect(sub.statusCode, sub.body).toBe(201);
    await expire(only);
    await subscriptionCardPruning(s.t.database.db, Date.now());
    expect(await listed(customer)).toEqual([]);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id: sub.json().id, status: 'ACTIVE', cardId: null })]);
    expect((await subscriptionRow(s, sub.json().id)).card_id).toBeNull();
  });
});

// The prune and a client's DELETE of a card at once. Both take the client account's lock before they
// read the client's cards, so one sees the other's outcome. Forced on PostgreSQL: the subscription
// table is held (read, not written) until both wait on a lock; the first write of each is the move
// of its cards' subscriptions, so without the client's lock both have read the cards by then (the
// prune choosing the newest usable card as the new default, the removal the expired default) and
// each moves subscriptions to a card the other deletes.
describe('pruning an expired default card while its owner removes another card', () => {
  it.each(['the newest usable card (the one the prune hands the default to)', 'an older usable card'] as const)(
    'DELETE of %s (PostgreSQL: both past their reads): no subscription names a deleted card, and one usable card is the default',
    async (which) => {
      const customer = await createCustomer(s.t.database.db);
      const [expired, older, newest] = [await saveCard(s, customer), await saveCard(s, customer), await saveCard(s, customer)];
      await s.everypay.callbacksIdle();
      for (const card of s.everypay.cards().slice(-3)) s.everypay.setCardOutcome(card.token, 'settled');
      const removed = which === 'an older usable card' ? older : newest;
      const kept = removed === older ? newest : older;
      const shelf = await subscribe(s, customer, 'SHELF5', expired);
      const audio = await subscribe(s, customer, 'AUDIO1', removed);
      expect([shelf.statusCode, audio.statusCode]).toEqual([201, 201]);
      expect((await listed(customer)).map((card) => [card.id, card.isDefault])).toEqual([
        [expired, true],
        [older, false],
        [newest, false],
      ]);
      await expire(expired);
      const [, deleted] = await withTableHeld(s.t.database.db, 'subscription', () =>
        Promise.all([
          subscriptionCardPruning(s.t.database.db, Date.now()),
          call(s, customer, 'DELETE', `/subscription-credit-card/${removed}`),
        ]),
      );
      expect(deleted.statusCode, deleted.body).toBe(204);
      expect(await listed(customer)).toEqual([expect.objectContaining({ id: kept, isDefault: true })]);
      const subs = await subscriptionsOf(customer);
      expect(subs.map((sub) => [sub.id, sub.cardId]).sort()).toEqual(
        [
          [shelf.json().id, kept],
          [audio.json().id, kept],
        ].sort(),
      );
      // No subscription of anyone names a card that is gone.
      const dangling = await s.t.database.db
        .selectFrom('subscription')
        .leftJoin('subscription_card', 'subscription_card.id', 'subscription.card_id')
        .select('subscription.id')
        .where('subscription.card_id', 'is not', null)
        .where('subscription_card.id', 'is', null)
        .execute();
      expect(dangling).toEqual([]);
    },
  );
});

// The card a removal (or a chargeback, which takes a card as a removal does) or a prune moves subscriptions to is
// one valid for their next renewal, or none: an expired card not pruned yet (or one that expires before the renewal
// is due) was chosen as the other saved card, and the renewal charged it and was declined, while the customer, told
// nothing, saved no new card. A client left with no usable card has no default, so a subscription made without a
// card named is refused (save a card first), not paid with an expired one.
describe('the other saved card expired', () => {
  /** This month as a card's expiry: valid today, expired by a renewal a month on. */
  const thisMonth = () => ({ expiry_year: new Date().getUTCFullYear(), expiry_month: new Date().getUTCMonth() + 1 });
  const setExpiry = (id: number, expiry: { expiry_year: number; expiry_month?: number }) =>
    s.t.database.db.updateTable('subscription_card').set(expiry).where('id', '=', id).execute();

  it.each([
    ['expired (not pruned yet)', { expiry_year: 2000 }],
    ['valid today, expired by the renewal', 'this month'],
  ] as const)('DELETE of the card a subscription renews with, the other %s: the subscription has no card', async (_, expiry) => {
    const { customer, first, second } = await twoCards();
    const sub = await subscribe(s, customer, 'SHELF5', first);
    expect(sub.statusCode, sub.body).toBe(201);
    await setExpiry(second, expiry === 'this month' ? thisMonth() : expiry);
    expect((await call(s, customer, 'DELETE', `/subscription-credit-card/${first}`)).statusCode).toBe(204);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id: sub.json().id, status: 'ACTIVE', cardId: null })]);
    if (expiry !== 'this month') {
      expect(await listed(customer)).toEqual([expect.objectContaining({ id: second, isDefault: false })]);
      expect(expectFieldErrors(await subscribe(s, customer, 'AUDIO1'))).toEqual(['cardId']);
    }
  });

  it('DELETE with an expired card and a valid one left: the subscription moves to the valid one, also when the expired one is newer', async () => {
    const { customer, first, second } = await twoCards();
    const third = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    const sub = await subscribe(s, customer, 'SHELF5', first);
    expect(sub.statusCode, sub.body).toBe(201);
    await setExpiry(third, { expiry_year: 2000 });
    expect((await call(s, customer, 'DELETE', `/subscription-credit-card/${first}`)).statusCode).toBe(204);
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id: sub.json().id, cardId: second })]);
    expect((await listed(customer)).map((card) => [card.id, card.isDefault])).toEqual([
      [second, true],
      [third, false],
    ]);
  });

  it('DELETE of the valid card while the default left has expired: no default, and a subscribe asks for a card', async () => {
    const { customer, first, second } = await twoCards();
    await setExpiry(first, { expiry_year: 2000 });
    expect((await listed(customer)).map((card) => [card.id, card.isDefault])).toEqual([
      [first, true],
      [second, false],
    ]);
    expect((await call(s, customer, 'DELETE', `/subscription-credit-card/${second}`)).statusCode).toBe(204);
    expect(await listed(customer)).toEqual([expect.objectContaining({ id: first, isDefault: false })]);
    expect(expectFieldErrors(await subscribe(s, customer, 'AUDIO1'))).toEqual(['cardId']);
  });

  it('pruning: a subscription whose card expired moves to none when the other card expires before its renewal', async () => {
    const { customer, first, second } = await twoCards();
    const sub = await subscribe(s, customer, 'SHELF5', second);
    expect(sub.statusCode, sub.body).toBe(201);
    await setExpiry(second, { expiry_year: 2000 });
    await setExpiry(first, thisMonth());
    await subscriptionCardPruning(s.t.database.db, Date.now());
    expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id: sub.json().id, cardId: null })]);
    // Still the default: it is valid today, for a subscription renewing before its expiry's end.
    expect(await listed(customer)).toEqual([expect.objectContaining({ id: first, isDefault: true })]);
  });
});
