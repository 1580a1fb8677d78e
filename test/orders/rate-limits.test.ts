import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, setUpShop, stockedBook, type Shop } from './helpers.js';

// What an anonymous client can repeat is limited per address: checkouts, gateway callbacks and
// returns from the card-saving page (each of which can make the service call the gateway).

let t: TestApp;
let shop: Shop;

beforeAll(async () => {
  // Hour-long windows: the windows are fixed, so a minute's boundary between two of a test's requests
  // started the count again (CI on PostgreSQL once saw 200, 200, 200).
  ({ t } = await createListeningApp({ env: { CHECKOUT_RATE_LIMIT_PER_IP: '2/1h', PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '3/1h' } }));
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

it('returns from the card-saving page past the limit are a 429 before the gateway is asked', async () => {
  const url = `/subscription-credit-card/return?cardId=999999&checksum=${'0'.repeat(64)}`;
  const back = (ip: string) => t.app.inject({ method: 'GET', url, remoteAddress: ip });
  const statuses = [];
  for (let i = 0; i < 4; i += 1) statuses.push((await back('203.0.113.31')).statusCode);
  expect(statuses).toEqual([404, 404, 404, 429]);
  expect((await back('203.0.113.32')).statusCode).toBe(404);
});
