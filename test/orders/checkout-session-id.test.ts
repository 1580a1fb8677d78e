import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';

// The x-session-id header is the front-end's analytics session: the basket takes it (up to 200
// characters) and records its ADD_TO_BASKET under it as the session actions keep one (trimmed, of
// token characters, at most 100), and a session id they cannot keep records nothing and never fails a
// request. Checkout refused one of 101 to 200 characters with a 400, so a shopper who filled the basket
// could not buy; and it kept the header as sent, so an order's sales-history `session` was not the
// session its basket additions were recorded under.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  ({ t } = await createListeningApp());
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});

const sessionOf = async (orderId: number) =>
  (await t.database.db.selectFrom('customer_order').select('session_id').where('id', '=', orderId).executeTakeFirstOrThrow()).session_id;

async function buyWithSession(session: string) {
  const who = await fill(t, { session }, [[await stockedBook(t, shop, 3), 1]]);
  expect((await call(t, 'GET', '/basket', who)).statusCode).toBe(200);
  return checkout(t, who, checkoutForm(shop), { 'x-session-id': session });
}

describe("checkout's x-session-id", () => {
  it('is never a reason to refuse the order: one the basket took but analytics cannot keep is left out', async () => {
    const long = `s${'x'.repeat(149)}`;
    const response = await buyWithSession(long);
    expect(response.statusCode, response.body).toBe(200);
    expect(await sessionOf(orderLink(response.json().location).orderId)).toBeNull();
  });

  it('is kept as the session actions keep it, so the sale joins its basket additions', async () => {
    const response = await buyWithSession('  web-session.42  ');
    expect(response.statusCode, response.body).toBe(200);
    expect(await sessionOf(orderLink(response.json().location).orderId)).toBe('web-session.42');
  });
});
