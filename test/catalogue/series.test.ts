import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct, createPublisher, createSeries } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids: Record<string, number> = {};
let businessAuth: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  ids.publisher = await createPublisher(db, 'Eesti Raamat', 'EESTI-RAAMAT');
  ids.other = await createPublisher(db, 'Varrak', 'VARRAK');
  ids.classics = await createSeries(db, 'Eesti klassika', { code: 'CLASSICS', publisherId: ids.publisher });
  ids.harry = await createSeries(db, 'Harry Potter', { code: 'HARRY', publisherId: ids.other });
  ids.loose = await createSeries(db, 'Ajalooline romaan', { code: 'LOOSE' });
  ids.b2bOnly = await createSeries(db, 'Ärisari', { code: 'B2B-SERIES' });
  ids.empty = await createSeries(db, 'Tühi sari', { code: 'EMPTY', publisherId: ids.publisher });
  await db.updateTable('series').set({ description: 'Kooli kohustuslik.' }).where('id', '=', ids.classics).execute();

  const volume = (code: string, seriesNumber: number | null, releasedAt: number, extra: Record<string, unknown> = {}) =>
    createProduct(db, { code, seriesId: ids.harry, seriesNumber, releasedAt, ...extra });
  await volume('HP-3', 3, Date.UTC(2002, 0, 1), { price: 25 });
  await volume('HP-1', 1, Date.UTC(2000, 0, 1), { price: 15 });
  await volume('HP-BOX', null, Date.UTC(2010, 0, 1), { price: 90 });
  await volume('HP-2', 2, Date.UTC(2001, 0, 1), { price: 20 });
  await volume('HP-SPECIAL', null, Date.UTC(2015, 0, 1), { price: 40 });
  await volume('HP-1-EBOOK', 1, Date.UTC(2012, 0, 1), { price: 9, type: 'EBOOK' });
  await volume('HP-4-B2B', 4, Date.UTC(2003, 0, 1), { hiddenWeb: true });
  await volume('HP-5-GONE', 5, Date.UTC(2004, 0, 1), { active: false });
  await createProduct(db, { code: 'TJO', seriesId: ids.classics, seriesNumber: 1 });
  await createProduct(db, { code: 'LOOSE-1', seriesId: ids.loose });
  await createProduct(db, { code: 'B2B', seriesId: ids.b2bOnly, hiddenWeb: true });
  const business = await createCustomer(db, { kind: 'BUSINESS' });
  businessAuth = { authorization: `Bearer ${business.token}` };
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codesOf = (body: Array<{ code: string }>) => body.map((item) => item.code);

describe('GET /series', () => {
  it('lists series with visible products in the store by name, with their publishers', async () => {
    const res = await get('/series');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      { id: ids.loose, code: 'LOOSE', name: 'Ajalooline romaan', publisher: null },
      {
        id: ids.classics,
        code: 'CLASSICS',
        name: 'Eesti klassika',
        publisher: { id: ids.publisher, code: 'EESTI-RAAMAT', name: 'Eesti Raamat' },
      },
      { id: ids.harry, code: 'HARRY', name: 'Harry Potter', publisher: { id: ids.other, code: 'VARRAK', name: 'Varrak' } },
    ]);
    expect(res.headers['x-pagination-total-count']).toBe('3');
    expect(res.headers['cache-control']).toBe('public, max-age=60');
  });

  it("follows the caller's catalogue and store", async () => {
    const business = await get('/series', businessAuth);
    expect(codesOf(business.json())).toContain('B2B-SERIES');
    expect(business.headers['cache-control']).toBe('no-store');
    expect((await get('/series', { store: 'WEB2' })).json()).toEqual([]);
  });

  it('filters by name prefix, first letter and publisher, and pages', async () => {
    expect(codesOf((await get('/series?q=harry%20p')).json())).toEqual(['HARRY']);
    expect(codesOf((await get('/series?letter=E')).json())).toEqual(['CLASSICS']);
    expect(codesOf((await get(`/series?publisherId=${ids.publisher}`)).json())).toEqual(['CLASSICS']);
    expect(codesOf((await get(`/series?publisherId=${ids.other}&q=eesti`)).json())).toEqual([]);
    expect(codesOf((await get('/series?publisherId=987654')).json())).toEqual([]);
    const page = await get('/series?per-page=2&page=2');
    expect(codesOf(page.json())).toEqual(['HARRY']);
    expect(page.headers['x-pagination-page-count']).toBe('2');
  });

  it('refuses malformed parameters with a 400', async () => {
    for (const query of ['publisherId=abc', 'publisherId=0', 'page=0', 'letter=ab', `q=${'y'.repeat(101)}`]) {
      expectErrorBody(await get(`/series?${query}`), 400, 'Bad Request');
    }
  });
});

