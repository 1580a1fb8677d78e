import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { T0, exportUser, insertSales, insertSessionActions } from './fixtures.js';

// A session action is stamped when its request starts and written by a batch later; a row stamped
// before the newest rows but written after them must not land in a page a crawler has read.

const clock = fixedClock(T0 + 60_000);
let t: TestApp;
let authorization: string;

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization, ...headers } });
const times = (response: { json(): unknown }) =>
  (response.json() as Array<{ createdAt: string }>).map((item) => (Date.parse(item.createdAt) - clock.now()) / 1000);

beforeAll(async () => {
  t = await createTestApp({ clock, env: { DATA_EXPORT_SETTLE_MS: '5000', DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  ({ authorization } = await exportUser(t.database.db));
  const now = clock.now();
  for (const secondsAgo of [20, 19, 3, 2]) await insertSessionActions(t.database.db, 1, now - secondsAgo * 1000);
});

afterAll(() => t.close());

describe('the newest seconds are left out until they are settled', () => {
  it('a page shows only rows older than DATA_EXPORT_SETTLE_MS, and counts only those', async () => {
    const first = await get('/session?per-page=2');
    expect(times(first)).toEqual([-20, -19]);
    expect(first.headers['x-pagination-total-count']).toBe('2');
    expect((await get('/session?per-page=2&page=2')).json()).toEqual([]);
  });

  it('a row written late with an earlier stamp never changes a page that was full when served', async () => {
    const pages = async () => Promise.all([1, 2, 3].map(async (page) => times(await get(`/session?per-page=2&page=${page}`))));
    const before = await pages();
    // Written now, stamped 4 s ago: the batch that carried it was slow.
    await insertSessionActions(t.database.db, 1, clock.now() - 4000);
    clock.advance(10_000);
    const after = (await pages()).map((page) => page.map((secondsAgo) => secondsAgo + 10));
    clock.advance(-10_000);
    before.forEach((page, i) => {
      if (page.length === 2) expect(after[i]).toEqual(page);
    });
    expect(after.flat()).toEqual([-20, -19, -4, -3, -2]);
  });

  it('a stream stops at the same point', async () => {
    const response = await get('/session', { accept: 'application/x-ndjson' });
    const lines = response.body.trim().split('\n');
    const stamps = lines.map((line) => (JSON.parse(line) as { createdAt: string }).createdAt);
    expect(stamps.map((stamp) => (Date.parse(stamp) - clock.now()) / 1000)).toEqual([-20, -19]);
  });
});

describe('sales history is cut the same way', () => {
  // Both writers of sales history stamp a row with this service's clock before it commits: the
  // import when it reads the line, order processing when its job starts (then it sells the stock,
  // grants downloads and queues mails in the same transaction). Two of them at once commit in
  // either order, so a row can land before a row a crawler has already read.
  it('a row written late with an earlier stamp never changes a page that was full when served', async () => {
    const now = clock.now();
    const order = (secondsAgo: number) => ({ order: `SETTLE-${secondsAgo}`, createdAt: now - secondsAgo * 1000 });
    await insertSales(t.database.db, [order(20), order(19), order(3), order(2)]);
    const orders = (response: { json(): unknown }) => (response.json() as Array<{ order: string }>).map((item) => item.order);
    const pages = async () => Promise.all([1, 2, 3].map(async (page) => orders(await get(`/sales-history?per-page=2&page=${page}`))));
    const before = await pages();
    // Stamped 4 s ago by a processing job that committed after the import of the two newest orders.
    await insertSales(t.database.db, [order(4)]);
    clock.advance(10_000);
    const after = await pages();
    clock.advance(-10_000);
    before.forEach((page, i) => {
      if (page.length === 2) expect(after[i]).toEqual(page);
    });
    expect(after.flat()).toEqual(['SETTLE-20', 'SETTLE-19', 'SETTLE-4', 'SETTLE-3', 'SETTLE-2']);
  });
});
