import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createForm, pageOf, placeCardOrder, startEveryPayShop, type EveryPayShop } from './everypay-helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// The shopper's return (/bank/return-internal) asks EveryPay's API, on the merchant's credentials,
// how the order's payment stands. Anyone holding an order's link can repeat it: it is limited per
// address, and an order no longer waiting for its payment is answered without asking.

let s: EveryPayShop;

beforeAll(async () => {
  // Hour-long windows: a minute's boundary between two of a test's requests would start the count again.
  s = await startEveryPayShop({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '3/1h' });
});
afterAll(async () => s?.close());

const returnOf = (order: { orderId: number; checksum: string }, ip: string) =>
  s.t.app.inject({ method: 'GET', url: `/bank/return-internal?orderId=${order.orderId}&checksum=${order.checksum}`, remoteAddress: ip });

it('returns past the limit are a 429 before EveryPay is asked; another address goes on', async () => {
  const order = await placeCardOrder(s);
  await createForm(s, order);
  const before = s.everypay.requests.length;
  const answers = [];
  for (let i = 0; i < 4; i += 1) answers.push(await returnOf(order, '203.0.113.40'));
  expect(answers.map((answer) => answer.statusCode)).toEqual([303, 303, 303, 429]);
  expectErrorBody(answers[3]!, 429, 'Too Many Requests');
  // The order still waits for its payment: each return within the limit asked once, the refused one not.
  expect(s.everypay.requests.length - before).toBe(3);
  expect((await returnOf(order, '203.0.113.41')).statusCode).toBe(303);
  expect(s.everypay.requests.length - before).toBe(4);
});

it("a paid or a declined order's return asks EveryPay nothing and still lands on its page", async () => {
  const paid = await placeCardOrder(s);
  await s.everypay.shopper((await createForm(s, paid)).reference, 'pay');
  const declined = await placeCardOrder(s);
  await s.everypay.shopper((await createForm(s, declined)).reference, 'decline');
  await s.everypay.callbacksIdle();
  const before = s.everypay.requests.length;
  const finished = await returnOf(paid, '203.0.113.42');
  expect(finished.statusCode).toBe(303);
  expect(pageOf(s.t, finished.headers.location as string)).toBe('finished');
  const failed = await returnOf(declined, '203.0.113.42');
  expect(failed.statusCode).toBe(303);
  expect(pageOf(s.t, failed.headers.location as string)).toBe('failed');
  expect(s.everypay.requests.slice(before)).toEqual([]);
});
