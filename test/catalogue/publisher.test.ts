import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct, createPublisher } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids: Record<string, number> = {};
let businessAuth: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  ids.avita = await createPublisher(db, 'Avita', 'AVITA');
  ids.eestiRaamat = await createPublisher(db, 'Eesti Raamat', 'EESTI-RAAMAT');
  ids.varrak = await createPublisher(db, 'Varrak', 'VARRAK');
  ids.ohtuleht = await createPublisher(db, 'Õhtuleht', 'OHTULEHT');
  ids.tanapaev = await createPublisher(db, 'Tänapäev', 'TANAPAEV');
  ids.b2bOnly = await createPublisher(db, 'Ärikirjastus', 'B2B-PUB');
  ids.outletOnly = await createPublisher(db, 'Outlet kirjastus', 'OUTLET-PUB');
  ids.empty = await createPublisher(db, 'Tühi kirjastus', 'EMPTY-PUB');
  await db.updateTable('publisher').set({ description: 'Vana kirjastus.' }).where('id', '=', ids.eestiRaamat).execute();

  await createProduct(db, { code: 'ER-1', publisherId: ids.eestiRaamat, releasedAt: Date.UTC(2020, 0, 1), price: 20, salesCount: 5 });
  await createProduct(db, { code: 'ER-2', publisherId: ids.eestiRaamat, releasedAt: Date.UTC(2023, 0, 1), price: 10, salesCount: 50 });
  await createProduct(db, { code: 'ER-3', publisherId: ids.eestiRaamat, releasedAt: Date.UTC(2021, 0, 1), price: 30, salesCount: 1 });
  await createProduct(db, { code: 'ER-B2B', publisherId: ids.eestiRaamat, hiddenWeb: true });
  await createProduct(db, { code: 'ER-GONE', publisherId: ids.eestiRaamat, active: false });
  await createProduct(db, { code: 'AV', publisherId: ids.avita });
  await createProduct(db, { code: 'VA', publisherId: ids.varrak });
  await createProduct(db, { code: 'OH', publisherId: ids.ohtuleht });
  await createProduct(db, { code: 'TP', publisherId: ids.tanapaev });
  await createProduct(db, { code: 'B2B', publisherId: ids.b2bOnly, hiddenWeb: true });
  await createProduct(db, { code: 'OUT', publisherId: ids.outletOnly, stores: ['WEB2'] });
  const business = await createCustomer(db, { kind: 'BUSINESS' });
  businessAuth = { authorization: `Bearer ${business.token}` };
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codesOf = (body: Array<{ code: string }>) => body.map((item) => item.code);

async function publishers(query = '', headers: Record<string, string> = {}) {
  const res = await get(`/publisher${query === '' ? '' : `?${query}`}`, headers);
  expect(res.statusCode, res.body).toBe(200);
  return { res, codes: codesOf(res.json()) };
}

describe('GET /publisher', () => {
  it('lists publishers of visible products in the store by name', async () => {
    const { res, codes } = await publishers();
    expect([...codes].sort()).toEqual(['AVITA', 'EESTI-RAAMAT', 'OHTULEHT', 'TANAPAEV', 'VARRAK']);
    expect(codes.filter((code) => ['AVITA', 'EESTI-RAAMAT', 'VARRAK'].includes(code))).toEqual(['AVITA', 'EESTI-RAAMAT', 'VARRAK']);
    expect(res.json()[0]).toEqual({ id: ids.avita, code: 'AVITA', name: 'Avita' });
    expect(res.headers['x-pagination-total-count']).toBe('5');
    expect(res.headers['cache-control']).toBe('public, max-age=60');
  });

  it("follows the caller's catalogue and store", async () => {
    expect((await publishers('', businessAuth)).codes).toContain('B2B-PUB');
    expect((await publishers('', { store: 'WEB2' })).codes).toEqual(['OUTLET-PUB']);
  });

  it('filters by name prefix and first letter, case-insensitive', async () => {
    expect((await publishers('q=eesti%20r')).codes).toEqual(['EESTI-RAAMAT']);
    expect((await publishers(`q=${encodeURIComponent('õhtu')}`)).codes).toEqual(['OHTULEHT']);
    expect((await publishers(`q=${encodeURIComponent('TÄNA')}`)).codes).toEqual(['TANAPAEV']);
    expect((await publishers('letter=v')).codes).toEqual(['VARRAK']);
    expect((await publishers('q=%25')).codes).toEqual([]);
    expect((await publishers('q=Raamat')).codes).toEqual([]);
  });

  it('pages', async () => {
    const all = (await publishers()).codes;
    const page = await publishers('per-page=2&page=2');
    expect(page.codes).toEqual(all.slice(2, 4));
    expect(page.res.headers['x-pagination-page-count']).toBe('3');
    expect((await publishers('page=4&per-page=2')).codes).toEqual([]);
  });

  it('refuses malformed parameters with a 400', async () => {
    for (const query of ['page=0', 'per-page=x', 'letter=xy', 'q=%00']) {
      expectErrorBody(await get(`/publisher?${query}`), 400, 'Bad Request');
    }
  });
});

