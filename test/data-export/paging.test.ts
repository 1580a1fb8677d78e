import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorBody } from '../helpers/http.js';
import { T0, exportUser, insertSaleSeries, insertSales } from './fixtures.js';

let t: TestApp;
let authorization: string;

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization, ...headers } });
const orders = (response: { json(): unknown }) => (response.json() as Array<{ order: string }>).map((item) => item.order);

beforeAll(async () => {
  // Counts are kept for a minute here, so the test of "counted once per filter" can see it.
  t = await createTestApp({ env: { DATA_EXPORT_COUNT_CACHE_TTL_MS: '60000' } });
  ({ authorization } = await exportUser(t.database.db));
  await insertSaleSeries(t.database.db, 250);
});

afterAll(() => t.close());

describe('paging headers and links', () => {
  it('100 per page by default, with X-Pagination-* and Link', async () => {
    const response = await get('/sales-history');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveLength(100);
    expect(response.headers['x-pagination-current-page']).toBe('1');
    expect(response.headers['x-pagination-page-count']).toBe('3');
    expect(response.headers['x-pagination-per-page']).toBe('100');
    expect(response.headers['x-pagination-total-count']).toBe('250');
    const link = String(response.headers.link);
    expect(link).toContain('</export/sales-history?page=1&per-page=100>; rel="self"');
    expect(link).toContain('</export/sales-history?page=1&per-page=100>; rel="first"');
    expect(link).toContain('</export/sales-history?page=2&per-page=100>; rel="next"');
    expect(link).toContain('</export/sales-history?page=3&per-page=100>; rel="last"');
    expect(link).not.toContain('rel="prev"');
  });

  it('the last page is short and has prev but no next', async () => {
    const response = await get('/sales-history?page=3');
    expect(response.json()).toHaveLength(50);
    expect(orders(response)[0]).toBe('WT00201');
    const link = String(response.headers.link);
    expect(link).toContain('page=2&per-page=100>; rel="prev"');
    expect(link).not.toContain('rel="next"');
  });

  it('a page past the end is an empty array with the headers', async () => {
    const response = await get('/sales-history?page=40&per-page=10');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
    expect(response.headers['x-pagination-current-page']).toBe('40');
    expect(response.headers['x-pagination-page-count']).toBe('25');
    expect(String(response.headers.link)).toContain('page=25&per-page=10>; rel="last"');
  });

  it('per-page is capped at 1000', async () => {
    const response = await get('/sales-history?per-page=5000');
    expect(response.headers['x-pagination-per-page']).toBe('1000');
    expect(response.json()).toHaveLength(250);
  });

  it.each([['page=0'], ['page=-1'], ['page=abc'], ['page=1.5'], ['per-page=0'], ['per-page=x'], ['page=99999999999']])(
    'a malformed %s is a 400 naming the parameter',
    async (query) => {
      const body = expectErrorBody(await get(`/sales-history?${query}`), 400, 'Bad Request');
      expect(body.message).toContain(query.split('=')[0]);
    },
  );
});

describe('walking pages', () => {
  it('a walk sees every row once, in creation order, whatever the page size', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 36; page += 1) seen.push(...orders(await get(`/sales-history?page=${page}&per-page=7`)));
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    expect(seen).toEqual([...seen].sort());
  });

  it('a page read by seek (after walking to it) equals the same page read cold', async () => {
    const cold = orders(await get('/sales-history?page=9&per-page=13'));
    for (let page = 1; page <= 8; page += 1) await get(`/sales-history?page=${page}&per-page=13`);
    const warm = orders(await get('/sales-history?page=9&per-page=13'));
    expect(warm).toEqual(cold);
    expect(warm[0]).toBe('WT00105');
  });

  it('rows created later do not shift the pages already served', async () => {
    const before = orders(await get('/sales-history?page=2&per-page=50'));
    await insertSaleSeries(t.database.db, 5, T0 + 10_000_000, 'WN');
    const after = orders(await get('/sales-history?page=2&per-page=50'));
    expect(after).toEqual(before);
  });

  it('rows created in the same millisecond are ordered by id', async () => {
    const at = T0 - 50_000;
    await insertSales(t.database.db, [
      { order: 'SAME-B', createdAt: at },
      { order: 'SAME-A', createdAt: at },
      { order: 'SAME-C', createdAt: at },
    ]);
    const window = 'createdFrom=2026-11-01%2011:59:10&createdTo=2026-11-01%2011:59:10';
    const items = orders(await get(`/sales-history?${window}&per-page=2`));
    const next = orders(await get(`/sales-history?${window}&per-page=2&page=2`));
    expect([...items, ...next]).toEqual(['SAME-B', 'SAME-A', 'SAME-C']);
  });

  it('the total is counted once per filter and reused for a while', async () => {
    // After the series (which ends on T0's day), and in the past: the export shows no row stamped ahead of now.
    const window = 'createdFrom=2026-11-02%2000:00:00';
    const first = await get(`/sales-history?${window}`);
    expect(first.headers['x-pagination-total-count']).toBe('0');
    await insertSales(t.database.db, [{ order: 'LATER-1', createdAt: Date.UTC(2026, 10, 2, 12) }]);
    const second = await get(`/sales-history?${window}`);
    expect(second.headers['x-pagination-total-count']).toBe('0');
    // Another filter is counted on its own.
    const other = await get('/sales-history?createdFrom=2026-11-02%2000:00:01');
    expect(other.headers['x-pagination-total-count']).toBe('1');
    expect(orders(other)).toEqual(['LATER-1']);
  });
});