describe('GET /series/:id', () => {
  it('gives the series with its publisher and the number of its visible products', async () => {
    const res = await get(`/series/${ids.classics}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: ids.classics,
      code: 'CLASSICS',
      name: 'Eesti klassika',
      description: 'Kooli kohustuslik.',
      publisher: { id: ids.publisher, code: 'EESTI-RAAMAT', name: 'Eesti Raamat' },
      productCount: 1,
    });
    expect((await get(`/series/${ids.loose}`)).json()).toMatchObject({ publisher: null, productCount: 1 });
    expect((await get(`/series/${ids.harry}`)).json().productCount).toBe(6);
    expect((await get(`/series/${ids.harry}`, businessAuth)).json().productCount).toBe(7);
  });

  it('shows a series without products in the store with a count of 0', async () => {
    expect((await get(`/series/${ids.empty}`)).json()).toMatchObject({ code: 'EMPTY', productCount: 0 });
    expect((await get(`/series/${ids.b2bOnly}`)).json()).toMatchObject({ code: 'B2B-SERIES', productCount: 0 });
  });

  it('is a 404 for an unknown series and a 400 for a malformed id', async () => {
    expectErrorBody(await get('/series/987654'), 404, 'Not Found');
    for (const bad of ['abc', '0', '1e3x']) expectErrorBody(await get(`/series/${bad}`), 400, 'Bad Request');
  });
});

describe('GET /series/:id/products', () => {
  it('lists the volumes by number, unnumbered ones last, newest first within a number', async () => {
    const res = await get(`/series/${ids.harry}/products`);
    expect(res.statusCode, res.body).toBe(200);
    expect(codesOf(res.json())).toEqual(['HP-1-EBOOK', 'HP-1', 'HP-2', 'HP-3', 'HP-SPECIAL', 'HP-BOX']);
    expect(res.headers['x-pagination-total-count']).toBe('6');
  });

  it('takes another sort and pages', async () => {
    expect(codesOf((await get(`/series/${ids.harry}/products?sort=newest`)).json())).toEqual([
      'HP-SPECIAL',
      'HP-1-EBOOK',
      'HP-BOX',
      'HP-3',
      'HP-2',
      'HP-1',
    ]);
    expect(codesOf((await get(`/series/${ids.harry}/products?sort=price`)).json())[0]).toBe('HP-1-EBOOK');
    const page = await get(`/series/${ids.harry}/products?per-page=4&page=2`);
    expect(codesOf(page.json())).toEqual(['HP-SPECIAL', 'HP-BOX']);
    expect(page.headers.link).toContain('rel="prev"');
    expect(codesOf((await get(`/series/${ids.harry}/products?sort=seriesNumber`, businessAuth)).json())).toEqual([
      'HP-1-EBOOK',
      'HP-1',
      'HP-2',
      'HP-3',
      'HP-4-B2B',
      'HP-SPECIAL',
      'HP-BOX',
    ]);
  });

  it('answers conditional GETs of guests with 304', async () => {
    const first = await get(`/series/${ids.harry}/products`);
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    expect((await get(`/series/${ids.harry}/products`, { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
  });

  it('is a 404 for an unknown series and a 400 for bad parameters', async () => {
    expectErrorBody(await get('/series/987654/products'), 404, 'Not Found');
    for (const query of ['sort=number', 'page=abc', 'per-page=0']) {
      expectErrorBody(await get(`/series/${ids.harry}/products?${query}`), 400, 'Bad Request');
    }
  });
});
