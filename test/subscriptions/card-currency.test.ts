import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { answers } from '../helpers/everypay-order.js';
import { call, createCustomer, releaseHeldCallbacks, startSubscriptionShop, type SubscriptionShop } from './helpers.js';

// A card is saved only by its own card-saving payment in euros on the shop's own EveryPay processing
// account, as an order (test/orders/payment-currency.test.ts) and a charge (charge-currency.test.ts) are
// paid: a token saved on another of the merchant's accounts is one the shop's account cannot charge.
// Whether the shopper's return or EveryPay's callback brings the word first, nothing is saved, and the
// callback is answered as a mismatch (handled), not as an unknown payment. The card is declined, so that
// the customer's next try starts a payment of its own rather than being sent back to the finished one.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop({}, { everypay: { otherAccounts: { USD3D1: 'USD', EUR9: 'EUR' } } });
});
afterEach(() => releaseHeldCallbacks(s));
afterAll(() => s.close());

type WordFirst = 'return first' | 'callback first';

/**
 * A customer starts saving a card, EveryPay holds that payment on `account` (in its currency), and the
 * shopper pays and comes back before or after EveryPay's callback is delivered. Answers the card's id,
 * where the browser was sent and the callbacks' answers.
 */
async function cardSavedOn(account: { accountName: string; currency: string }, first: WordFirst) {
  const customer = await createCustomer(s.t.database.db);
  const started = await call(s, customer, 'POST', '/subscription-credit-card');
  expect(started.statusCode, started.body).toBe(200);
  const reference = (started.json() as { fields: Record<string, string> }).fields.payment_reference!;
  Object.assign(s.everypay.payment(reference)!, account);
  s.everypay.holdCallbacks();
  const returnUrl = await s.everypay.shopper(reference, 'pay');
  const callbacksFirst = first === 'callback first' ? answers(await s.everypay.releaseCallbacks()) : [];
  const back = await fetch(returnUrl, { redirect: 'manual' });
  expect(back.status).toBe(303);
  const location = new URL(back.headers.get('location')!, 'http://frontend.invalid');
  const callbacks = first === 'callback first' ? callbacksFirst : answers(await s.everypay.releaseCallbacks());
  expect(s.everypay.payment(reference)).toMatchObject({ state: 'settled', ...account });
  expect(s.everypay.payment(reference)!.card).toBeTruthy();
  const cardId = Number(location.searchParams.get('cardId'));
  const listed = await call(s, customer, 'GET', '/subscription-credit-card');
  return { customer, reference, cardId, saved: location.searchParams.get('saved'), callbacks, listed: listed.json() as unknown[] };
}

const cardRow = (id: number) =>
  s.t.database.db.selectFrom('subscription_card').select(['state', 'token', 'last_four']).where('id', '=', id).executeTakeFirstOrThrow();

const ORDERS: WordFirst[] = ['return first', 'callback first'];

it.each(ORDERS)('a card-saving payment EveryPay settled in dollars saves no card (%s)', async (first) => {
  const { cardId, saved, listed, callbacks } = await cardSavedOn({ accountName: 'USD3D1', currency: 'USD' }, first);
  expect(callbacks).toEqual([[200, { outcome: 'mismatch' }]]);
  expect(saved).toBe('false');
  expect(listed).toEqual([]);
  expect(await cardRow(cardId)).toEqual({ state: 'DECLINED', token: null, last_four: null });
});

it('after a mismatch, the next try at once starts a payment of its own', async () => {
  const { customer, reference } = await cardSavedOn({ accountName: 'USD3D1', currency: 'USD' }, 'return first');
  const again = await call(s, customer, 'POST', '/subscription-credit-card');
  expect(again.statusCode, again.body).toBe(200);
  const next = (again.json() as { fields: Record<string, string> }).fields.payment_reference!;
  expect(next).not.toBe(reference);
  expect(s.everypay.payment(next)).toMatchObject({ state: 'initial' });
});

it.each(ORDERS)("a card-saving payment in euros on another of the merchant's accounts saves no card either (%s)", async (first) => {
  const { cardId, saved, listed, callbacks } = await cardSavedOn({ accountName: 'EUR9', currency: 'EUR' }, first);
  expect(callbacks).toEqual([[200, { outcome: 'mismatch' }]]);
  expect(saved).toBe('false');
  expect(listed).toEqual([]);
  expect(await cardRow(cardId)).toEqual({ state: 'DECLINED', token: null, last_four: null });
});

it.each(ORDERS)("the shop's own euro account saves the card (the same steps, %s)", async (first) => {
  const { cardId, saved, listed, callbacks } = await cardSavedOn({ accountName: s.everypay.accountName, currency: 'EUR' }, first);
  expect(saved).toBe('true');
  expect(listed).toHaveLength(1);
  expect(await cardRow(cardId)).toMatchObject({ state: 'ACTIVE' });
  expect(callbacks).toEqual([[200, { outcome: 'applied' }]]);
});
