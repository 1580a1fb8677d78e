import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { openCreateForm } from './purchase-helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// What an anonymous client can repeat is limited per address: checkouts, gateway callbacks that
// name no payment, and returns from the card-saving page (each of which can make the service call
// the gateway); callbacks naming one payment are limited per payment, and genuine callbacks are
// never refused for the address they come from (the gateway's few servers send all of them).

let t: TestApp;
let shop: Shop;

beforeAll(async () => {
  // Hour-long windows: the windows are fixed, so a minute's boundary between two of a test's requests
  // started the count again (CI on PostgreSQL once saw 200, 200, 200).
  ({ t } = await createListeningApp({
    env: {
      CHECKOUT_RATE_LIMIT_PER_IP: '2/1h',
      PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '3/1h',
      PAYMENT_CALLBACK_RATE_LIMIT_PER_PAYMENT: '4/1h',
    },
  }));
  shop = await setUpShop(t);
});
afterAll(async () => t?.close());

it('a third checkout from one address within the window is a 429 that writes nothing; another address goes on', async () => {
  const book = await stockedBook(t, shop, 10);
  const answers = [];
  for (let i = 0; i < 3; i += 1) answers.push(await checkout(t, await fill(t, { ip: '198.51.100.20' }, [[book, 1]]), checkoutForm(shop)));
  expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 429]);
  expectErrorBody(answers[2]!, 429, 'Too Many Requests');
  expect(Number(answers[2]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  const orders = await t.database.db.selectFrom('customer_order').select('id').execute();
  expect(orders).toHaveLength(2);
  const other = await checkout(t, await fill(t, { ip: '198.51.100.21' }, [[book, 1]]), checkoutForm(shop));
  expect(other.statusCode).toBe(200);
});

it('callbacks past the limit are a 429 before the gateway is asked', async () => {
  const post = () =>
    t.app.inject({
      method: 'POST',
      url: '/payment/test/callback',
      remoteAddress: '203.0.113.30',
      payload: { payment_reference: `tgp_${'B'.repeat(24)}` },
    });
  const statuses = [];
  for (let i = 0; i < 4; i += 1) statuses.push((await post()).statusCode);
  expect(statuses).toEqual([404, 404, 404, 429]);
});

it("never refuses a genuine callback for its address; one payment's callbacks past their limit are a 429", async () => {
  const book = await stockedBook(t, shop, 20);
  const references: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    const placed = await checkout(t, await fill(t, { ip: `198.51.100.${60 + i}` }, [[book, 1]]), checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
    const form = await openCreateForm(t, orderLink((placed.json() as { location: string }).location).path);
    references.push(new URL(form.url).pathname.split('/').at(-1)!);
  }
  const callback = (reference: string, ip: string) =>
    t.app.inject({ method: 'POST', url: '/payment/test/callback', remoteAddress: ip, payload: { payment_reference: reference } });
  // The gateway's one address sends more genuine callbacks than the limit of those naming no payment (3).
  const gateway = '203.0.113.40';
  for (const reference of references) expect((await callback(reference, gateway)).statusCode).toBe(200);
  // One payment's callbacks, from any address: 4 an hour.
  const statuses = [];
  for (let i = 0; i < 4; i += 1) statuses.push((await callback(references[0]!, `203.0.113.${41 + i}`)).statusCode);
  expect(statuses).toEqual([200, 200, 200, 429]);
  // A refusal for the payment counts nothing against the address: the gateway's other callbacks go on.
  expect((await callback(references[1]!, gateway)).statusCode).toBe(200);
});

it('returns from the card-saving page past the limit are a 429 before the gateway is asked', async () => {
  const url = `/subscription-credit-card/return?cardId=999999&checksum=${'0'.repeat(64)}`;
  const back = (ip: string) => t.app.inject({ method: 'GET', url, remoteAddress: ip });
  const statuses = [];
  for (let i = 0; i < 4; i += 1) statuses.push((await back('203.0.113.31')).statusCode);
  expect(statuses).toEqual([404, 404, 404, 429]);
  expect((await back('203.0.113.32')).statusCode).toBe(404);
});
