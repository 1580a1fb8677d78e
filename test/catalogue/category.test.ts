import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory, createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids: Record<string, number> = {};
let businessAuth: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  // Positions deliberately out of insertion order.
  ids.fiction = await createCategory(
    db,
    { et: 'Ilukirjandus', en: 'Fiction', ru: 'Художественная литература' },
    { code: 'FICTION', position: 2 },
  );
  ids.children = await createCategory(db, { et: 'Lasteraamatud', en: 'Children' }, { code: 'KIDS', position: 1 });
  ids.novels = await createCategory(db, { et: 'Romaanid', en: 'Novels' }, { code: 'NOVELS', parentId: ids.fiction, position: 2 });
  ids.poetry = await createCategory(db, { et: 'Luule', en: 'Poetry' }, { code: 'POETRY', parentId: ids.fiction, position: 1 });
  ids.classics = await createCategory(db, { et: 'Klassika' }, { code: 'CLASSICS', parentId: ids.novels });
  ids.inactive = await createCategory(db, { et: 'Peidetud' }, { code: 'HIDDEN', parentId: ids.fiction, active: false });
  ids.underInactive = await createCategory(db, { et: 'Peidetu all' }, { code: 'UNDER-HIDDEN', parentId: ids.inactive });
  ids.outlet = await createCategory(db, { et: 'Allahindlus' }, { code: 'OUTLET', store: 'WEB2' });
  await db
    .updateTable('category_name')
    .set({ description: 'Pikad lood.' })
    .where('category_id', '=', ids.novels)
    .where('language', '=', 'et')
    .execute();

  await createProduct(db, { code: 'NOVEL-OLD', categoryIds: [ids.novels], releasedAt: Date.UTC(2019, 0, 1), price: 12 });
  await createProduct(db, { code: 'NOVEL-NEW', categoryIds: [ids.novels], releasedAt: Date.UTC(2024, 5, 1), price: 8 });
  await createProduct(db, { code: 'CLASSIC', categoryIds: [ids.classics], releasedAt: Date.UTC(2022, 0, 1), price: 30 });
  await createProduct(db, { code: 'POEM', categoryIds: [ids.poetry], releasedAt: Date.UTC(2021, 0, 1), price: 5 });
  await createProduct(db, { code: 'B2B', categoryIds: [ids.classics], hiddenWeb: true });
  await createProduct(db, { code: 'RETAIL', categoryIds: [ids.novels], hiddenBusiness: true, releasedAt: Date.UTC(2020, 0, 1) });
  await createProduct(db, { code: 'GONE', categoryIds: [ids.novels], active: false });
  await createProduct(db, { code: 'WEB2-ONLY', categoryIds: [ids.novels], stores: ['WEB2'] });
  await createProduct(db, { code: 'IN-HIDDEN', categoryIds: [ids.underInactive] });
  const business = await createCustomer(db, { kind: 'BUSINESS' });
  businessAuth = { authorization: `Bearer ${business.token}` };
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codesOf = (body: Array<{ code: string }>) => body.map((item) => item.code);

describe('GET /category', () => {
  it("gives the store's tree of active categories, nested, translated and in display order", async () => {
    const res = await get('/category', { 'x-app-language': 'en' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      { id: ids.children, code: 'KIDS', name: 'Children', level: 1, children: [] },
      {
        id: ids.fiction,
        code: 'FICTION',
        name: 'Fiction',
        level: 1,
        children: [
          { id: ids.poetry, code: 'POETRY', name: 'Poetry', level: 2, children: [] },
          {
            id: ids.novels,
            code: 'NOVELS',
            name: 'Novels',
            level: 2,
            // No English name: the Estonian one.
            children: [{ id: ids.classics, code: 'CLASSICS', name: 'Klassika', level: 3, children: [] }],
          },
        ],
      },
    ]);
  });

  it('answers in Estonian by default and in Russian where there is a translation', async () => {
    expect((await get('/category')).json()[1].name).toBe('Ilukirjandus');
    const ru = (await get('/category', { 'x-app-language': 'ru' })).json();
    expect(ru[1].name).toBe('Художественная литература');
    expect(ru[0].name).toBe('Lasteraamatud');
  });

  it('gives each store its own tree', async () => {
    const res = await get('/category', { store: 'WEB2' });
    expect(res.json()).toEqual([{ id: ids.outlet, code: 'OUTLET', name: 'Allahindlus', level: 1, children: [] }]);
  });

  it('is cacheable for guests (ETag, 304) and never stored for business customers', async () => {
    const first = await get('/category');
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    const etag = String(first.headers.etag);
    const again = await get('/category', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await get('/category', { 'if-none-match': etag, 'x-app-language': 'en' })).statusCode).toBe(200);
    const business = await get('/category', businessAuth);
    expect(business.statusCode).toBe(200);
    expect(business.headers['cache-control']).toBe('no-store');
    expect(business.headers.etag).toBeUndefined();
  });

  it('refuses a bad token and an unknown store', async () => {
    expectErrorBody(await get('/category', { authorization: 'Bearer nope' }), 401, 'Unauthorized');
    expectErrorBody(await get('/category', { store: 'SHOP' }), 400, 'Bad Request');
  });
});

