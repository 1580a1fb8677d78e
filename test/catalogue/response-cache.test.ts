import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// With a catalogue cache period (the default in production), a guest's answer is kept whole and
// replayed; everything that must still happen per request does.

let t: TestApp;
let productId: number;

beforeAll(async () => {
  t = await createTestApp({ env: { CATALOGUE_CACHE_TTL_MS: '60000' } });
  productId = await createProduct(t.database.db, { code: 'CACHED', name: 'Esimene nimi' });
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const rename = (name: string) => t.database.db.updateTable('product').set({ name }).where('id', '=', productId).execute();

describe('the guest response cache', () => {
  it("replays a guest's answer with its headers, and never a logged-in caller's", async () => {
    const first = await get(`/product/${productId}`);
    expect(first.json().name).toBe('Esimene nimi');
    await rename('Teine nimi');
    const replayed = await get(`/product/${productId}`);
    expect(replayed.json().name).toBe('Esimene nimi');
    for (const header of ['etag', 'cache-control', 'vary', 'content-type'])
      expect(replayed.headers[header], header).toBe(first.headers[header]);
    expect(replayed.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect((await get(`/product/${productId}`, { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
    // Other languages and lists are other answers; the list's pagination headers come along.
    const list = await get('/product?per-page=5');
    expect((await get('/product?per-page=5')).headers['x-pagination-total-count']).toBe(list.headers['x-pagination-total-count']);
    const retail = await createCustomer(t.database.db);
    // A logged-in answer is made for the caller (the data it reads is cached; the answer is not).
    const own = await get(`/product/${productId}`, { authorization: `Bearer ${retail.token}` });
    expect(own.statusCode).toBe(200);
    expect(own.headers['cache-control']).toBe('private, max-age=60');
  });

  it("keeps a list's Link header within its length whichever URL of one answer comes first", async () => {
    const pad = `pad=${'x'.repeat(3000)}`;
    // A long URL first: its answer (no Link) is not kept, so the short URL still gets its links.
    expect((await get(`/product?per-page=2&${pad}`)).headers.link).toBeUndefined();
    expect(String((await get('/product?per-page=2')).headers.link)).toContain('</product?page=1&per-page=2>; rel="self"');
    // A short URL first: replayed to a long one, the rewritten links would pass the length, so they are left out.
    expect((await get('/product?per-page=3')).headers.link).toBeDefined();
    const replayed = await get(`/product?per-page=3&${pad}`);
    expect(replayed.statusCode).toBe(200);
    expect(replayed.headers.link).toBeUndefined();
    expect(replayed.headers['x-pagination-per-page']).toBe('3');
  });

  it('still checks the store and the request before replaying', async () => {
    const url = `/product/${productId}?x=1`;
    const cached = await get(url);
    expect(cached.statusCode).toBe(200);
    await rename('Kolmas nimi');
    // The answer is kept: replayed as it was, not read again.
    expect((await get(url)).json().name).toBe(cached.json().name);
    await t.database.db.updateTable('web_store').set({ is_locked: true }).where('code', '=', 'WEB').execute();
    try {
      // A locked store answers 423 with its own body, not the kept answer.
      const locked = await get(url);
      expectErrorBody(locked, 423, 'Locked');
      expect(locked.headers.etag).toBeUndefined();
    } finally {
      await t.database.db.updateTable('web_store').set({ is_locked: false }).where('code', '=', 'WEB').execute();
    }
    // An unknown store is refused before the kept answer of the same URL could be replayed.
    const unknownStore = await get(url, { store: 'NOPE' });
    expectErrorBody(unknownStore, 400, 'Bad Request');
    expect(unknownStore.json().message).toContain('NOPE');
    // The request is validated first too; and the kept answer is there again once the store is open.
    expectErrorBody(await get('/product?page=0'), 400, 'Bad Request');
    const again = await get(url);
    expect(again.json().name).toBe(cached.json().name);
    expect(again.headers.etag).toBe(cached.headers.etag);
  });

  it('records a view for a product page answered from the cache', async () => {
    await get(`/product/${productId}?view=1`);
    await get(`/product/${productId}?view=1`, { 'x-session-id': 'sess-replayed' });
    let rows: unknown[] = [];
    for (let attempt = 0; attempt < 40 && rows.length === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await t.database.db.selectFrom('session_action').selectAll().where('session_id', '=', 'sess-replayed').execute();
    }
    expect(rows).toEqual([expect.objectContaining({ product_code: 'CACHED', action_type: 'VIEW', client_code: null })]);
  });
});
