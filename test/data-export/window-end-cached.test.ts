import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { exportUser, insertSales, nextSecond, sleep, ymdHis } from './fixtures.js';

// A window asked for before its end is cut at the settle time; asked again once it has ended, it is
// answered whole (DATA_EXPORT_SETTLE_MS). The total counted for the cut read, and a page read ahead
// for it, must not stand in for the whole one (they are cached per window, DATA_EXPORT_COUNT_CACHE_TTL_MS).

const SETTLE_MS = 1000;
let t: TestApp;
let authorization: string;
beforeAll(async () => {
  // The count cache at its default (15 s).
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: String(SETTLE_MS) } });
  ({ authorization } = await exportUser(t.database.db));
});
afterAll(() => t?.close());

describe('a window read before its end and again once it has settled', () => {
  it('the second read has every row: not the total or the read-ahead of the cut read', async () => {
    const second = await nextSecond();
    await insertSales(t.database.db, [
      { order: 'CUT-OLD-1', createdAt: second - 3000 },
      { order: 'CUT-OLD-2', createdAt: second - 2900 },
      { order: 'CUT-OLD-3', createdAt: second - 2800 },
      { order: 'CUT-NEW', createdAt: Date.now() },
    ]);
    // createdTo names the next second: the window ends later, so it is cut at the settle time.
    const window = `createdFrom=${encodeURIComponent(ymdHis(second - 10_000))}&createdTo=${encodeURIComponent(ymdHis(second + 1000))}`;
    await sleep(second + 100 - Date.now());
    const early = await t.app.inject({ url: `/export/sales-history?${window}&per-page=2`, headers: { authorization } });
    expect(early.statusCode, early.body).toBe(200);
    expect((early.json() as Array<{ order: string }>).map((row) => row.order)).toEqual(['CUT-OLD-1', 'CUT-OLD-2']);
    expect(early.headers['x-pagination-total-count']).toBe('3');

    // Just after the window's end: the request waits until it has settled and answers it whole.
    await sleep(second + 2050 - Date.now());
    const [page2, total] = await Promise.all([
      t.app.inject({ url: `/export/sales-history?${window}&per-page=2&page=2`, headers: { authorization } }),
      t.app.inject({ url: `/export/sales-history?${window}&per-page=1&page=4`, headers: { authorization } }),
    ]);
    expect(page2.statusCode, page2.body).toBe(200);
    expect((page2.json() as Array<{ order: string }>).map((row) => row.order)).toEqual(['CUT-OLD-3', 'CUT-NEW']);
    expect(page2.headers['x-pagination-total-count']).toBe('4');
    expect((total.json() as Array<{ order: string }>).map((row) => row.order)).toEqual(['CUT-NEW']);
  });
});
