import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, call, read } from './helpers.js';

// Writes to one basket at the same time: each sees the one before it (the basket row is locked
// on PostgreSQL; SQLite runs write transactions one at a time), so nothing is lost.

let t: TestApp;
let book: number;
beforeAll(async () => {
  t = await createTestApp();
  const shop = await createShop(t.database.db);
  book = await createProduct(t.database.db, { price: 4.2 });
  await setStock(t.database.db, book, shop, 500);
});
afterAll(() => t.close());

it("sums 20 parallel add-product calls of one product exactly in a guest's basket", async () => {
  const first = await add(t, {}, book, 1);
  const who = { token: first.basketToken! };
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => call(t, 'POST', '/basket/add-product', who, { productId: book, quantity: 2 })),
  );
  expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
  const versions = new Set(responses.map((response) => response.json().version as string));
  expect(versions.size).toBe(20);
  const basket = await read(t, who);
  expect([basket.items.length, basket.items[0]!.quantity, basket.total]).toEqual([1, 41, 172.2]);
});

it("sums 20 parallel add-product calls in a client's basket that did not exist yet (one basket is made)", async () => {
  const client = await createCustomer(t.database.db);
  const who = { bearer: client.token };
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => call(t, 'POST', '/basket/add-product', who, { productId: book, quantity: 1 })),
  );
  expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
  expect(new Set(responses.map((response) => response.json().id)).size).toBe(1);
  expect((await read(t, who)).items[0]!.quantity).toBe(20);
});

it('lets exactly one of several writes based on the same version through (If-Match)', async () => {
  const first = await add(t, {}, book, 1);
  const who = { token: first.basketToken!, ifMatch: `"${first.version}"` };
  const responses = await Promise.all(
    Array.from({ length: 10 }, () => call(t, 'POST', '/basket/add-product', who, { productId: book, quantity: 1 })),
  );
  expect(responses.map((response) => response.statusCode).sort()).toEqual([200, ...Array(9).fill(412)]);
  expect((await read(t, { token: first.basketToken! })).items[0]!.quantity).toBe(2);
});
