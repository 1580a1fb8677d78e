import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createCategory, createProduct } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A guest's product answer may be kept (by this process, a CDN, a browser) for a minute, but not
// past the moment a campaign price of a product it shows starts or ends: a campaign that ends at
// midnight must not be shown at its price after midnight, when the basket charges the full price.

let t: TestApp;
let book: number;
let plain: number;
let campaignEnd: number;

beforeAll(async () => {
  t = await createTestApp({ env: { CATALOGUE_CACHE_TTL_MS: '60000', CATALOGUE_LIST_CACHE_TTL_MS: '60000' } });
  const db = t.database.db;
  const category = await createCategory(db, { et: 'Kõik' });
  book = await createProduct(db, { code: 'FLASH-BOOK', name: 'Flash raamat', price: 20, categoryIds: [category] });
  plain = await createProduct(db, { code: 'PLAIN-BOOK', price: 10, categoryIds: [category] });
  campaignEnd = Date.now() + 1500;
  await createCampaign(db, {
    code: 'FLASH',
    validFrom: Date.now() - 60_000,
    validTo: campaignEnd,
    prices: [{ productId: book, price: 15 }],
  });
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });
const maxAge = (cacheControl: unknown) => Number(/max-age=(\d+)/.exec(String(cacheControl))?.[1]);
const priceIn = (body: unknown): number => {
  const products = (body as { products?: unknown }).products;
  const cards = Array.isArray(body) ? body : Array.isArray(products) ? products : [body];
  return (cards as Array<{ code: string; price: number }>).find((card) => card.code === 'FLASH-BOOK')!.price;
};

describe('a guest answer showing a campaign price', () => {
  const urls = () => [
    `/product/${book}`,
    `/product/${book}/prices`,
    '/product?per-page=10',
    '/product/search?q=flash&per-page=10',
    '/autocomplete?term=flash',
    `/recommendation?productId=${plain}`,
  ];

  it('is kept no longer than until the campaign ends, and then shows the price the basket charges', async () => {
    for (const url of urls()) {
      const during = await get(url);
      expect(during.statusCode, during.body).toBe(200);
      expect(url.endsWith('/prices') ? during.json().price : priceIn(during.json()), url).toBe(15);
      // Whole seconds left until the end at most: a shared cache must not keep it past the end.
      expect(maxAge(during.headers['cache-control']), url).toBeLessThanOrEqual(Math.ceil((campaignEnd - Date.now()) / 1000));
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, campaignEnd - Date.now()) + 100));
    for (const url of urls()) {
      const after = await get(url);
      expect(after.statusCode, after.body).toBe(200);
      expect(url.endsWith('/prices') ? after.json().price : priceIn(after.json()), url).toBe(20);
    }
  });
});

describe('the campaign lists', () => {
  it('show a campaign no longer than until it ends, and one that starts from its start', async () => {
    const db = t.database.db;
    const product = await createProduct(db, { code: 'WINDOW-BOOK', price: 20 });
    const end = Date.now() + 1500;
    const ending = await createCampaign(db, { code: 'ENDING', validTo: end, prices: [{ productId: product, price: 15 }] });
    const starting = await createCampaign(db, { code: 'STARTING', validFrom: end, prices: [{ productId: product, price: 14 }] });
    const codes = async () => {
      const res = await get('/campaign?per-page=50');
      expect(res.statusCode, res.body).toBe(200);
      return { codes: (res.json() as Array<{ code: string }>).map((c) => c.code), cacheControl: res.headers['cache-control'] };
    };
    const before = await codes();
    expect(before.codes).toContain('ENDING');
    expect(before.codes).not.toContain('STARTING');
    expect(maxAge(before.cacheControl)).toBeLessThanOrEqual(Math.ceil((end - Date.now()) / 1000));
    const one = await get(`/campaign/${ending}`);
    expect(one.statusCode, one.body).toBe(200);
    expect(maxAge(one.headers['cache-control'])).toBeLessThanOrEqual(Math.ceil((end - Date.now()) / 1000));
    expect((await get(`/campaign/${starting}`)).statusCode).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now()) + 100));
    const after = await codes();
    expect(after.codes).not.toContain('ENDING');
    expect(after.codes).toContain('STARTING');
    expect((await get(`/campaign/${ending}`)).statusCode).toBe(404);
    expect((await get(`/campaign/${starting}`)).statusCode).toBe(200);
  });
});

describe("a campaign's products", () => {
  it('are listed by campaignId until the campaign ends and not after', async () => {
    const db = t.database.db;
    const product = await createProduct(db, { code: 'LIST-BOOK', price: 20 });
    const end = Date.now() + 1500;
    const campaign = await createCampaign(db, { code: 'LISTED', validTo: end, prices: [{ productId: product, price: 15 }] });
    const urls = [`/product?campaignId=${campaign}`, `/product/search?campaignId=${campaign}`];
    for (const url of urls) {
      const during = await get(url);
      expect(during.statusCode, during.body).toBe(200);
      expect(
        during.json().map((card: { code: string }) => card.code),
        url,
      ).toEqual(['LIST-BOOK']);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now()) + 100));
    for (const url of urls) {
      const after = await get(url);
      expect(after.statusCode, after.body).toBe(200);
      expect(after.json(), url).toEqual([]);
      expect(after.headers['x-pagination-total-count'], url).toBe('0');
    }
  });
});
