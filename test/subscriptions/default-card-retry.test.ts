import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { TestCustomer } from '../helpers/customers.js';
import {
  bill,
  call,
  chargesOf,
  createCustomer,
  DAY,
  mitPayments,
  saveCard,
  startSubscriptionShop,
  subscribe,
  type SubscriptionShop,
} from './helpers.js';

// A subscriber whose renewal was declined makes another of their saved cards the default, as the
// billing-failed mail asks them to see to their card. The retries went on charging the declined card
// (each retry declined again, until the subscription lapsed): a subscription retrying a declined renewal
// (FAILED) is paid with the card the customer chose since, as it is with a card they save then
// (card-after-none.test.ts). A subscription being paid as it should keeps its own card: the default is
// the card new subscriptions are paid with.

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

/** A client with two saved cards, the first the default, each with its EveryPay token. */
async function clientWithTwoCards() {
  const customer = await createCustomer(s.t.database.db);
  const first = await saveCard(s, customer);
  const firstToken = s.everypay.cards().at(-1)!.token;
  const second = await saveCard(s, customer);
  const secondToken = s.everypay.cards().at(-1)!.token;
  await s.everypay.callbacksIdle();
  return { customer, first, firstToken, second, secondToken };
}

const tokensCharged = (id: number) => mitPayments(s, id).map((request) => (request.body as Record<string, unknown>).token);

it('a renewal declined, another saved card made the default: the retry charges that card', async () => {
  const { customer, first, firstToken, second, secondToken } = await clientWithTwoCards();
  const made = await subscribe(s, customer, 'SHELF5');
  expect(made.statusCode, made.body).toBe(201);
  const { id } = made.json() as { id: number };
  expect(made.json()).toMatchObject({ cardId: first });
  const end = Date.parse(made.json().currentPeriodEnd);
  s.everypay.setCardOutcome(firstToken, 'failed');
  await bill(s, end + 1000);
  expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'FAILED', cardId: first })]);

  const chosen = await call(s, customer, 'PUT', `/subscription-credit-card/${second}/default`);
  expect(chosen.statusCode, chosen.body).toBe(200);
  await bill(s, end + DAY);
  // The first month, the declined renewal, then its retry.
  expect(tokensCharged(id)).toEqual([firstToken, firstToken, secondToken]);
  expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'ACTIVE', cardId: second })]);
  expect((await chargesOf(s, id)).map((charge) => [charge.period_number, charge.state])).toEqual([
    [1, 'settled'],
    [2, 'failed'],
    [2, 'settled'],
  ]);
});

it('a subscription paid as it should keeps its card when another becomes the default', async () => {
  const { customer, first, firstToken, second } = await clientWithTwoCards();
  const made = await subscribe(s, customer, 'SHELF5');
  expect(made.statusCode, made.body).toBe(201);
  const { id } = made.json() as { id: number };
  const end = Date.parse(made.json().currentPeriodEnd);
  expect((await call(s, customer, 'PUT', `/subscription-credit-card/${second}/default`)).statusCode).toBe(200);
  expect(await subscriptionsOf(customer)).toEqual([expect.objectContaining({ id, status: 'ACTIVE', cardId: first })]);
  await bill(s, end + 1000);
  expect(tokensCharged(id)).toEqual([firstToken, firstToken]);
});
