import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';
import {
  call,
  createCustomer,
  DAY,
  halfWayAudio1,
  MIT_PATH,
  saveCard,
  startSubscriptionShop,
  subscribe,
  type SubscriptionShop,
} from './helpers.js';

keepEachTestInOneRateLimitWindow();

// Subscribing to a plan without a trial charges the saved card at once. A declined charge answers 409
// and leaves an ENDED subscription, and the next request charges the card again: without a limit a
// client could retry a declined card at the gateway without end, which card schemes fine merchants
// for. POST /subscription is limited per client (SUBSCRIBE_RATE_LIMIT_PER_CLIENT; 429, Retry-After),
// and every request counts, not only those that reach the gateway.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop({ SUBSCRIBE_RATE_LIMIT_PER_CLIENT: '3/1h' });
});
afterAll(async () => {
  await s.everypay.callbacksIdle();
  await s.close();
});

const charges = () => s.everypay.requests.filter((request) => request.path === MIT_PATH).length;
const subscriptionRows = async () => (await s.t.database.db.selectFrom('subscription').select('id').execute()).length;

describe('POST /subscription past its limit', () => {
  it('a client whose card is declined again and again gets a 429 with Retry-After, and the card is not charged again', async () => {
    const customer = await createCustomer(s.t.database.db);
    await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'failed');
    for (let i = 0; i < 3; i += 1) {
      const declined = await subscribe(s, customer, 'SHELF5');
      expect(declined.statusCode, declined.body).toBe(409);
    }
    const [before, rows] = [charges(), await subscriptionRows()];
    expect(before).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < 2; i += 1) {
      const refused = await subscribe(s, customer, 'SHELF5');
      expectErrorBody(refused, 429, 'Too Many Requests');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
    }
    expect(charges()).toBe(before);
    expect(await subscriptionRows()).toBe(rows);

    // Another client is not held back by this one's limit.
    const other = await createCustomer(s.t.database.db);
    await saveCard(s, other);
    await s.everypay.callbacksIdle();
    const subscribed = await subscribe(s, other, 'SHELF5');
    expect(subscribed.statusCode, subscribed.body).toBe(201);
  });

  it('counts requests that never reach the gateway too: a client without a card is refused 422 three times, then 429', async () => {
    const customer = await createCustomer(s.t.database.db);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await subscribe(s, customer, 'SHELF5')).statusCode);
    expect(statuses).toEqual([422, 422, 422, 429]);
  });

  it('a request refused by validation (no plan) is not counted', async () => {
    const customer = await createCustomer(s.t.database.db);
    for (let i = 0; i < 4; i += 1) expect((await call(s, customer, 'POST', '/subscription', {})).statusCode).toBe(422);
    expect((await subscribe(s, customer, 'SHELF5')).statusCode).toBe(422);
  });
});

describe('PUT /subscription/{id}/plan counts against the same limit', () => {
  it('an upgrade declined again and again: 409 while the limit lasts (the subscribe counted too), then 429 and no more charges', async () => {
    const { customer, id, token } = await halfWayAudio1(s, 16 * DAY);
    s.everypay.setCardOutcome(token, 'failed');
    const upgrade = () => call(s, customer, 'PUT', `/subscription/${id}/plan`, { planId: s.plans.AUDIOMAX });
    // The subscription itself was the first of the client's three requests.
    for (let i = 0; i < 2; i += 1) expect((await upgrade()).statusCode).toBe(409);
    const before = charges();
    const refused = await upgrade();
    expectErrorBody(refused, 429, 'Too Many Requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(charges()).toBe(before);
  });
});
