import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import { gdprCommand } from '../../src/modules/gdpr/index.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { T0, exportUser, insertProduct, insertSales, ymdHis } from './fixtures.js';
import { copiesOfProduct } from '../helpers/catalogue.js';

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

describe.skipIf(engine !== 'postgres')('a product feed that deactivates the unlisted products batch by batch', () => {
  // 500 a transaction: a batch that begins later than DATA_EXPORT_SETTLE_MS after the stamp it writes
  // is past the cut's reach (its transaction began after the window had settled).
  it('stamps each batch when it runs, so a partner reading window after window finds every product', async () => {
    const db = t.database.db;
    const codes: string[] = [];
    for (let i = 0; i < 501; i += 1) codes.push(`DEACT-${String(i).padStart(3, '0')}`);
    // One fixture product, copied 500 times in one statement (each store row with it).
    const template = await insertProduct(db, { code: codes[0]!, createdAt: T0 });
    const copies = await copiesOfProduct(db, template, 500, 'DEACT-', 3);
    await sql`insert into product_store (product_id, store_code) select id, 'WEB' from product where code like 'DEACT-%' and id <> ${template}`.execute(
      db,
    );
    const ids = [template, ...copies];
    const dir = mkdtempSync(join(tmpdir(), 'late-commit-'));
    const file = join(dir, 'products.ndjson');
    const line = {
      code: 'DEACT-KEPT',
      type: 'BOOK',
      name: 'Raamat',
      stores: ['WEB'],
      shopPrice: 19.99,
      vatRate: 9,
      availability: 'AVAILABLE',
    };
    writeFileSync(file, JSON.stringify(line) + '\n');
    const start = Math.floor(Date.now() / 1000) * 1000 + 1000;
    await sleepUntil(start);
    // The window the partner reads first: the import's stamp falls in it, batch by batch.
    const first = `updatedFrom=${q(start)}&updatedTo=${q(start + 4000)}`;
    const all = async (window: string) => {
      const response = await get(`/product?${window}&per-page=1000`);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as Array<{ code: string }>).map((item) => item.code);
    };
    let imported: Promise<unknown> | undefined;
    const holdFirst = await db.startTransaction().execute();
    let holdSecond: typeof holdFirst | undefined;
    let seenFirst: string[];
    try {
      await sql`select id from product where id = ${ids[0]!} for update`.execute(holdFirst);
      imported = importKinds.products!.create({ db, clock: systemClock, log: t.app.log }, { force: true })(file, () => {});
      await until('the first batch to wait on the lock', async () => (await lockWaiters(db)) >= 1);
      // The first batch is slow (here: a lock) until the window has ended and settled...
      await sleepUntil(start + 5000 + SETTLE_MS + 200);
      // ...and the second waits on a lock taken only now, in a transaction that began after the window.
      holdSecond = await db.startTransaction().execute();
      await sql`select id from product where id = ${ids[500]!} for update`.execute(holdSecond);
      await holdFirst.commit().execute();
      const inactive = async () =>
        Number(
          (
            await db
              .selectFrom('product')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('is_active', '=', false)
              .executeTakeFirstOrThrow()
          ).n,
        );
      await until('the second batch to wait on the lock', async () => (await inactive()) === 500 && (await lockWaiters(db)) >= 1);
      // The partner reads the window now: the first batch has committed, the second is open.
      seenFirst = await all(first);
      await holdSecond.commit().execute();
      await imported;
    } finally {
      if (!holdFirst.isCommitted && !holdFirst.isRolledBack) await holdFirst.rollback().execute();
      if (holdSecond && !holdSecond.isCommitted && !holdSecond.isRolledBack) await holdSecond.rollback().execute();
      await imported?.catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
    await sleepUntil(Date.now() + SETTLE_MS + 200);
    // ...then resumes where that window ended: every deactivated product was in one of the two.
    const seenNext = await all(`updatedFrom=${q(start + 5000)}`);
    const seen = new Set([...seenFirst, ...seenNext]);
    expect(codes.filter((code) => !seen.has(code))).toEqual([]);
  }, 60_000);
});

describe.skipIf(engine !== 'postgres')('the cut with an app clock behind the database clock', () => {
  // The open transactions' start is the database's clock, the stamps the app's (infra/clock.ts): the
  // cut takes how long ago a transaction began, so a clock set apart (a test's, a skewed host) keeps it.
  const SKEW_MS = 60_000;
  const clock = { now: () => Date.now() - SKEW_MS };
  let skewed: TestApp;
  let skewedAuthorization: string;
  let customer: TestCustomer;
  beforeAll(async () => {
    skewed = await createTestApp({ clock, env: { DATA_EXPORT_SETTLE_MS: String(SETTLE_MS), DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
    ({ authorization: skewedAuthorization } = await exportUser(skewed.database.db));
    customer = await createCustomer(skewed.database.db);
    await insertSales(skewed.database.db, [{ order: 'ERASED-SKEWED', createdAt: T0, client: customer.clientCode }]);
  });
  afterAll(async () => {
    await skewed?.close();
  });

  it('holds back a window the open erasure stamped, as with one clock', async () => {
    const db = skewed.database.db;
    const email = await emailOf(db, customer);
    const start = Math.floor(clock.now() / 1000) * 1000 + 1000;
    await sleepUntil(start + SKEW_MS);
    const window = `updatedFrom=${q(start)}&updatedTo=${q(start)}`;
    const read = () =>
      skewed.app.inject({ method: 'GET', url: `/export/sales-history?${window}`, headers: { authorization: skewedAuthorization } });
    let erasure: Promise<unknown> | undefined;
    await db.transaction().execute(async (trx) => {
      await sql`lock table integration_event in share mode`.execute(trx);
      erasure = gdprCommand({ db, clock }, ['erase', email], () => {});
      await until('the erasure to wait on the lock', async () => (await lockWaiters(db)) >= 1);
      await sleepUntil(start + SKEW_MS + 1000 + SETTLE_MS + 200);
      const held = await read();
      expect(held.statusCode, held.body).toBe(503);
    });
    await erasure;
    expect(listed(await read(), 'order')).toEqual(['ERASED-SKEWED']);
  }, 30_000);
});