describe('GET /publisher/:id', () => {
  it('gives the publisher with the number of its visible products', async () => {
    const res = await get(`/publisher/${ids.eestiRaamat}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: ids.eestiRaamat,
      code: 'EESTI-RAAMAT',
      name: 'Eesti Raamat',
      description: 'Vana kirjastus.',
      productCount: 3,
    });
    const business = await get(`/publisher/${ids.eestiRaamat}`, businessAuth);
    expect(business.json().productCount).toBe(4);
    expect(business.headers['cache-control']).toBe('no-store');
  });

  it('shows a publisher without products in the store with a count of 0', async () => {
    expect((await get(`/publisher/${ids.empty}`)).json()).toMatchObject({ code: 'EMPTY-PUB', productCount: 0 });
    expect((await get(`/publisher/${ids.outletOnly}`)).json().productCount).toBe(0);
  });

  it('is a 404 for an unknown publisher and a 400 for a malformed id', async () => {
    expectErrorBody(await get('/publisher/987654'), 404, 'Not Found');
    for (const bad of ['abc', '0', '-2', '2.5']) expectErrorBody(await get(`/publisher/${bad}`), 400, 'Bad Request');
  });
});

describe('GET /publisher/:id/products', () => {
  it('lists its visible products, newest first, sortable and paged', async () => {
    const res = await get(`/publisher/${ids.eestiRaamat}/products`);
    expect(res.statusCode, res.body).toBe(200);
    expect(codesOf(res.json())).toEqual(['ER-2', 'ER-3', 'ER-1']);
    expect(res.headers['x-pagination-total-count']).toBe('3');
    expect(codesOf((await get(`/publisher/${ids.eestiRaamat}/products?sort=-price`)).json())).toEqual(['ER-3', 'ER-1', 'ER-2']);
    expect(codesOf((await get(`/publisher/${ids.eestiRaamat}/products?sort=sales`)).json())).toEqual(['ER-2', 'ER-1', 'ER-3']);
    expect(codesOf((await get(`/publisher/${ids.eestiRaamat}/products?per-page=1&page=2`)).json())).toEqual(['ER-3']);
    expect(codesOf((await get(`/publisher/${ids.eestiRaamat}/products`, businessAuth)).json())).toContain('ER-B2B');
  });

  it('answers conditional GETs of guests with 304', async () => {
    const first = await get(`/publisher/${ids.eestiRaamat}/products`);
    expect((await get(`/publisher/${ids.eestiRaamat}/products`, { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
  });

  it('is a 404 for an unknown publisher and a 400 for bad parameters', async () => {
    expectErrorBody(await get('/publisher/987654/products'), 404, 'Not Found');
    for (const query of ['sort=cheapest', 'page=-1', 'per-page=0']) {
      expectErrorBody(await get(`/publisher/${ids.eestiRaamat}/products?${query}`), 400, 'Bad Request');
    }
  });
});
