import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createProduct, createProductList } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// What the product routes refuse or hide: extreme parameters, links to products the caller may
// not see, lists and campaigns outside their scope, and the headers shared caches key on.

let t: TestApp;
const DAY = 86_400_000;

beforeAll(async () => {
  t = await createTestApp({ env: { CORS_ORIGINS: 'https://a.example,https://b.example' } });
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codes = async (url: string, headers: Record<string, string> = {}) => {
  const res = await get(url, headers);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as Array<{ code: string }>).map((p) => p.code);
};

describe('extreme parameters', () => {
  it('refuses ids beyond what both engines hold with a 400, never a 500', async () => {
    for (const name of ['categoryId', 'personId', 'publisherId', 'seriesId', 'productListId', 'campaignId']) {
      for (const value of ['100000000000000000000', '9223372036854775808', '1e300']) {
        const res = await get(`/product?${name}=${value}`);
        expect(res.statusCode, `${name}=${value}`).toBe(400);
        expect(res.json()).toMatchObject({ status: 400, name: 'Bad Request' });
      }
    }
  });

  it('refuses a NUL character in a path or query parameter with a 400', async () => {
    for (const url of ['/product/code/a%00b', '/product?sort=name%00']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({ status: 400 });
    }
  });

  it('answers a page far past the end at once with an empty page', async () => {
    await createProduct(t.database.db, { code: 'ONLY' });
    const res = await get('/product?page=10000000&per-page=100');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
    expect(Number(res.headers['x-pagination-total-count'])).toBeGreaterThan(0);
  });
});

describe('links to other editions', () => {
  it('shows the e-book and the physical edition only when the caller may see them', async () => {
    const db = t.database.db;
    const book = await createProduct(db, { code: 'PAPER' });
    await createProduct(db, { code: 'HIDDEN-E', type: 'EBOOK', physicalBookId: book, hiddenWeb: true });
    const details = (await get(`/product/${book}`)).json();
    expect(details.ebook).toBeNull();
    const business = await createCustomer(db, { kind: 'BUSINESS' });
    expect((await get(`/product/${book}`, { authorization: `Bearer ${business.token}` })).json().ebook).toMatchObject({ code: 'HIDDEN-E' });

    const hiddenPaper = await createProduct(db, { code: 'HIDDEN-PAPER', hiddenWeb: true });
    const ebook = await createProduct(db, { code: 'OPEN-E', type: 'EBOOK', physicalBookId: hiddenPaper });
    expect((await get(`/product/${ebook}`)).json().physicalBook).toBeNull();
    const outletPaper = await createProduct(db, { code: 'OUTLET-PAPER', stores: ['WEB2'] });
    const ebook2 = await createProduct(db, { code: 'OPEN-E2', type: 'EBOOK', physicalBookId: outletPaper });
    expect((await get(`/product/${ebook2}`)).json().physicalBook).toBeNull();
  });
});

describe('lists and campaigns as filters', () => {
  it("lists a campaign's products only while it runs, in its own store", async () => {
    const db = t.database.db;
    const product = await createProduct(db, { code: 'CAMPAIGNED' });
    const now = Date.now();
    const future = await createCampaign(db, { validFrom: now + DAY, prices: [{ productId: product, price: 1 }] });
    const outlet = await createCampaign(db, { store: 'WEB2', prices: [{ productId: product, price: 1 }] });
    const off = await createCampaign(db, { active: false, prices: [{ productId: product, price: 1 }] });
    const running = await createCampaign(db, { validFrom: now - DAY, validTo: now + DAY, prices: [{ productId: product, price: 1 }] });
    for (const id of [future, outlet, off]) expect(await codes(`/product?campaignId=${id}`), String(id)).toEqual([]);
    expect(await codes(`/product?campaignId=${running}`)).toEqual(['CAMPAIGNED']);
  });

  it("lists a product list's products only in its store and while active", async () => {
    const db = t.database.db;
    const product = await createProduct(db, { code: 'LISTED', stores: ['WEB', 'WEB2'] });
    const outletList = await createProductList(db, [product], { store: 'WEB2' });
    const inactive = await createProductList(db, [product]);
    await db.updateTable('product_list').set({ is_active: false }).where('id', '=', inactive).execute();
    const shown = await createProductList(db, [product]);
    expect(await codes(`/product?productListId=${outletList}`)).toEqual([]);
    expect(await codes(`/product?productListId=${outletList}`, { store: 'WEB2' })).toEqual(['LISTED']);
    expect(await codes(`/product?productListId=${inactive}`)).toEqual([]);
    expect(await codes(`/product?productListId=${shown}`)).toEqual(['LISTED']);
  });
});

describe('price sorts', () => {
  it('orders wholesale customers by the wholesale price, everybody else by the shop price', async () => {
    const db = t.database.db;
    const list = await createProductList(db, [
      await createProduct(db, { code: 'W-CHEAP-SHOP', price: 9, wholesalePrice: 8 }),
      await createProduct(db, { code: 'W-DEAR-SHOP', price: 20, wholesalePrice: 2 }),
      await createProduct(db, { code: 'W-NO-WHOLESALE', price: 10.9, wholesalePrice: null }),
    ]);
    expect(await codes(`/product?productListId=${list}&sort=price`)).toEqual(['W-CHEAP-SHOP', 'W-NO-WHOLESALE', 'W-DEAR-SHOP']);
    const wholesale = await createCustomer(db, { kind: 'WHOLESALE' });
    const auth = { authorization: `Bearer ${wholesale.token}` };
    expect(await codes(`/product?productListId=${list}&sort=price`, auth)).toEqual(['W-DEAR-SHOP', 'W-CHEAP-SHOP', 'W-NO-WHOLESALE']);
    expect(await codes(`/product?productListId=${list}&sort=-price`, auth)).toEqual(['W-NO-WHOLESALE', 'W-CHEAP-SHOP', 'W-DEAR-SHOP']);
  });
});

describe('headers for shared caches', () => {
  it("keeps the CORS Vary: Origin beside the catalogue's own Vary headers", async () => {
    const res = await get('/product', { origin: 'https://b.example' });
    expect(res.headers['access-control-allow-origin']).toBe('https://b.example');
    const vary = String(res.headers.vary)
      .split(',')
      .map((name) => name.trim().toLowerCase());
    expect(vary).toEqual(expect.arrayContaining(['origin', 'store', 'x-app-language', 'authorization', 'accept-encoding']));
    expect(new Set(vary).size).toBe(vary.length);
  });
});
