import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITES_NOTHING_EXPORTED } from '../../src/db/no-exported-writes.js';
import { rebuildCategoryListing } from '../../src/modules/catalogue/index.js';
import { createEngine, startRebuild } from '../../src/modules/search/index.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { exportUser, insertSales, nextSecond, sleep, ymdHis } from './fixtures.js';

// The export's cut waits for every transaction open on the primary (settled-cut.ts), since a writer's
// rows are stamped when it starts and seen when it commits. The app's own long transactions that
// write nothing exported (a category listing rebuild, a search index rebuild) mark themselves
// (db/no-exported-writes.ts) and are left out: a window that ends while one runs is answered, where
// it was a 503 for as long as the rebuild ran. Any other open transaction still holds it back.

const SETTLE_MS = 1000;
let t: TestApp;
let authorization: string;
const q = (ms: number) => encodeURIComponent(ymdHis(ms));
const sales = (second: number) =>
  t.app.inject({ method: 'GET', url: `/export/sales-history?createdFrom=${q(second)}&createdTo=${q(second)}`, headers: { authorization } });
const orders = (response: { statusCode: number; body: string; json(): unknown }) => {
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Array<{ order: string }>).map((item) => item.order);
};

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: String(SETTLE_MS), DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  ({ authorization } = await exportUser(t.database.db));
});
afterAll(async () => {
  await t?.close();
});

describe.skipIf(engine !== 'postgres')('long transactions that write nothing exported', () => {
  it('leave a window that ends meanwhile to be answered, while any other open transaction holds it back', async () => {
    const db = t.database.db;
    const first = await nextSecond();
    await insertSales(db, [{ order: 'FIRST-WINDOW', createdAt: first + 100 }]);
    let rebuilds: Promise<unknown> | undefined;
    // An operator's session that writes nothing exported and says so holds the rebuilds open on locks:
    // the listing's tables (its first statement after the mark) and the search state's row.
    const holder = await db.startTransaction().execute();
    try {
      await sql`select set_config('application_name', ${WRITES_NOTHING_EXPORTED}, true)`.execute(holder);
      await sql`lock table category_listing_count in share mode`.execute(holder);
      await sql`select id from search_state where id = 1 for update`.execute(holder);
      rebuilds = Promise.all([rebuildCategoryListing(db), startRebuild(t.database, createEngine(t.database), Date.now())]);
      rebuilds.catch(() => {});
      await until('both rebuilds to wait on the locks', async () => (await lockWaiters(db)) >= 2);
      // Both began before the first window ended; it has ended and settled now.
      await sleep(first + 1000 + SETTLE_MS + 200 - Date.now());
      expect(orders(await sales(first))).toEqual(['FIRST-WINDOW']);

      // A writer that does not say it writes nothing exported, open before the next window ends,
      // holds that window back (503) whatever else is open; once it commits its row is in it.
      const second = await nextSecond();
      const writer = await db.startTransaction().execute();
      try {
        await insertSales(writer, [{ order: 'SECOND-WINDOW', createdAt: second + 100 }]);
        await sleep(second + 1000 + SETTLE_MS + 200 - Date.now());
        const held = await sales(second);
        expect(held.statusCode, held.body).toBe(503);
        expect(held.headers['retry-after']).toBe('2');
        await writer.commit().execute();
      } finally {
        if (!writer.isCommitted && !writer.isRolledBack) await writer.rollback().execute();
      }
      expect(orders(await sales(second))).toEqual(['SECOND-WINDOW']);
      await holder.commit().execute();
      await rebuilds;
    } finally {
      if (!holder.isCommitted && !holder.isRolledBack) await holder.rollback().execute();
      await rebuilds?.catch(() => {});
    }
  }, 30_000);
});
