import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct, createProductList } from '../helpers/catalogue.js';
import { nameProductList } from '../helpers/catalogue-blocks.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids = {} as Record<
  'a' | 'b' | 'c' | 'hiddenWeb' | 'hiddenBusiness' | 'inactive' | 'outlet' | 'picks' | 'news' | 'off' | 'web2',
  number
>;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  ids.a = await createProduct(db, { code: 'A', name: 'Aabits', price: 30, originalPrice: 40 });
  ids.b = await createProduct(db, { code: 'B', name: 'Bemba', price: 10 });
  ids.c = await createProduct(db, { code: 'C', name: 'Cello', price: 20 });
  ids.hiddenWeb = await createProduct(db, { code: 'HW', name: 'Ärile', hiddenWeb: true });
  ids.hiddenBusiness = await createProduct(db, { code: 'HB', name: 'Jaele', hiddenBusiness: true });
  ids.inactive = await createProduct(db, { code: 'OFF', active: false });
  ids.outlet = await createProduct(db, { code: 'OUT', stores: ['WEB2'] });
  ids.picks = await createProductList(db, [ids.c, ids.hiddenWeb, ids.a, ids.inactive, ids.outlet, ids.b, ids.hiddenBusiness], {
    code: 'STAFF-PICKS',
    name: 'Töötajate valik',
  });
  await nameProductList(db, ids.picks, 'en', 'Staff picks');
  ids.news = await createProductList(db, [ids.b], { code: 'NEWS', name: 'Uudised' });
  ids.off = await createProductList(db, [ids.a], { code: 'HIDDEN-LIST' });
  ids.web2 = await createProductList(db, [ids.outlet], { code: 'OUTLET', store: 'WEB2', name: 'Outlet' });
  await db.updateTable('product_list').set({ position: 2 }).where('id', '=', ids.picks).execute();
  await db.updateTable('product_list').set({ position: 1 }).where('id', '=', ids.news).execute();
  await db.updateTable('product_list').set({ is_active: false }).where('id', '=', ids.off).execute();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codes = (res: { json(): unknown }) => (res.json() as Array<{ code: string }>).map((item) => item.code);

describe('GET /product-list', () => {
  it("lists the store's active lists by position with the products the caller can see", async () => {
    const res = await get('/product-list');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      { id: ids.news, code: 'NEWS', name: 'Uudised', productCount: 1 },
      { id: ids.picks, code: 'STAFF-PICKS', name: 'Töötajate valik', productCount: 4 },
    ]);
    expect(res.headers['x-pagination-total-count']).toBe('2');
    expect(res.headers['cache-control']).toMatch(/^public/);
  });

  it('translates with Estonian as the fallback', async () => {
    expect((await get('/product-list', { 'x-app-language': 'en' })).json().map((l: { name: string }) => l.name)).toEqual([
      'Uudised',
      'Staff picks',
    ]);
  });

  it('counts the business catalogue for business customers', async () => {
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const res = await get('/product-list', { authorization: `Bearer ${business.token}` });
    expect(res.json()[1]).toMatchObject({ code: 'STAFF-PICKS', productCount: 4 });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('shows each store its own lists and pages', async () => {
    expect(codes(await get('/product-list', { store: 'WEB2' }))).toEqual(['OUTLET']);
    const second = await get('/product-list?per-page=1&page=2');
    expect(codes(second)).toEqual(['STAFF-PICKS']);
    expect(second.headers['x-pagination-page-count']).toBe('2');
    expectErrorBody(await get('/product-list?page=abc'), 400, 'Bad Request');
  });
});

describe('GET /product-list/:id and /product-list/code/:code', () => {
  it('shows one list by id or code', async () => {
    expect((await get(`/product-list/${ids.picks}`, { 'x-app-language': 'en' })).json()).toEqual({
      id: ids.picks,
      code: 'STAFF-PICKS',
      name: 'Staff picks',
      productCount: 4,
    });
    expect((await get('/product-list/code/STAFF-PICKS')).json()).toMatchObject({ id: ids.picks, name: 'Töötajate valik' });
  });

  it("is a 404 for an inactive, unknown or other store's list", async () => {
    for (const id of [ids.off, ids.web2, 424242]) {
      expectErrorBody(await get(`/product-list/${id}`), 404, 'Not Found');
      expectErrorBody(await get(`/product-list/${id}/products`), 404, 'Not Found');
    }
    for (const code of ['HIDDEN-LIST', 'OUTLET', 'NOPE']) {
      expectErrorBody(await get(`/product-list/code/${code}`), 404, 'Not Found');
      expectErrorBody(await get(`/product-list/code/${code}/products`), 404, 'Not Found');
    }
  });

  it('refuses malformed ids and codes', async () => {
    for (const id of ['x', '0', '2.5']) expectErrorBody(await get(`/product-list/${id}`), 400, 'Bad Request');
    expectErrorBody(await get(`/product-list/code/${'L'.repeat(41)}`), 400, 'Bad Request');
  });
});

describe('GET /product-list/:id/products', () => {
  it("lists the visible products in the list's order, priced for the caller", async () => {
    const res = await get(`/product-list/${ids.picks}/products`);
    expect(res.statusCode, res.body).toBe(200);
    expect(codes(res)).toEqual(['C', 'A', 'B', 'HB']);
    expect(res.json()[1]).toMatchObject({ price: 30, strikeThroughPrice: 40, discountPercent: 25 });
    expect(res.headers['x-pagination-total-count']).toBe('4');
    expect(codes(await get('/product-list/code/STAFF-PICKS/products'))).toEqual(['C', 'A', 'B', 'HB']);
  });

  it('shows business customers the business catalogue', async () => {
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const res = await get(`/product-list/${ids.picks}/products`, { authorization: `Bearer ${business.token}` });
    expect(codes(res)).toEqual(['C', 'HW', 'A', 'B']);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('sorts and pages on request', async () => {
    expect(codes(await get(`/product-list/${ids.picks}/products?sort=price`))).toEqual(['B', 'HB', 'C', 'A']);
    const page = await get(`/product-list/code/STAFF-PICKS/products?per-page=3&page=2`);
    expect(codes(page)).toEqual(['HB']);
    expect(page.headers['x-pagination-page-count']).toBe('2');
    expect(String(page.headers.link)).toContain('/product-list/code/STAFF-PICKS/products?page=1&per-page=3>; rel="prev"');
    expectErrorBody(await get(`/product-list/${ids.picks}/products?sort=best`), 400, 'Bad Request');
    expectErrorBody(await get(`/product-list/${ids.picks}/products?per-page=0`), 400, 'Bad Request');
  });

  it('answers a conditional GET of a guest with 304', async () => {
    const first = await get(`/product-list/${ids.picks}/products`);
    expect((await get(`/product-list/${ids.picks}/products`, { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
  });
});