describe('GET /category/:id', () => {
  it('gives the category with its breadcrumb, subcategories and product count', async () => {
    const res = await get(`/category/${ids.novels}`, { 'x-app-language': 'en' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: ids.novels,
      code: 'NOVELS',
      name: 'Novels',
      // The description of the language the name comes from: English has none.
      description: null,
      level: 2,
      path: [
        { id: ids.fiction, code: 'FICTION', name: 'Fiction' },
        { id: ids.novels, code: 'NOVELS', name: 'Novels' },
      ],
      children: [{ id: ids.classics, code: 'CLASSICS', name: 'Klassika', level: 3 }],
      // NOVEL-OLD, NOVEL-NEW, RETAIL, and CLASSIC from the subcategory.
      productCount: 4,
    });
    expect((await get(`/category/${ids.novels}`)).json()).toMatchObject({ name: 'Romaanid', description: 'Pikad lood.' });
  });

  it('lists the children in display order and counts the whole subtree', async () => {
    const res = await get(`/category/${ids.fiction}`);
    expect(res.json().children.map((c: { code: string }) => c.code)).toEqual(['POETRY', 'NOVELS']);
    expect(res.json().path).toEqual([{ id: ids.fiction, code: 'FICTION', name: 'Ilukirjandus' }]);
    expect(res.json().productCount).toBe(5);
    expect((await get(`/category/${ids.children}`)).json().productCount).toBe(0);
  });

  it('counts the business catalogue for business customers', async () => {
    const res = await get(`/category/${ids.novels}`, businessAuth);
    // B2B instead of RETAIL.
    expect(res.json().productCount).toBe(4);
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await get(`/category/${ids.classics}`, businessAuth)).json().productCount).toBe(2);
    expect((await get(`/category/${ids.classics}`)).json().productCount).toBe(1);
  });

  it('is a 404 when inactive, under an inactive parent, in another store or unknown', async () => {
    for (const id of [ids.inactive, ids.underInactive, ids.outlet, 987654]) {
      const body = expectErrorBody(await get(`/category/${id}`), 404, 'Not Found');
      expect(body.message).toContain(String(id));
    }
    expect((await get(`/category/${ids.outlet}`, { store: 'WEB2' })).statusCode).toBe(200);
  });

  it('refuses malformed ids with a 400', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      expectErrorBody(await get(`/category/${bad}`), 400, 'Bad Request');
    }
  });
});

describe('GET /category/:id/products', () => {
  it('lists the visible products of the category and its subcategories, newest first', async () => {
    const res = await get(`/category/${ids.novels}/products`);
    expect(res.statusCode, res.body).toBe(200);
    expect(codesOf(res.json())).toEqual(['NOVEL-NEW', 'CLASSIC', 'RETAIL', 'NOVEL-OLD']);
    expect(res.headers['x-pagination-total-count']).toBe('4');
    expect(res.headers['x-pagination-current-page']).toBe('1');
    expect(res.headers['x-pagination-per-page']).toBe('20');
    expect(res.headers['x-pagination-page-count']).toBe('1');
    expect(res.json()[0]).toMatchObject({ code: 'NOVEL-NEW', price: 8, type: 'BOOK' });
  });

  it('shows the business catalogue to business customers', async () => {
    const res = await get(`/category/${ids.novels}/products`, businessAuth);
    expect(codesOf(res.json()).sort()).toEqual(['B2B', 'CLASSIC', 'NOVEL-NEW', 'NOVEL-OLD']);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('sorts and pages', async () => {
    expect(codesOf((await get(`/category/${ids.fiction}/products?sort=price`)).json()).slice(0, 3)).toEqual([
      'POEM',
      'NOVEL-NEW',
      'RETAIL',
    ]);
    expect(codesOf((await get(`/category/${ids.fiction}/products?sort=-price`)).json())[0]).toBe('CLASSIC');
    const second = await get(`/category/${ids.fiction}/products?per-page=2&page=2`);
    expect(codesOf(second.json())).toEqual(['POEM', 'RETAIL']);
    expect(second.headers['x-pagination-page-count']).toBe('3');
    expect(second.headers.link).toContain(`</category/${ids.fiction}/products?page=3&per-page=2>; rel="next"`);
    expect((await get(`/category/${ids.fiction}/products?page=9`)).json()).toEqual([]);
  });

  it('answers conditional GETs of guests with 304', async () => {
    const first = await get(`/category/${ids.novels}/products`);
    expect((await get(`/category/${ids.novels}/products`, { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
  });

  it('is a 404 for an unknown or inactive category and a 400 for bad parameters', async () => {
    expectErrorBody(await get('/category/987654/products'), 404, 'Not Found');
    expectErrorBody(await get(`/category/${ids.inactive}/products`), 404, 'Not Found');
    for (const query of ['page=0', 'page=x', 'per-page=0', 'per-page=abc', 'sort=random', 'sort=']) {
      expectErrorBody(await get(`/category/${ids.novels}/products?${query}`), 400, 'Bad Request');
    }
    expectErrorBody(await get('/category/x/products'), 400, 'Bad Request');
  });
});
