import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { call, createCustomer, saveCard, startSubscriptionShop, type SubscriptionShop } from './helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// Saving a card for subscriptions starts a zero-amount card check at EveryPay. A declined check may be
// followed by the next at once, so without a limit someone could test stolen cards here one after
// another: POST /subscription-credit-card is limited per client and per client address (429, Retry-After).

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop({ CARD_CHECK_RATE_LIMIT_PER_CLIENT: '3/1h', CARD_CHECK_RATE_LIMIT_PER_IP: '5/1h' });
});
afterAll(async () => s.close());

const ONEOFF = '/api/v4/payments/oneoff';
const oneoffs = () => s.everypay.requests.filter((request) => request.path === ONEOFF).length;
const cardRows = async () => (await s.t.database.db.selectFrom('subscription_card').select('id').execute()).length;

describe('POST /subscription-credit-card past its limits', () => {
  it('a client whose checks were declined one after another gets a 429 with Retry-After, and no check is started', async () => {
    const customer = await createCustomer(s.t.database.db);
    for (let i = 0; i < 3; i += 1) await saveCard(s, customer, 'decline');
    const [before, rows] = [oneoffs(), await cardRows()];
    const refused = await call(s, customer, 'POST', '/subscription-credit-card');
    expectErrorBody(refused, 429, 'Too Many Requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(oneoffs()).toBe(before);
    expect(await cardRows()).toBe(rows);
    // Another client from another address is not held back by this one's limit.
    const other = await createCustomer(s.t.database.db);
    const started = await s.t.app.inject({
      method: 'POST',
      url: '/subscription-credit-card',
      headers: { authorization: `Bearer ${other.token}` },
      remoteAddress: '203.0.113.7',
    });
    expect(started.statusCode, started.body).toBe(200);
  });

  it('one address trying cards under several clients gets a 429 once its own limit is spent', async () => {
    const from = { remoteAddress: '198.51.100.9' };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const customer = await createCustomer(s.t.database.db);
      const response = await s.t.app.inject({
        method: 'POST',
        url: '/subscription-credit-card',
        headers: { authorization: `Bearer ${customer.token}` },
        ...from,
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) expectErrorBody(response, 429, 'Too Many Requests');
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
