import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory, createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { call } from '../basket/helpers.js';

// A product's stockCount is what the web can still sell: the web stock less what orders not yet
// handed to the back office hold of it, the same number the basket and checkout sell.

let t: TestApp;
let book = 0;
let category = 0;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const shop = await createShop(db);
  category = await createCategory(db, { et: 'Romaanid' });
  book = await createProduct(db, { code: 'HELD-1', name: 'Kolm eksemplari', categoryIds: [category] });
  await setStock(db, book, shop, 3);
  // An order placed and not yet processed holds two of the three copies.
  await insertOrder(db, { status: 'PENDING_PROCESSING', lines: [{ productId: book, productCode: 'HELD-1', quantity: 2 }] });
});
afterAll(() => t.close());

const get = async (url: string) => {
  const response = await t.app.inject({ url, headers: { store: 'WEB' } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};

describe('stock held by orders', () => {
  it('is not counted in the stock the product page, its availability and the lists show', async () => {
    expect((await get(`/product/${book}`)).stockCount).toBe(1);
    expect((await get(`/product/${book}/availability`)).stockCount).toBe(1);
    expect((await get(`/category/${category}/products`))[0].stockCount).toBe(1);
    expect((await get('/product/search?q=eksemplari'))[0].stockCount).toBe(1);
  });

  it('is the stock the basket sells: as many as the page shows, not one more', async () => {
    const shown = (await get(`/product/${book}`)).stockCount as number;
    expect((await call(t, 'POST', '/basket/add-product', {}, { productId: book, quantity: shown + 1 })).statusCode).toBe(422);
    expect((await call(t, 'POST', '/basket/add-product', {}, { productId: book, quantity: shown })).statusCode).toBe(200);
  });
});
