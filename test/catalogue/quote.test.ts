import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson, createProduct } from '../helpers/catalogue.js';
import { createQuote } from '../helpers/catalogue-blocks.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids: Record<string, number> = {};
const CREATED = Date.UTC(2026, 10, 22, 10, 15, 0);

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  ids.person = await createPerson(db, 'A. H. Tammsaare', 'TAMMSAARE');
  ids.quiet = await createPerson(db, 'Vaikija');
  ids.book = await createProduct(db, { code: 'TJO', name: 'Tõde ja õigus' });
  ids.hidden = await createProduct(db, { code: 'HID', name: 'Peidus', hiddenWeb: true });
  ids.outlet = await createProduct(db, { code: 'OUT', name: 'Outlet', stores: ['WEB2'] });
  ids.bookEt = await createQuote(db, {
    code: 'Q-TJO-ET',
    text: 'Tee tööd ja näe vaeva, siis tuleb ka armastus.',
    productId: ids.book,
    personId: ids.person,
    createdAt: CREATED,
  });
  ids.bookEn = await createQuote(db, {
    code: 'Q-TJO-EN',
    text: 'Work hard and love will come.',
    language: 'en',
    productId: ids.book,
    personId: ids.person,
  });
  ids.personEt = await createQuote(db, { code: 'Q-PERSON', text: 'Elu on üks.', personId: ids.person });
  ids.hiddenEt = await createQuote(db, { code: 'Q-HIDDEN', text: 'Peidetud.', productId: ids.hidden });
  ids.outletRu = await createQuote(db, { code: 'Q-OUT-RU', text: 'Цитата.', language: 'ru', productId: ids.outlet });
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codes = (res: { json(): unknown }) => (res.json() as Array<{ code: string }>).map((item) => item.code);

describe('GET /quote', () => {
  it("lists the quotes in the answer's language, the newest first, with product and person", async () => {
    const res = await get('/quote');
    expect(res.statusCode, res.body).toBe(200);
    expect(codes(res)).toEqual(['Q-PERSON', 'Q-TJO-ET']);
    expect(res.json()[1]).toEqual({
      id: ids.bookEt,
      code: 'Q-TJO-ET',
      text: 'Tee tööd ja näe vaeva, siis tuleb ka armastus.',
      language: 'et',
      product: { id: ids.book, code: 'TJO', name: 'Tõde ja õigus' },
      person: { id: ids.person, code: 'TAMMSAARE', name: 'A. H. Tammsaare' },
      createdAt: '2026-11-22T10:15:00Z',
    });
    expect(res.json()[0]).toMatchObject({ product: null, person: { code: 'TAMMSAARE' } });
    expect(res.headers['x-pagination-total-count']).toBe('2');
    expect(res.headers['cache-control']).toMatch(/^public/);
  });

  it('follows x-app-language, and shows every language when there is nothing in it', async () => {
    expect(codes(await get('/quote', { 'x-app-language': 'en' }))).toEqual(['Q-TJO-EN']);
    // The only Russian quote is about a product this store does not sell.
    expect(codes(await get('/quote', { 'x-app-language': 'ru' }))).toEqual(['Q-PERSON', 'Q-TJO-EN', 'Q-TJO-ET']);
    expect(codes(await get('/quote', { 'x-app-language': 'ru', store: 'WEB2' }))).toEqual(['Q-OUT-RU']);
  });

  it('takes an explicit language, or all, without the fallback', async () => {
    expect(codes(await get('/quote?language=all'))).toEqual(['Q-PERSON', 'Q-TJO-EN', 'Q-TJO-ET']);
    expect(codes(await get('/quote?language=en'))).toEqual(['Q-TJO-EN']);
    const none = await get('/quote?language=ru');
    expect(none.json()).toEqual([]);
    expect(none.headers['x-pagination-total-count']).toBe('0');
  });

  it('filters by product and by person', async () => {
    expect(codes(await get(`/quote?productId=${ids.book}`))).toEqual(['Q-TJO-ET']);
    expect(codes(await get(`/quote?productId=${ids.book}&language=all`))).toEqual(['Q-TJO-EN', 'Q-TJO-ET']);
    expect(codes(await get(`/quote?personId=${ids.person}`))).toEqual(['Q-PERSON', 'Q-TJO-ET']);
    expect(codes(await get(`/quote?personId=${ids.person}&productId=${ids.book}`, { 'x-app-language': 'en' }))).toEqual(['Q-TJO-EN']);
    expect((await get(`/quote?personId=${ids.quiet}`)).json()).toEqual([]);
  });

  it('shows business customers the quotes of the business catalogue, never stored', async () => {
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const res = await get('/quote', { authorization: `Bearer ${business.token}` });
    expect(codes(res)).toEqual(['Q-HIDDEN', 'Q-PERSON', 'Q-TJO-ET']);
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await get(`/quote?productId=${ids.hidden}`, { authorization: `Bearer ${business.token}` })).statusCode).toBe(200);
  });

  it('pages', async () => {
    const res = await get('/quote?language=all&per-page=2&page=2');
    expect(codes(res)).toEqual(['Q-TJO-ET']);
    expect(res.headers['x-pagination-page-count']).toBe('2');
    expect((await get('/quote?language=all&per-page=2&page=9')).json()).toEqual([]);
  });

  it('answers a conditional GET of a guest with 304', async () => {
    const first = await get('/quote');
    expect((await get('/quote', { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
  });

  it('is a 404 for a product the caller cannot see or an unknown person', async () => {
    for (const id of [ids.hidden, ids.outlet, 777_777]) expectErrorBody(await get(`/quote?productId=${id}`), 404, 'Not Found');
    expectErrorBody(await get('/quote?personId=777777'), 404, 'Not Found');
  });

  it('is a 400 for malformed parameters', async () => {
    for (const query of ['productId=abc', 'personId=0', 'language=de', 'page=0', 'per-page=-1']) {
      expectErrorBody(await get(`/quote?${query}`), 400, 'Bad Request');
    }
  });
});

describe('GET /product/:id/quotes', () => {
  it("lists one product's quotes", async () => {
    expect(codes(await get(`/product/${ids.book}/quotes`))).toEqual(['Q-TJO-ET']);
    expect(codes(await get(`/product/${ids.book}/quotes`, { 'x-app-language': 'en' }))).toEqual(['Q-TJO-EN']);
    expect(codes(await get(`/product/${ids.book}/quotes?language=all`))).toEqual(['Q-TJO-EN', 'Q-TJO-ET']);
  });

  it('is a 404 for an invisible product and a 400 for a malformed id', async () => {
    expectErrorBody(await get(`/product/${ids.hidden}/quotes`), 404, 'Not Found');
    expectErrorBody(await get('/product/x/quotes'), 400, 'Bad Request');
  });
});
