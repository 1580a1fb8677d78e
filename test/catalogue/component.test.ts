import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory, createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const DAY = 86_400_000;
let novels = 0;
let classics = 0;
let outletCategory = 0;
let inactiveCategory = 0;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const now = Date.now();
  novels = await createCategory(db, { et: 'Romaanid' });
  classics = await createCategory(db, { et: 'Klassika' }, { parentId: novels });
  const poetry = await createCategory(db, { et: 'Luule' });
  outletCategory = await createCategory(db, { et: 'Outlet' }, { store: 'WEB2' });
  inactiveCategory = await createCategory(db, { et: 'Peidus' }, { active: false });
  // Discounts: 50%, 25%, 10%; the hidden and the outlet ones never show.
  await createProduct(db, {
    code: 'D50',
    price: 10,
    originalPrice: 20,
    categoryIds: [classics],
    salesCount: 1,
    releasedAt: now - 100 * DAY,
  });
  await createProduct(db, {
    code: 'D25',
    price: 15,
    originalPrice: 20,
    categoryIds: [poetry],
    type: 'EBOOK',
    binding: 'EPUB',
    salesCount: 2,
    releasedAt: now - 10 * DAY,
  });
  await createProduct(db, { code: 'D10', price: 18, originalPrice: 20, categoryIds: [novels], salesCount: 3, releasedAt: now - 5 * DAY });
  await createProduct(db, { code: 'D90-HIDDEN', price: 2, originalPrice: 20, hiddenWeb: true, salesCount: 1000, releasedAt: now - DAY });
  await createProduct(db, {
    code: 'D80-OUTLET',
    price: 4,
    originalPrice: 20,
    stores: ['WEB2'],
    categoryIds: [outletCategory],
    salesCount: 900,
    releasedAt: now - DAY,
  });
  await createProduct(db, { code: 'D70-OFF', price: 6, originalPrice: 20, active: false, salesCount: 800, releasedAt: now - DAY });
  // Not discounted: a list price at or below the shop price is no discount.
  await createProduct(db, {
    code: 'FULL',
    price: 20,
    originalPrice: 20,
    categoryIds: [classics],
    salesCount: 50,
    releasedAt: now - 2 * DAY,
  });
  await createProduct(db, { code: 'FUTURE', price: 20, salesCount: 0, releasedAt: now + 5 * DAY });
  await createProduct(db, { code: 'UNDATED', price: 20, salesCount: 4, releasedAt: null });
  for (let i = 1; i <= 8; i += 1)
    await createProduct(db, { code: `FILL${i}`, price: 20, salesCount: 10 + i, releasedAt: Date.UTC(2020, 0, i) });
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codes = (res: { json(): unknown }) => (res.json() as Array<{ code: string }>).map((item) => item.code);

describe('GET /product-component/discounted', () => {
  it('lists the visible products sold below their list price, the largest discount first', async () => {
    const res = await get('/product-component/discounted');
    expect(res.statusCode, res.body).toBe(200);
    expect(codes(res)).toEqual(['D50', 'D25', 'D10']);
    expect(res.json()[0]).toMatchObject({ price: 10, strikeThroughPrice: 20, discountPercent: 50 });
    expect(res.headers['x-pagination-total-count']).toBe('3');
    expect(res.headers['x-pagination-per-page']).toBe('12');
  });

  it('narrows to a category with its subcategories, and to a type', async () => {
    expect(codes(await get(`/product-component/discounted?categoryId=${novels}`))).toEqual(['D50', 'D10']);
    expect(codes(await get(`/product-component/discounted?categoryId=${classics}`))).toEqual(['D50']);
    expect(codes(await get('/product-component/discounted?type=EBOOK'))).toEqual(['D25']);
    expect(codes(await get(`/product-component/discounted?type=EBOOK&categoryId=${novels}`))).toEqual([]);
  });

  it('shows business customers the business catalogue, never stored', async () => {
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const res = await get('/product-component/discounted', { authorization: `Bearer ${business.token}` });
    expect(codes(res)).toEqual(['D90-HIDDEN', 'D50', 'D25', 'D10']);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('shows each store its own assortment', async () => {
    expect(codes(await get('/product-component/discounted', { store: 'WEB2' }))).toEqual(['D80-OUTLET']);
    expect(codes(await get(`/product-component/discounted?categoryId=${outletCategory}`, { store: 'WEB2' }))).toEqual(['D80-OUTLET']);
  });
});

describe('GET /product-component/newest', () => {
  it('lists products released in the last 90 days and not in the future, the newest first', async () => {
    const res = await get('/product-component/newest');
    expect(res.statusCode, res.body).toBe(200);
    expect(codes(res)).toEqual(['FULL', 'D10', 'D25']);
  });

  it('takes the same filters', async () => {
    expect(codes(await get(`/product-component/newest?categoryId=${novels}`))).toEqual(['FULL', 'D10']);
    expect(codes(await get('/product-component/newest?type=EBOOK'))).toEqual(['D25']);
  });
});

describe('GET /product-component/top', () => {
  it('lists what sold, the best sellers first, twelve to a page by default', async () => {
    const res = await get('/product-component/top');
    expect(res.statusCode, res.body).toBe(200);
    expect(codes(res)).toEqual(['FULL', 'FILL8', 'FILL7', 'FILL6', 'FILL5', 'FILL4', 'FILL3', 'FILL2', 'FILL1', 'UNDATED', 'D10', 'D25']);
    // FUTURE never sold: it is no top seller.
    expect(res.headers['x-pagination-total-count']).toBe('13');
    expect(res.headers['x-pagination-page-count']).toBe('2');
    expect(codes(await get('/product-component/top?page=2'))).toEqual(['D50']);
    expect(codes(await get('/product-component/top?per-page=3'))).toEqual(['FULL', 'FILL8', 'FILL7']);
  });

  it('caps per-page at 100', async () => {
    const res = await get('/product-component/top?per-page=500');
    expect(res.headers['x-pagination-per-page']).toBe('100');
    expect(res.json()).toHaveLength(13);
  });

  it('lets shared caches keep the guest answer and answers a conditional GET with 304', async () => {
    const first = await get('/product-component/top');
    expect(first.headers['cache-control']).toMatch(/^public/);
    expect((await get('/product-component/top', { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
  });
});

describe('bad input', () => {
  it('is a 404 for a category the store does not show', async () => {
    for (const path of ['discounted', 'newest', 'top']) {
      for (const id of [outletCategory, inactiveCategory, 999_999]) {
        expectErrorBody(await get(`/product-component/${path}?categoryId=${id}`), 404, 'Not Found');
      }
    }
  });

  it('is a 400 for malformed parameters', async () => {
    for (const query of ['page=0', 'page=x', 'per-page=0', 'per-page=1.5', 'categoryId=abc', 'categoryId=0', 'type=BOOKS']) {
      expectErrorBody(await get(`/product-component/top?${query}`), 400, 'Bad Request');
    }
  });
});
