import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProduct, setStock } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, orderLink, setUpShop, type Shop } from './helpers.js';
import { orderRow } from './purchase-helpers.js';

// An Idempotency-Key names one checkout of one store's basket. The key's scope was the guest's basket
// token alone: a checkout in WEB2 sent with the token and the key of a WEB checkout (a front-end that
// keeps one token and one key across the stores) was answered WEB's order, a WEB order's link to a
// WEB2 front-end, where that token holds no WEB2 basket (an empty basket). A client's token is its
// store's (401 in the other), so its scope was one store's already.

let t: TestApp;
let shop: Shop;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on', CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' } });
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});

it("a key used in WEB, sent again in WEB2, is WEB2's checkout, never WEB's order; each store's repeat answers its own", async () => {
  const book = await createProduct(t.database.db, { price: 10, stores: ['WEB', 'WEB2'], name: 'Outlet book' });
  await setStock(t.database.db, book, shop.shopId, 5);
  const key = { 'idempotency-key': 'same-key-both-stores' };
  const web = await fill(t, { store: 'WEB' }, [[book, 1]]);
  const first = await checkout(t, web, checkoutForm(shop), key);
  expect(first.statusCode, first.body).toBe(200);
  expect((await orderRow(t.database.db, orderLink(first.json().location).orderId)).code).toMatch(/^WT/);

  // The WEB token in WEB2, where it holds no basket: the empty basket's 400, not WEB's order.
  const inWeb2 = await checkout(t, { ...web, store: 'WEB2' }, checkoutForm(shop), key);
  expect(inWeb2.statusCode, inWeb2.body).toBe(400);

  // WEB2's own basket (its own token) under the same key: its own order, and its repeat answers it.
  const web2 = await fill(t, { store: 'WEB2' }, [[book, 2]]);
  const second = await checkout(t, web2, checkoutForm(shop), key);
  expect(second.statusCode, second.body).toBe(200);
  expect((await orderRow(t.database.db, orderLink(second.json().location).orderId)).code).toMatch(/^WN/);
  expect((await checkout(t, web2, checkoutForm(shop), key)).json()).toEqual(second.json());
  expect((await checkout(t, web, checkoutForm(shop), key)).json()).toEqual(first.json());
});
