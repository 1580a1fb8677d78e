import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, read } from './helpers.js';

let t: TestApp;
let book: number;
beforeAll(async () => {
  t = await createTestApp();
  const shop = await createShop(t.database.db);
  book = await createProduct(t.database.db, { price: 12.5 });
  await setStock(t.database.db, book, shop, 10);
});
afterAll(() => t.close());

it('adds a product for a guest and reads it back with the token', async () => {
  const first = await add(t, {}, book, 2);
  expect(first.basketToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(first.items).toHaveLength(1);
  expect(first.total).toBe(25);
  const again = await read(t, { token: first.basketToken! });
  expect(again.itemCount).toBe(2);
  expect(again.vat).toEqual([{ rate: 9, net: 22.94, vat: 2.06 }]);
});
