import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';
import { expectErrorBody } from '../helpers/http.js';
import { createForm, placeCardOrder, settleEveryPay, startEveryPayShop, viewOrder, type EveryPayShop } from './everypay-helpers.js';
import { storedRateLimitKey } from '../../src/infra/rate-limit.js';

keepEachTestInOneRateLimitWindow();

// What counts against a callback's sending address (PAYMENT_CALLBACK_RATE_LIMIT_PER_IP, 2 an hour
// here): a callback naming no payment EveryPay shows the shop. A payment EveryPay does show is no
// forgery, though the shop may not know it (another system's on the same account): genuine callbacks
// all come from EveryPay's few servers, and counting those held up the shop's own after the limit.

let s: EveryPayShop;
beforeAll(async () => {
  s = await startEveryPayShop({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '2/1h', PAYMENT_CALLBACK_GATEWAY_PAUSE: '1s' });
});
afterEach(() => settleEveryPay(s));
afterAll(() => s?.close());

// A look-up that meets EveryPay down pauses the next ones (callback-outage-pause.test.ts); a callback
// after the pause (a test before may have left one) is asked of EveryPay again, so what it counts shows.
const afterPause = () => sleep(1100);

const callback = (reference: string, ip: string) =>
  s.t.app.inject({ method: 'POST', url: '/payment/everypay/callback', remoteAddress: ip, payload: { payment_reference: reference } });

it("EveryPay's callbacks of payments the shop does not know are 404s that do not hold up its callbacks of the shop's own", async () => {
  const everypay = '198.51.100.7';
  // Payments another system made on the shop's EveryPay account (invoices, say): EveryPay calls back for them too.
  for (let i = 0; i < 3; i += 1) {
    const stranger = s.everypay.addPayment({ orderReference: `INV-${i}`, amountCents: 1500, state: 'settled' });
    expectErrorBody(await callback(stranger.reference, everypay), 404, 'Not Found');
  }
  const order = await placeCardOrder(s);
  const { reference } = await createForm(s, order);
  s.everypay.holdCallbacks();
  await s.everypay.settle(reference);
  const paid = await callback(reference, everypay);
  expect(paid.statusCode, paid.body).toBe(200);
  expect(await viewOrder(s.t, order)).toMatchObject({ status: 'PENDING_PROCESSING', jobs: 1 });
});

/** The wrong callbacks counted against an address in the current window. */
async function countedAgainst(address: string): Promise<number> {
  const key = storedRateLimitKey(`callback-miss:ip:${address}`);
  const row = await s.t.database.db.selectFrom('rate_limit').select('hits').where('key', '=', key).executeTakeFirst();
  return row?.hits ?? 0;
}

it('callbacks whose payment EveryPay refuses to show count against their address, and are refused before EveryPay is asked', async () => {
  const sender = '203.0.113.77';
  s.everypay.breakApi({ status: 422, body: '{"error":{"code":4220,"message":"payment_reference is invalid"}}' });
  const answers = [];
  for (let i = 0; i < 3; i += 1) answers.push(await callback(`forged${i}`, sender));
  expect(answers.map((answer) => answer.statusCode)).toEqual([503, 503, 429]);
  expectErrorBody(answers[2]!, 429, 'Too Many Requests');
  expect(s.everypay.requests.filter((request) => request.path.startsWith('/api/v4/payments/forged'))).toHaveLength(2);
  expect(await countedAgainst(sender)).toBe(2);
});

it('callbacks that meet EveryPay throttling the shop (429) count nothing against their address', async () => {
  const sender = '203.0.113.78';
  s.everypay.breakApi({ status: 429, body: '{"error":{"code":4290,"message":"Too many requests"}}' });
  const answers = [];
  for (let i = 0; i < 3; i += 1) {
    await afterPause();
    answers.push(await callback(`throttled${i}`, sender));
  }
  expect(answers.map((answer) => answer.statusCode)).toEqual([503, 503, 503]);
  expect(s.everypay.requests.filter((request) => request.path.startsWith('/api/v4/payments/throttled'))).toHaveLength(3);
});

it("callbacks that meet EveryPay refusing the shop's own credentials (401) count nothing against their address", async () => {
  const sender = '203.0.113.79';
  s.everypay.breakApi({ status: 401, body: '{"error":{"code":4010,"message":"Unauthorized"}}' });
  const answers = [];
  for (let i = 0; i < 3; i += 1) {
    await afterPause();
    answers.push(await callback(`unauthorized${i}`, sender));
  }
  expect(answers.map((answer) => answer.statusCode)).toEqual([503, 503, 503]);
  expect(s.everypay.requests.filter((request) => request.path.startsWith('/api/v4/payments/unauthorized'))).toHaveLength(3);
  expect(await countedAgainst(sender)).toBe(0);
});
