import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createProduct } from '../helpers/catalogue.js';
import { nameCampaign } from '../helpers/catalogue-blocks.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const DAY = 86_400_000;
const ids = {} as Record<
  'a' | 'b' | 'hiddenWeb' | 'inactive' | 'outlet' | 'hiddenBusiness' | 'spring' | 'always' | 'future' | 'expired' | 'off' | 'web2',
  number
>;
let springFrom = 0;
let springTo = 0;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  ids.a = await createProduct(db, { code: 'A', name: 'Aabits', price: 20 });
  ids.b = await createProduct(db, { code: 'B', name: 'Bemba', price: 20 });
  ids.hiddenWeb = await createProduct(db, { code: 'HW', hiddenWeb: true });
  ids.inactive = await createProduct(db, { code: 'OFF', active: false });
  ids.outlet = await createProduct(db, { code: 'OUT', stores: ['WEB2'] });
  ids.hiddenBusiness = await createProduct(db, { code: 'HB', hiddenBusiness: true });
  springFrom = Math.floor((Date.now() - DAY) / 1000) * 1000;
  springTo = Math.floor((Date.now() + 10 * DAY) / 1000) * 1000;
  ids.spring = await createCampaign(db, {
    code: 'SPRING',
    names: { et: 'Kevad', en: 'Spring' },
    validFrom: springFrom,
    validTo: springTo,
    prices: [
      { productId: ids.b, price: 12 },
      { productId: ids.b, price: 14, kind: 'BUSINESS' },
      { productId: ids.a, price: 15 },
      { productId: ids.hiddenWeb, price: 10 },
      { productId: ids.inactive, price: 10 },
      { productId: ids.outlet, price: 10 },
      { productId: ids.hiddenBusiness, price: 10 },
    ],
  });
  ids.always = await createCampaign(db, { code: 'ALWAYS', names: { et: 'Alati' }, prices: [{ productId: ids.a, price: 18 }] });
  await nameCampaign(db, ids.always, 'et', 'Alati', 'Iga päev');
  await db.updateTable('campaign').set({ position: 2 }).where('id', '=', ids.spring).execute();
  await db.updateTable('campaign').set({ position: 1, image_url: 'https://img.example/always.jpg' }).where('id', '=', ids.always).execute();
  ids.future = await createCampaign(db, { code: 'FUTURE', validFrom: Date.now() + DAY, prices: [{ productId: ids.a, price: 1 }] });
  ids.expired = await createCampaign(db, { code: 'EXPIRED', validTo: Date.now() - 1000, prices: [{ productId: ids.a, price: 1 }] });
  ids.off = await createCampaign(db, { code: 'INACTIVE', active: false, prices: [{ productId: ids.a, price: 1 }] });
  ids.web2 = await createCampaign(db, { code: 'OUTLET', store: 'WEB2', prices: [{ productId: ids.outlet, price: 5 }] });
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('GET /campaign', () => {
  it("lists the store's campaigns valid now, by position, with what the guest can see in them", async () => {
    const res = await get('/campaign');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      {
        id: ids.always,
        code: 'ALWAYS',
        name: 'Alati',
        description: 'Iga päev',
        imageUrl: 'https://img.example/always.jpg',
        validFrom: null,
        validTo: null,
        productCount: 1,
      },
      {
        id: ids.spring,
        code: 'SPRING',
        name: 'Kevad',
        description: null,
        imageUrl: null,
        validFrom: new Date(springFrom).toISOString().replace('.000Z', 'Z'),
        validTo: new Date(springTo).toISOString().replace('.000Z', 'Z'),
        // a, b and the one hidden from business customers only
        productCount: 3,
      },
    ]);
    expect(res.headers['x-pagination-total-count']).toBe('2');
    expect(res.headers['x-pagination-current-page']).toBe('1');
    expect(res.headers['x-pagination-per-page']).toBe('20');
    expect(res.headers['x-pagination-page-count']).toBe('1');
    expect(String(res.headers.link)).toContain('rel="self"');
  });

  it('translates, with Estonian where a translation is missing', async () => {
    const en = (await get('/campaign', { 'x-app-language': 'en' })).json();
    expect(en.map((c: { name: string }) => c.name)).toEqual(['Alati', 'Spring']);
    expect(en[0].description).toBe('Iga päev');
    const ru = (await get('/campaign', { 'x-app-language': 'ru' })).json();
    expect(ru.map((c: { name: string }) => c.name)).toEqual(['Alati', 'Kevad']);
  });

  it('counts the business catalogue for business customers and never lets that answer be stored', async () => {
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const res = await get('/campaign', { authorization: `Bearer ${business.token}` });
    expect(res.statusCode).toBe(200);
    // a, b and the one hidden from the public web
    expect(res.json().find((c: { code: string }) => c.code === 'SPRING').productCount).toBe(3);
    expect(res.json().find((c: { code: string }) => c.code === 'ALWAYS').productCount).toBe(1);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.etag).toBeUndefined();
  });

  it('shows each store its own campaigns', async () => {
    const res = await get('/campaign', { store: 'WEB2' });
    expect(res.json()).toEqual([expect.objectContaining({ id: ids.web2, code: 'OUTLET', productCount: 1 })]);
  });

  it('pages', async () => {
    const res = await get('/campaign?per-page=1&page=2');
    expect(res.json().map((c: { code: string }) => c.code)).toEqual(['SPRING']);
    expect(res.headers['x-pagination-page-count']).toBe('2');
    expect((await get('/campaign?page=3&per-page=1')).json()).toEqual([]);
  });

  it('lets shared caches keep the guest answer and answers a conditional GET with 304', async () => {
    const first = await get('/campaign');
    expect(first.headers['cache-control']).toMatch(/^public/);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^".+"$/);
    expect((await get('/campaign', { 'if-none-match': etag })).statusCode).toBe(304);
    expect((await get('/campaign', { 'if-none-match': etag, 'x-app-language': 'en' })).statusCode).toBe(200);
  });

  it('refuses malformed paging and a bad token', async () => {
    expectErrorBody(await get('/campaign?page=0'), 400, 'Bad Request');
    expectErrorBody(await get('/campaign?per-page=x'), 400, 'Bad Request');
    expectErrorBody(await get('/campaign', { authorization: 'Bearer nope' }), 401, 'Unauthorized');
    expectErrorBody(await get('/campaign', { store: 'NOPE' }), 400, 'Bad Request');
  });
});

