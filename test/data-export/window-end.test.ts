import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { exportUser, insertClient, insertSales, nextSecond, sleep, ymdHis } from './fixtures.js';

// A partner's job that runs on the hour and asks for the hour just ended (createdTo 11:59:59 at
// 12:00:00): the last seconds of that hour were not settled yet (DATA_EXPORT_SETTLE_MS), and the
// next run asks from 12:00:00 on. Such a window is answered once it has settled, whole.

const SETTLE_MS = 1000;
let t: TestApp;
let authorization: string;
beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: String(SETTLE_MS), DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  ({ authorization } = await exportUser(t.database.db));
});
afterAll(() => t?.close());

describe('a window that ends in the last seconds', () => {
  it('sales history: holds the rows of its last seconds, also one written late within the settle time', async () => {
    const second = await nextSecond();
    await insertSales(t.database.db, [{ order: 'LAST-SECOND-EARLY', createdAt: Date.now() }]);
    // Asked just after the window's end (createdTo names `second`, so it ends at second + 999 ms).
    await sleep(second + 1050 - Date.now());
    const asking = t.app.inject({
      url: `/export/sales-history?createdFrom=${encodeURIComponent(ymdHis(second - 10_000))}&createdTo=${encodeURIComponent(ymdHis(second))}`,
      headers: { authorization },
    });
    // Stamped in the window's last moments, committed a little later: within the settle time.
    await sleep(100);
    await insertSales(t.database.db, [{ order: 'LAST-SECOND-LATE', createdAt: second + 900 }]);
    const response = await asking;
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as Array<{ order: string }>).map((row) => row.order)).toEqual(['LAST-SECOND-EARLY', 'LAST-SECOND-LATE']);
    expect(response.headers['x-pagination-total-count']).toBe('2');
  });

  it('client accounts and the NDJSON stream the same', async () => {
    const second = await nextSecond();
    await sleep(second + 500 - Date.now());
    await insertClient(t.database.db, 'W-LAST-SECOND', Date.now());
    await sleep(second + 1050 - Date.now());
    const window = `createdFrom=${encodeURIComponent(ymdHis(second - 10_000))}&createdTo=${encodeURIComponent(ymdHis(second))}`;
    const [page, stream] = await Promise.all([
      t.app.inject({ url: `/export/client-account?${window}`, headers: { authorization } }),
      t.app.inject({ url: `/export/client-account?${window}`, headers: { authorization, accept: 'application/x-ndjson' } }),
    ]);
    expect((page.json() as Array<{ client: string }>).map((row) => row.client)).toEqual(['W-LAST-SECOND']);
    expect(
      stream.body
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { client: string }).client),
    ).toEqual(['W-LAST-SECOND']);
  });
});
