import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createCustomer, startSubscriptionShop, type SubscriptionShop } from './helpers.js';

// A shopper back from EveryPay's card page makes the shop look the card's payment up. Those returns
// share the pause of EveryPay's look-ups with the callbacks and the orders' returns (payments'
// look-up-pauses.ts): while EveryPay is known to be down a return asks nothing, and the card is saved
// by a later return or its callback. Before, each return during an outage asked the failing gateway.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop({ PAYMENT_CALLBACK_GATEWAY_PAUSE: '1s' });
});
afterAll(async () => s.close());

describe('card returns while EveryPay is down', () => {
  it('a return that meets the outage pauses the look-ups: the next return and the callback ask nothing; after it the card is saved once', async () => {
    const customer = await createCustomer(s.t.database.db);
    const started = await call(s, customer, 'POST', '/subscription-credit-card');
    expect(started.statusCode, started.body).toBe(200);
    const reference = (started.json() as { fields: Record<string, string> }).fields.payment_reference!;
    const lookUps = () => s.everypay.requests.filter((request) => request.path === `/api/v4/payments/${reference}`).length;
    s.everypay.holdCallbacks();
    const back = await s.everypay.shopper(reference, 'pay');
    const returns = async () => {
      const response = await fetch(back, { redirect: 'manual' });
      expect(response.status).toBe(303);
      return new URL(response.headers.get('location')!, 'http://frontend.invalid').searchParams.get('saved');
    };
    s.everypay.breakApi({ status: 502 });
    try {
      // The return's look-up meets EveryPay down: the shopper is sent on, the card not saved yet.
      expect(await returns()).toBe('false');
      expect(lookUps()).toBe(1);
      // During the pause: a second return and EveryPay's callback ask nothing (the callback is a 503 EveryPay retries).
      expect(await returns()).toBe('false');
      const [callback] = await s.everypay.releaseCallbacks();
      expect(callback!.status).toBe(503);
      expect(lookUps()).toBe(1);
    } finally {
      s.everypay.breakApi(null);
    }
    // EveryPay back and the pause over: the return saves the card; the callback's retry then changes nothing.
    await sleep(1100);
    expect(await returns()).toBe('true');
    expect(lookUps()).toBe(2);
    const [retried] = await s.everypay.notify(reference);
    expect(retried!.status).toBe(200);
    const cards = (await call(s, customer, 'GET', '/subscription-credit-card')).json() as unknown[];
    expect(cards).toHaveLength(1);
  });
});
