import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createBulkProducts } from './bulk-catalogue.js';

// A search serves its first RESULT_WINDOW (10,000) results and no deeper. A page that starts inside
// the window and ends past it holds the results up to the window's end: with 30 per page, page 334
// starts at result 9,991, and answering it empty left a client paging through never seeing the
// results 9,991 to 10,000.

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  await createBulkProducts(t, 10_005);
}, 120_000);

afterAll(() => t.close());

const ids = async (url: string) => {
  const response = await t.app.inject({ url, headers: { store: 'WEB' } });
  expect(response.statusCode, response.body).toBe(200);
  return { ids: (response.json() as Array<{ id: number }>).map((card) => card.id), total: response.headers['x-pagination-total-count'] };
};

describe('the result window', () => {
  it('serves a page that straddles the window up to its end, and nothing past it', async () => {
    const straddling = await ids('/product/search?q=bulk&sort=name&per-page=30&page=334');
    const inside = await ids('/product/search?q=bulk&sort=name&per-page=10&page=1000');
    expect(inside.ids).toHaveLength(10);
    expect(straddling.ids).toEqual(inside.ids);
    expect(straddling.total).toBe('10005');
    expect((await ids('/product/search?q=bulk&sort=name&per-page=30&page=335')).ids).toEqual([]);
    expect((await ids('/product/search?q=bulk&sort=name&per-page=10&page=1001')).ids).toEqual([]);
  });

  it('counts pages and links the last page up to the window, and keeps the true total', async () => {
    // A paginator drawn from a page count past the window offered pages that came back empty.
    const response = await t.app.inject({ url: '/product/search?q=bulk&sort=name&per-page=30&page=334', headers: { store: 'WEB' } });
    expect(response.headers['x-pagination-total-count']).toBe('10005');
    expect(response.headers['x-pagination-page-count']).toBe('334');
    const link = String(response.headers.link);
    expect(link).toContain('page=334&per-page=30>; rel="last"');
    expect(link).not.toContain('rel="next"');
    const first = await t.app.inject({ url: '/product/search?q=bulk&sort=name&per-page=100', headers: { store: 'WEB' } });
    expect(first.headers['x-pagination-page-count']).toBe('100');
    expect(String(first.headers.link)).toContain('page=100&per-page=100>; rel="last"');
  });
});
