import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { readState, searchIndexReadiness } from '../../src/modules/search/index.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createBulkProducts } from './bulk-catalogue.js';

// Issue 18, point 5: a catalogue filled before its index (a first import, the demo) is not
// searchable until an API process has folded the queued changes: searches answer 503 with
// Retry-After meanwhile (never a fraction of the catalogue as if it were all of it), and
// searchIndexReadiness (what /site/ready asks) says why.

async function withApp(work: (t: TestApp) => Promise<void>): Promise<void> {
  const t = await createTestApp();
  try {
    await work(t);
  } finally {
    await t.close();
  }
}

const total = (response: { headers: Record<string, unknown> }) => Number(response.headers['x-pagination-total-count']);

async function waitUntilReady(t: TestApp): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await searchIndexReadiness(t.database, Date.now())).ready && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('a first import', () => {
  it('answers 503 with Retry-After until an API process has folded it, then finds every product', async () => {
    await withApp(async (t) => {
      await createBulkProducts(t, 1_200, 'FIRST', { fold: false });
      expect(await searchIndexReadiness(t.database, Date.now())).toEqual({ ready: false, reason: 'building', queued: 1_200 });
      for (const url of ['/product/search?q=bulk', '/autocomplete?term=bulk', '/product-dynamic-filter/filters?q=bulk']) {
        const response = await t.app.inject({ url });
        expectErrorBody(response, 503, 'Service Unavailable');
        expect(response.headers['retry-after'], url).toBe('5');
        expect(response.headers['x-search-available'], url).toBe('0');
      }
      // A search folds nothing while the index is building: the queue is the background's.
      expect(await readState(t.database.db)).toEqual({ status: 'building', backlog: 1_200, queued: true });

      await t.app.listen({ port: 0, host: '127.0.0.1' });
      await waitUntilReady(t);
      expect(await searchIndexReadiness(t.database, Date.now())).toEqual({ ready: true, queued: 0 });
      const found = await t.app.inject({ url: '/product/search?q=bulk&per-page=1' });
      expect(found.statusCode).toBe(200);
      expect(found.headers['x-search-available']).toBe('1');
      expect(total(found)).toBe(1_200);
    });
  });

  it('answers at once when a search can fold all of it (a few hundred changes)', async () => {
    await withApp(async (t) => {
      await createBulkProducts(t, 300, 'SMALL', { fold: false });
      expect(await searchIndexReadiness(t.database, Date.now())).toEqual({ ready: true, queued: 300 });
      const found = await t.app.inject({ url: '/product/search?q=bulk&per-page=1' });
      expect(found.statusCode).toBe(200);
      expect(total(found)).toBe(300);
    });
  });

  it('finds every product of a few hundred imported by the back office at the first search', async () => {
    // Each imported product queues a visibility change beside its own: a search's batch taken in queue
    // order folded half of the products, and the first search answered with the other half missing.
    const { t, key } = await createBackOfficeApp();
    try {
      const line = (n: number) => ({
        code: `SPRING-${n}`,
        type: 'BOOK',
        name: `Kevade ${n}`,
        shopPrice: 10,
        vatRate: 9,
        availability: 'AVAILABLE',
        stores: ['WEB'],
      });
      const imported = await t.app.inject({
        method: 'POST',
        url: '/admin/import/products',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
        payload: Array.from({ length: 400 }, (_, n) => JSON.stringify(line(n))).join('\n'),
      });
      expect(imported.statusCode, imported.body).toBe(200);
      expect(await searchIndexReadiness(t.database, Date.now())).toEqual({ ready: true, queued: 400 });
      const found = await t.app.inject({ url: '/product/search?q=kevade&per-page=1', headers: { store: 'WEB' } });
      expect(found.statusCode).toBe(200);
      expect(total(found)).toBe(400);
      const last = await t.app.inject({ url: '/product/search?q=kevade%20399', headers: { store: 'WEB' } });
      expect((last.json() as Array<{ code: string }>).map((card) => card.code)).toEqual(['SPRING-399']);
    } finally {
      await t.close();
    }
  });

  it('stays ready for later imports into an index that has documents (searches fold as they go)', async () => {
    await withApp(async (t) => {
      await createBulkProducts(t, 100, 'OLD');
      await createBulkProducts(t, 900, 'NEW', { fold: false });
      expect(await searchIndexReadiness(t.database, Date.now())).toEqual({ ready: true, queued: 900 });
      expect((await t.app.inject({ url: '/product/search?q=bulk&per-page=1' })).statusCode).toBe(200);
      expect((await readState(t.database.db)).status).toBe('ready');
    });
  });

  it('says the index is missing (not an error) when its tables are gone', async () => {
    await withApp(async (t) => {
      await sql`drop table search_state`.execute(t.database.db);
      expect(await searchIndexReadiness(t.database, Date.now())).toEqual({ ready: false, reason: 'missing', queued: 0 });
    });
  });
});