describe('GET /campaign/:id and /campaign/code/:code', () => {
  it('shows one campaign valid now', async () => {
    const res = await get(`/campaign/${ids.spring}`, { 'x-app-language': 'en' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: ids.spring, code: 'SPRING', name: 'Spring', productCount: 3 });
    expect((await get('/campaign/code/SPRING')).json()).toMatchObject({ id: ids.spring, name: 'Kevad' });
  });

  it("is a 404 for a campaign not shown now: future, expired, inactive, another store's, unknown", async () => {
    for (const id of [ids.future, ids.expired, ids.off, ids.web2, 999_999]) {
      const body = expectErrorBody(await get(`/campaign/${id}`), 404, 'Not Found');
      expect(body.message).toContain(String(id));
      expectErrorBody(await get(`/campaign/${id}/products`), 404, 'Not Found');
    }
    for (const code of ['FUTURE', 'EXPIRED', 'INACTIVE', 'OUTLET', 'NOPE'])
      expectErrorBody(await get(`/campaign/code/${code}`), 404, 'Not Found');
    expect((await get(`/campaign/${ids.web2}`, { store: 'WEB2' })).statusCode).toBe(200);
  });

  it('refuses malformed ids', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) expectErrorBody(await get(`/campaign/${id}`), 400, 'Bad Request');
    expectErrorBody(await get(`/campaign/code/${'X'.repeat(41)}`), 400, 'Bad Request');
  });
});

describe('GET /campaign/:id/products', () => {
  it("lists the visible products in the campaign's order with the campaign price on the cards", async () => {
    const res = await get(`/campaign/${ids.spring}/products`);
    expect(res.statusCode, res.body).toBe(200);
    const cards = res.json() as Array<{ id: number; price: number; strikeThroughPrice: number | null }>;
    expect(cards.map((card) => card.id)).toEqual([ids.b, ids.a, ids.hiddenBusiness]);
    expect(cards[0]).toMatchObject({ price: 12, strikeThroughPrice: 20, discountPercent: 40 });
    expect(cards[1]).toMatchObject({ price: 15, strikeThroughPrice: 20 });
    expect(res.headers['x-pagination-total-count']).toBe('3');
  });

  it('gives business customers their campaign price and the business catalogue', async () => {
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const res = await get(`/campaign/${ids.spring}/products`, { authorization: `Bearer ${business.token}` });
    const cards = res.json() as Array<{ id: number; price: number; strikeThroughPrice: number | null }>;
    expect(cards.map((card) => card.id)).toEqual([ids.b, ids.a, ids.hiddenWeb]);
    // b has a business campaign price; a only a retail one, so business pays the shop price
    expect(cards[0]).toMatchObject({ price: 14, strikeThroughPrice: null });
    expect(cards[1]).toMatchObject({ price: 20 });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('sorts and pages on request', async () => {
    const byName = await get(`/campaign/${ids.spring}/products?sort=name&per-page=2`);
    expect(byName.json().map((card: { code: string }) => card.code)).toEqual(['A', 'B']);
    expect(byName.headers['x-pagination-page-count']).toBe('2');
    expect((await get(`/campaign/${ids.spring}/products?page=5`)).json()).toEqual([]);
    expectErrorBody(await get(`/campaign/${ids.spring}/products?sort=random`), 400, 'Bad Request');
    expectErrorBody(await get(`/campaign/${ids.spring}/products?page=-1`), 400, 'Bad Request');
  });
});
