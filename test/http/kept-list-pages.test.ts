import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagingQuery, sendPageOfKeptList } from '../../src/http/paging.js';
import { createShop } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Lists a cache keeps (countries, shops) send each page as bytes kept beside the list
// (http/paging.ts, sendPageOfKeptList). With the caches on, as in production: every page size and
// page must be the same slice as before, in every language, and a new list must bring new pages.

const LIST_TTL_MS = 300;
let t: TestApp;
let token = '';

/** A kept list of a test route, and every body that route sent, as its hooks see them. */
const keptList = [{ code: 'EE' }, { code: 'LV' }, { code: 'LT' }];
const sentBodies: unknown[] = [];

beforeAll(async () => {
  t = await createTestApp({
    env: { STORE_CACHE_TTL_MS: String(LIST_TTL_MS), CATALOGUE_CACHE_TTL_MS: String(LIST_TTL_MS) },
    beforeReady: (app) => {
      const schema = { querystring: PagingQuery, response: { 200: Type.Array(Type.Object({ code: Type.String() })) } };
      const onSend = async (_request: unknown, _reply: unknown, payload: unknown) => {
        sentBodies.push(payload);
        return payload;
      };
      app.get('/test/kept-list', { config: { storeScoped: false }, schema, onSend }, (request, reply) =>
        sendPageOfKeptList(request, reply, request.query as PagingQuery, keptList),
      );
    },
  });
  for (const [index, code] of ['A1', 'A2', 'A3', 'A4', 'A5'].entries())
    await createShop(t.database.db, { code, name: `Shop ${code}`, city: 'Tallinn', position: index });
  // Logged in: the guest answer cache replays nothing to it, so every answer comes from the kept list.
  token = (await createCustomer(t.database.db)).token;
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('pages of a kept list', () => {
  it('are the slices of the whole list for every page size and page, twice over, in each language', async () => {
    for (const language of ['et', 'ru']) {
      const headers = { 'x-app-language': language };
      const whole = (await get('/country?per-page=100', headers)).json() as unknown[];
      expect(whole.length).toBeGreaterThan(40);
      expect(whole).toContainEqual({ code: 'DE', name: language === 'et' ? 'Saksamaa' : 'Германия' });
      for (const perPage of [1, 7, 20, whole.length, 100]) {
        const pageCount = Math.ceil(whole.length / perPage);
        for (let page = 1; page <= pageCount + 1; page += perPage === 1 ? 13 : 1) {
          for (let round = 0; round < 2; round += 1) {
            const res = await get(`/country?page=${page}&per-page=${perPage}`, headers);
            expect(res.statusCode, res.body).toBe(200);
            expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
            expect(res.json()).toEqual(whole.slice((page - 1) * perPage, page * perPage));
            expect(res.headers['x-pagination-current-page']).toBe(String(page));
            expect(res.headers['x-pagination-per-page']).toBe(String(perPage));
            expect(res.headers['x-pagination-page-count']).toBe(String(pageCount));
            expect(res.headers['x-pagination-total-count']).toBe(String(whole.length));
          }
        }
      }
    }
  });

  it('keep the links of the URL asked, whatever page was kept before', async () => {
    await get('/country?page=2&per-page=5');
    const res = await get('/country?sort=x&page=2&per-page=5');
    expect(res.headers.link).toContain('</country?sort=x&page=1&per-page=5>; rel="prev"');
    expect(res.json()).toEqual((await get('/country?page=2&per-page=5')).json());
  });

  it('leave out a Link too long for the URL that made it, and only for that one', async () => {
    const long = `/country?q=${'x'.repeat(3000)}&page=3&per-page=4`;
    for (let round = 0; round < 2; round += 1) {
      const res = await get(long);
      expect(res.headers.link).toBeUndefined();
      expect(res.headers['x-pagination-current-page']).toBe('3');
    }
    expect((await get('/country?page=3&per-page=4')).headers.link).toContain('rel="self"');
  });

  it('come from the new list once the cache loads it again', async () => {
    const first = (await get('/country?per-page=1', { 'x-app-language': 'en' })).json() as Array<{ code: string; name: string }>;
    expect(first).toEqual([{ code: 'EE', name: 'Estonia' }]);
    await t.database.db
      .updateTable('country_name')
      .set({ name: 'Eesti Vabariik' })
      .where('country_code', '=', 'EE')
      .where('language', '=', 'en')
      .execute();
    await wait(LIST_TTL_MS + 100);
    expect((await get('/country?per-page=1', { 'x-app-language': 'en' })).json()).toEqual([{ code: 'EE', name: 'Eesti Vabariik' }]);
  });

  it('of shops, for a logged-in customer, with the shop renamed after the cache period', async () => {
    const headers = { authorization: `Bearer ${token}` };
    const names = async (url: string) => ((await get(url, headers)).json() as Array<{ name: string }>).map((shop) => shop.name);
    expect(await names('/shop?per-page=2&page=2')).toEqual(['Shop A3', 'Shop A4']);
    expect(await names('/shop?per-page=3&page=2')).toEqual(['Shop A4', 'Shop A5']);
    expect(await names('/shop?per-page=2&page=2')).toEqual(['Shop A3', 'Shop A4']);
    await t.database.db.updateTable('shop_name').set({ name: 'Renamed' }).where('name', '=', 'Shop A3').execute();
    await wait(LIST_TTL_MS + 100);
    expect(await names('/shop?per-page=2&page=2')).toEqual(['Renamed', 'Shop A4']);
  });

  // Kept bodies (cards, guest answers) are Buffers of their own (http/serialization.ts, jsonBytes):
  // a short one from Buffer.from(text) is a slice of Node's shared 8 KB pool, and keeping it keeps the
  // whole slab alive with whatever else was written into it.
  it('are kept as bytes of their own, not slices of the shared pool they would keep alive', async () => {
    for (let round = 0; round < 2; round += 1) {
      const res = await get('/test/kept-list?per-page=2');
      expect(res.json()).toEqual([{ code: 'EE' }, { code: 'LV' }]);
      const body = sentBodies.at(-1) as Buffer;
      expect(Buffer.isBuffer(body)).toBe(true);
      expect(body.buffer.byteLength, `round ${round}`).toBe(body.length);
    }
  });
});
