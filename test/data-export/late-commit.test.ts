import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/infra/clock.js';
import { gdprCommand } from '../../src/modules/gdpr/index.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { T0, exportUser, insertSales, ymdHis } from './fixtures.js';

// A writer whose transaction commits later than DATA_EXPORT_SETTLE_MS after it stamped its rows: a
// partner that reads the window of the stamp meanwhile (ended and settled, the row not committed
// yet) and resumes after it never saw the row. The erasure is such a writer: it stamps the sales
// history and then runs the other parts, one of which waits here on a lock the test holds.

const SETTLE_MS = 1000;
let t: TestApp;
let authorization: string;
let erased: TestCustomer;
const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });
const q = (ms: number) => encodeURIComponent(ymdHis(ms));
const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
const listed = (response: { statusCode: number; body: string; json(): unknown }, field: 'order' | 'client') => {
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Array<Record<string, string>>).map((item) => item[field]);
};

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: String(SETTLE_MS), DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  ({ authorization } = await exportUser(t.database.db));
  erased = await createCustomer(t.database.db);
  await insertSales(t.database.db, [{ order: 'ERASED-LATE', createdAt: T0, client: erased.clientCode }]);
});
afterAll(async () => {
  await t?.close();
});

describe.skipIf(engine !== 'postgres')('a write that commits after the settle window', () => {
  it('is found by a partner who read the window of its stamp before it committed, or resumes after it', async () => {
    const db = t.database.db;
    const email = await emailOf(db, erased);
    const start = Math.floor(Date.now() / 1000) * 1000 + 1000;
    await sleepUntil(start);
    const window = `updatedFrom=${q(start)}&updatedTo=${q(start)}`;
    let erasure: Promise<unknown> | undefined;
    await db.transaction().execute(async (trx) => {
      // The erasure's events part writes integration_event after the data export's part stamped the rows.
      await sql`lock table integration_event in share mode`.execute(trx);
      erasure = gdprCommand({ db, clock: systemClock }, ['erase', email], () => {});
      await until('the erasure to wait on the lock', async () => (await lockWaiters(db)) >= 1);
      // The window of the stamp has ended and settled; the rows are not committed yet. An answer
      // without them would be taken as the whole window: the partner is told to come back instead.
      await sleepUntil(start + 1000 + SETTLE_MS + 200);
      for (const path of ['/sales-history', '/client-account']) {
        const held = await get(`${path}?${window}`);
        expect(held.statusCode, held.body).toBe(503);
        expect(held.headers['retry-after']).toBe('2');
        // An open window is cut before the open transactions instead.
        expect(listed(await get(`${path}?updatedFrom=${q(start)}`), path === '/client-account' ? 'client' : 'order')).toEqual([]);
      }
    });
    await erasure;
    // Once the rows are committed the window is answered whole.
    expect(listed(await get(`/sales-history?${window}`), 'order')).toEqual(['ERASED-LATE']);
    expect(listed(await get(`/client-account?${window}`), 'client')).toContain(erased.clientCode);
  });
});
