import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// An order's links carry its checksum, the only credential of a guest's order. Wrong checksums are
// counted per client address over every route that takes one (infra/wrong-guesses.ts): past the limit
// the address is refused, right links too, until the window ends; right links never count.

let t: TestApp;
let shop: Shop;

beforeAll(async () => {
  // Hour-long windows: a window's boundary between two of a test's requests would start the count again.
  ({ t } = await createListeningApp({ env: { LINK_GUESS_RATE_LIMIT_PER_IP: '3/1h' } }));
  shop = await setUpShop(t);
});
afterAll(async () => t?.close());

async function placeOrder(ip: string) {
  const book = await stockedBook(t, shop, 10);
  const answer = await checkout(t, await fill(t, { ip }, [[book, 1]]), checkoutForm(shop));
  expect(answer.statusCode, answer.body).toBe(200);
  const link = orderLink(answer.json().location as string);
  const row = await t.database.db.selectFrom('customer_order').select('code').where('id', '=', link.orderId).executeTakeFirstOrThrow();
  return { ...link, code: row.code! };
}

const WRONG = 'f'.repeat(64);
const createForm = (orderId: number, checksum: string, ip: string) =>
  t.app.inject({ method: 'GET', url: `/bank/create-form?orderId=${orderId}&checksum=${checksum}`, remoteAddress: ip });

it('counts wrong checksums of every order link per address; past the limit a right link is a 429 too, another address goes on', async () => {
  const order = await placeOrder('198.51.100.60');
  const guesser = '203.0.113.60';
  // Right links, however many, count nothing.
  for (let i = 0; i < 5; i += 1) expect((await createForm(order.orderId, order.checksum, guesser)).statusCode).toBe(200);

  expectErrorBody(await createForm(order.orderId, WRONG, guesser), 404, 'Not Found');
  const summary = await t.app.inject({
    method: 'POST',
    url: '/bank/payment-result',
    remoteAddress: guesser,
    payload: { orderId: order.orderId, checksum: WRONG },
  });
  expectErrorBody(summary, 404, 'Not Found');
  // An unknown order code with a checksum is a guess as well.
  const unknown = await t.app.inject({ method: 'GET', url: `/order/WT99999999?checksum=${WRONG}`, remoteAddress: guesser });
  expectErrorBody(unknown, 404, 'Not Found');

  const refused = await createForm(order.orderId, order.checksum, guesser);
  expectErrorBody(refused, 429, 'Too Many Requests');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  const read = await t.app.inject({ method: 'GET', url: `/order/${order.code}?checksum=${order.checksum}`, remoteAddress: guesser });
  expect(read.statusCode).toBe(429);

  expect((await createForm(order.orderId, order.checksum, '203.0.113.61')).statusCode).toBe(200);
  const elsewhere = await t.app.inject({
    method: 'GET',
    url: `/order/${order.code}?checksum=${order.checksum}`,
    remoteAddress: '203.0.113.61',
  });
  expect(elsewhere.statusCode).toBe(200);
});

it("a repeat with a wrong checksum counts after its basket's transaction and leaves no basket behind", async () => {
  const order = await placeOrder('198.51.100.62');
  const guesser = '203.0.113.62';
  const baskets = async () =>
    Number(
      (
        await t.database.db
          .selectFrom('basket')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const before = await baskets();
  const repeat = (checksum: string) =>
    t.app.inject({ method: 'POST', url: `/order/${order.code}/repeat?checksum=${checksum}`, remoteAddress: guesser });
  const statuses = [];
  for (let i = 0; i < 4; i += 1) statuses.push((await repeat(WRONG)).statusCode);
  expect(statuses).toEqual([404, 404, 404, 429]);
  expect(await baskets()).toBe(before);
  expect((await repeat(order.checksum)).statusCode).toBe(429);
});
