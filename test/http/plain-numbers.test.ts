import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A number in a path, a query or a header is read from its text only when the text is a plain
// decimal (http/plain-numbers.ts). Number() read "1e0", " 1", "0x1", "+1", "01", "1.0" and
// "Infinity" too: /product/0x1 was product 1, ?per-page=0b11 a page of 3, ?per-page=Infinity a full
// page, and DELETE /wishlist/%201 removed product 1 from the list. plain-number-sweep.test.ts walks
// every route; this states the rules on a few.

let t: TestApp;
let client: TestCustomer;
let productId: number;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  client = await createCustomer(db);
  productId = await createProduct(db, { name: 'Esimene', price: 12.5 });
  await createProduct(db, { name: 'Teine', price: 20 });
  await createProduct(db, { name: 'Kolmas', price: 30 });
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { store: 'WEB', 'x-app-language': 'en' } });
const messageOf = (body: string) => (JSON.parse(body) as { message: string }).message;

describe('an integer parameter', () => {
  it.each(['1e0', '%201', '1%20', '0x1', '0b1', '%2B1', '01', '1.0', 'Infinity'])('refuses the id %s with a 400 naming it', async (id) => {
    const response = await get(`/product/${id.replace('1', String(productId))}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      name: 'Bad Request',
      message: 'Invalid value of "id": id must be a positive whole number.',
      code: 0,
      status: 400,
    });
  });

  it('takes the id in plain digits', async () => {
    const response = await get(`/product/${productId}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: productId });
  });

  it('refuses a page or page size Number() reads but that is not plain digits', async () => {
    for (const query of ['per-page=0b11', 'per-page=3e0', 'per-page=%203', 'per-page=03', 'per-page=Infinity', 'page=1e0', 'page=1.0']) {
      const response = await get(`/product?${query}`);
      const name = query.split('=')[0]!;
      expect(response.statusCode, query).toBe(400);
      expect(messageOf(response.body), query).toBe(`Invalid value of "${name}": ${name} must be a positive whole number.`);
    }
    const plain = await get('/product?per-page=2&page=1');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['x-pagination-per-page']).toBe('2');
    expect(plain.json()).toHaveLength(2);
  });

  it('still says a negative or zero value is below the minimum, and a repeated one that it is repeated', async () => {
    expect(messageOf((await get('/product?page=-1')).body)).toBe('Invalid value of "page": page must be no less than 1.');
    expect(messageOf((await get('/product?page=0')).body)).toBe('Invalid value of "page": page must be no less than 1.');
    expect(messageOf((await get('/product?page=1&page=2')).body)).toBe(
      'Invalid value of "page": page is given more than once; give it once.',
    );
    // "-0" is no plain spelling of zero.
    expect(messageOf((await get('/product?page=-0')).body)).toBe('Invalid value of "page": page must be a positive whole number.');
  });

  it('does not take a product off the wishlist for a path Number() reads as its id', async () => {
    const headers = { store: 'WEB', authorization: `Bearer ${client.token}` };
    const added = await t.app.inject({ method: 'POST', url: '/wishlist', headers, payload: { productId } });
    expect(added.statusCode).toBeLessThan(300);
    for (const id of [`${productId}e0`, `%20${productId}`, `0x${productId.toString(16)}`]) {
      const response = await t.app.inject({ method: 'DELETE', url: `/wishlist/${id}`, headers });
      expect(response.statusCode, id).toBe(400);
    }
    const list = await t.app.inject({ method: 'GET', url: '/wishlist', headers });
    expect((list.json() as Array<{ product: { id: number } }>).map((item) => item.product.id)).toEqual([productId]);
  });
});

describe('a number parameter', () => {
  it('takes a price with decimals, 12.50 as 12.5', async () => {
    const response = await get('/product/search?priceMin=12.50&priceMax=12.5');
    expect(response.statusCode).toBe(200);
    expect((response.json() as Array<{ id: number }>).map((card) => card.id)).toEqual([productId]);
  });

  it.each(['1e1', '0x10', '%2012.5', '12.5%20', 'Infinity', '.5', '5.', '%2B5', '012.5', '-0'])(
    'refuses the price %s with a 400 naming it',
    async (price) => {
      const response = await get(`/product/search?priceMin=${price}`);
      expect(response.statusCode).toBe(400);
      expect(messageOf(response.body)).toBe(
        'Invalid value of "priceMin": priceMin must be a number in digits, with a point before any decimals, e.g. 12.50.',
      );
    },
  );

  it('still says a negative price is below the minimum', async () => {
    expect(messageOf((await get('/product/search?priceMin=-1.5')).body)).toBe(
      'Invalid value of "priceMin": priceMin must be no less than 0.',
    );
  });
});
