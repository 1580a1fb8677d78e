import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShop } from '../helpers/catalogue.js';
import { nameShop } from '../helpers/catalogue-blocks.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let viru = 0;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  viru = await createShop(db, { code: 'VIRU', name: 'Viru Keskus', city: 'Tallinn', position: 1 });
  await nameShop(db, viru, 'et', 'Viru Keskus', 'E-P 10-21');
  await nameShop(db, viru, 'en', 'Viru Centre', 'Mon-Sun 10-21');
  await db.updateTable('shop').set({ phone: '+372 600 0000', email: 'viru@shop.example' }).where('id', '=', viru).execute();
  await createShop(db, { code: 'TASKU', name: 'Tasku', city: 'Tartu', position: 2 });
  await createShop(db, { code: 'LADU', name: 'Ladu', city: 'Tallinn', webStock: false, position: 0 });
  const closed = await createShop(db, { code: 'CLOSED', name: 'Suletud', position: 3 });
  await db.updateTable('shop').set({ is_active: false }).where('id', '=', closed).execute();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codes = (res: { json(): unknown }) => (res.json() as Array<{ code: string }>).map((item) => item.code);

describe('GET /shop', () => {
  it('lists the active shops by position with contacts and opening hours', async () => {
    const res = await get('/shop');
    expect(res.statusCode, res.body).toBe(200);
    expect(codes(res)).toEqual(['LADU', 'VIRU', 'TASKU']);
    expect(res.json()[1]).toEqual({
      id: viru,
      code: 'VIRU',
      name: 'Viru Keskus',
      city: 'Tallinn',
      address: 'Viru 23',
      phone: '+372 600 0000',
      email: 'viru@shop.example',
      openingHours: 'E-P 10-21',
    });
    expect(res.json()[2]).toMatchObject({ name: 'Tasku', phone: null, openingHours: null });
    expect(res.headers['x-pagination-total-count']).toBe('3');
    expect(res.headers['cache-control']).toMatch(/^public/);
  });

  it('translates, with Estonian where a translation is missing', async () => {
    const en = (await get('/shop', { 'x-app-language': 'en' })).json();
    expect(en[1]).toMatchObject({ name: 'Viru Centre', openingHours: 'Mon-Sun 10-21' });
    expect(en[2]).toMatchObject({ name: 'Tasku' });
  });

  it('pages', async () => {
    const res = await get('/shop?per-page=2&page=2');
    expect(codes(res)).toEqual(['TASKU']);
    expect(res.headers['x-pagination-page-count']).toBe('2');
    expect((await get('/shop?page=3&per-page=2')).json()).toEqual([]);
  });

  it('answers a conditional GET of a guest with 304 and never stores a business answer', async () => {
    const first = await get('/shop');
    expect((await get('/shop', { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const res = await get('/shop', { authorization: `Bearer ${business.token}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses malformed paging, a bad token and an unknown store', async () => {
    expectErrorBody(await get('/shop?page=zero'), 400, 'Bad Request');
    expectErrorBody(await get('/shop', { authorization: 'Bearer x' }), 401, 'Unauthorized');
    expectErrorBody(await get('/shop', { store: 'SHOP' }), 400, 'Bad Request');
  });
});

describe('GET /shop/:code', () => {
  it('shows one active shop', async () => {
    expect((await get('/shop/VIRU', { 'x-app-language': 'en' })).json()).toMatchObject({ id: viru, code: 'VIRU', name: 'Viru Centre' });
  });

  it('is a 404 for a closed or unknown shop', async () => {
    const body = expectErrorBody(await get('/shop/CLOSED'), 404, 'Not Found');
    expect(body.message).toContain('CLOSED');
    expectErrorBody(await get('/shop/NOPE', { 'x-app-language': 'en' }), 404, 'Not Found');
    expectErrorBody(await get(`/shop/${'S'.repeat(41)}`), 400, 'Bad Request');
  });
});
