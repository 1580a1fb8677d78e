import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { storedRateLimitKey } from '../../src/infra/rate-limit.js';
import { expectErrorBody } from '../helpers/http.js';
import { NOT_EVERYPAYS_404, type Breakage } from '../helpers/everypay-server.js';
import { createForm, placeCardOrder, settleEveryPay, startEveryPayShop, viewOrder, type EveryPayShop } from './everypay-helpers.js';

// Callbacks while EveryPay's API is down. A callback makes the shop look its payment up at EveryPay;
// during an outage the look-up verifies nothing, so nothing tells a forged callback from a genuine one,
// and neither its address (EveryPay's few servers send the genuine ones) nor the payment it names (a
// forger names a new one each time) may refuse it. Every forged callback was a call to the failing API.
// Now the first look-up that meets the outage pauses the look-ups (PAYMENT_CALLBACK_GATEWAY_PAUSE, 2 s
// here): every callback is a 503 at once, which EveryPay retries, and its retry after the outage settles
// the order once.

const PAUSE_MS = 2000;

let s: EveryPayShop;
beforeAll(async () => {
  s = await startEveryPayShop({ PAYMENT_CALLBACK_GATEWAY_PAUSE: '2s' });
});
afterEach(() => settleEveryPay(s));
afterAll(() => s?.close());

const forged = (reference: string, ip: string) =>
  s.t.app.inject({ method: 'POST', url: '/payment/everypay/callback', remoteAddress: ip, payload: { payment_reference: reference } });
/** EveryPay API requests that looked up one of these references. */
const lookUps = (...references: string[]) =>
  s.everypay.requests.filter((request) => references.some((reference) => request.path === `/api/v4/payments/${reference}`)).length;

describe('EveryPay down while callbacks arrive', () => {
  for (const [what, breakage] of [
    ['a 502', { status: 502 }],
    ['no answer', 'hang'],
    // The shop's own credentials refused: every look-up, the genuine callbacks' too, meets it until fixed.
    ["a 401 (the shop's credentials)", { status: 401, body: '{"error":{"code":4010,"message":"Unauthorized"}}' }],
    // EVERYPAY_API_URL naming another service: its 404 is the shop's setup, not EveryPay's "no such payment".
    ["a 404 that is not EveryPay's", NOT_EVERYPAYS_404],
  ] as const satisfies ReadonlyArray<readonly [string, Breakage]>)
    it(`with ${what}: forged callbacks are 503s that ask nothing and count nothing; the genuine one's retry settles the order once`, async () => {
      const order = await placeCardOrder(s);
      const { reference } = await createForm(s, order);
      s.everypay.holdCallbacks();
      await s.everypay.shopper(reference, 'pay');
      s.everypay.breakApi(breakage);
      const [genuine] = await s.everypay.releaseCallbacks();
      expect(genuine!.status).toBe(503);
      expect(lookUps(reference)).toBe(1);

      // A flood of forged callbacks from many addresses, each naming a payment of its own.
      const references = Array.from({ length: 40 }, (_, i) => `forged-${typeof breakage === 'string' ? breakage : breakage.status}-${i}`);
      const answers = await Promise.all(references.map((forgedReference, i) => forged(forgedReference, `203.0.113.${i % 8}`)));
      expect(lookUps(...references)).toBe(0);
      for (const answer of answers) {
        expectErrorBody(answer, 503, 'Service Unavailable');
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(PAUSE_MS / 1000);
      }
      // Counters are stored by a hash of their key (infra/rate-limit.ts): looked for by it, neither the
      // payments named nor the senders' addresses have one.
      const keys = [
        ...references.map((forgedReference) => `callback:payment:everypay:${forgedReference}`),
        ...Array.from({ length: 8 }, (_, i) => `callback-miss:ip:203.0.113.${i}`),
      ].map(storedRateLimitKey);
      const counted = await s.t.database.db.selectFrom('rate_limit').select('key').where('key', 'in', keys).execute();
      expect(counted).toEqual([]);

      // EveryPay is back, but the pause is not over: its retry is a 503 too, and the order has not moved.
      s.everypay.breakApi(null);
      const [early] = await s.everypay.notify(reference);
      expect(early!.status).toBe(503);
      expect(lookUps(reference)).toBe(1);
      expect(await viewOrder(s.t, order)).toMatchObject({ status: 'PENDING_PAYMENT', jobs: 0, inbox: [] });

      await sleep(PAUSE_MS + 100);
      const [retried] = await s.everypay.notify(reference);
      expect(retried!.status, retried!.answer).toBe(200);
      const [again] = await s.everypay.notify(reference);
      expect(again!.status, again!.answer).toBe(200);
      expect(await viewOrder(s.t, order)).toMatchObject({
        status: 'PENDING_PROCESSING',
        moves: ['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING'],
        jobs: 1,
      });
      expect((await viewOrder(s.t, order)).inbox).toHaveLength(1);
    });

  it('after the pause, one callback at a time asks EveryPay; still down, it starts a new pause', async () => {
    s.everypay.breakApi('hang');
    expectErrorBody(await forged('first', '198.51.100.1'), 503, 'Service Unavailable');
    await sleep(PAUSE_MS + 100);
    // The first of these asks (and waits for EveryPay's timeout); the others are answered at once.
    const references = Array.from({ length: 10 }, (_, i) => `probe${i}`);
    const answers = await Promise.all(references.map((reference) => forged(reference, '198.51.100.2')));
    expect(answers.map((answer) => answer.statusCode)).toEqual(references.map(() => 503));
    expect(lookUps('first', ...references)).toBe(2);
    expectErrorBody(await forged('later', '198.51.100.3'), 503, 'Service Unavailable');
    expect(lookUps('later')).toBe(0);

    // Back, and the pause over: a callback asks again, and the next ones do too.
    s.everypay.breakApi(null);
    await sleep(PAUSE_MS + 100);
    expectErrorBody(await forged('after', '198.51.100.4'), 404, 'Not Found');
    expectErrorBody(await forged('after2', '198.51.100.4'), 404, 'Not Found');
    expect(lookUps('after', 'after2')).toBe(2);
  });
});
