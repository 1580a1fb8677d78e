import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProduct, T0 } from '../data-export/fixtures.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { createImportTestApp, type ImportTestApp } from './helpers.js';
import { copiesOfProduct } from '../helpers/catalogue.js';

// A campaign line stamps product.updated_at of every product it prices (the data export's
// updatedFrom finds the new discount price by it). Stamped in the line's own transaction, the first
// product's row stayed locked until the last was stamped and the line committed: 4 s for 20,000
// prices, while a stock or price write (or a checkout) of that product waited. Here the stamp is
// made slow by a lock the test holds on a product past the first thousand (as a long stamp is), and
// the line is held before its commit by a lock on the job table (the stamps' jobs are its last
// write): a one-line stock import of the first product must not wait for the campaign's line.
//
// Nor must a writer of prices. Every one (the campaign line too) moves the one 'price' row of
// catalogue_reference_version (migration 2026_11_27_1300): moved in the writer's transaction at its
// first write, the row stayed locked until the campaign line committed (seconds at 20,000 prices,
// about 20 s at 100,000), and a one-line prices import or a new product waited that long for it.
// It is moved at commit now (migration 2026_12_12_1110), so the row is held only while a writer
// commits.

const PRODUCTS = 2000;
let t: ImportTestApp;
let ids: number[];
const code = (i: number) => `CS-${String(i).padStart(4, '0')}`;

beforeAll(async () => {
  t = await createImportTestApp();
  if (engine !== 'postgres') return;
  const db = t.database.db;
  // One fixture product, copied in one statement (each with its store row).
  const template = await insertProduct(db, { code: code(0), createdAt: T0 });
  const copies = await copiesOfProduct(db, template, PRODUCTS - 1, 'CS-');
  ids = [template, ...copies];
  expect((await t.run('shops', [{ code: 'SHOP-S', names: { et: 'Kauplus' }, city: 'Tallinn', webStock: true }])).outcomes).toEqual({
    created: 1,
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe.skipIf(engine !== 'postgres')('a campaign line of many prices', () => {
  it('does not hold its products: a stock line of one of them does not wait for the campaign line', async () => {
    const db = t.database.db;
    const campaign = {
      code: 'STAMP-LOCKS',
      store: 'WEB',
      names: { et: 'Kampaania' },
      prices: ids.map((_, i) => ({ product: code(i), customerKind: 'RETAIL', price: 5 })),
    };
    const stampedBefore = Number(
      (await db.selectFrom('product').select('updated_at').where('id', '=', ids[0]!).executeTakeFirstOrThrow()).updated_at,
    );
    // A product past the first thousand held as a stamp (or any write) of it holds it, and the job
    // table in share mode: a line that queues jobs stays open at its last write, before its commit.
    const hold = await db.startTransaction().execute();
    let campaignDone = false;
    let stockDone = false;
    let campaignRun: ReturnType<ImportTestApp['run']> | undefined;
    let stockRun: ReturnType<ImportTestApp['run']> | undefined;
    let stockWaited = false;
    try {
      await sql`select id from product where id = ${ids[1500]!} for no key update`.execute(hold);
      await sql`lock table job in share mode`.execute(hold);
      campaignRun = t.run('campaigns', [campaign]);
      void campaignRun.then(() => (campaignDone = true)).catch(() => {});
      await until('the campaign line to wait on the held product or job table', async () => (await lockWaiters(db)) >= 1);
      expect(campaignDone).toBe(false);
      stockRun = t.run('stock', [{ product: code(0), shop: 'SHOP-S', quantity: 7 }]);
      void stockRun.then(() => (stockDone = true)).catch(() => {});
      await until('the stock line to end or wait on a lock', async () => {
        if (stockDone) return true;
        stockWaited = (await lockWaiters(db)) >= 2;
        return stockWaited;
      });
    } finally {
      await hold.commit().execute();
    }
    expect(stockWaited).toBe(false);
    expect((await campaignRun).outcomes).toEqual({ created: 1 });
    expect((await stockRun!).outcomes).toEqual({ created: 1 });

    // The stamps wait for the worker: jobs of at most 1,000 products each, queued with the campaign.
    const jobs = await db.selectFrom('job').select(['payload', 'status']).where('type', '=', 'catalogue-import.campaign-stamps').execute();
    expect(jobs.map((job) => job.status)).toEqual(['pending', 'pending']);
    const queued = jobs.flatMap((job) => (JSON.parse(job.payload) as { productIds: number[] }).productIds);
    expect(jobs.every((job) => (JSON.parse(job.payload) as { productIds: number[] }).productIds.length <= 1000)).toBe(true);
    expect([...queued].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    const last = await db.selectFrom('product').select('updated_at').where('id', '=', ids[1999]!).executeTakeFirstOrThrow();
    expect(Number(last.updated_at)).toBe(stampedBefore);

    const ran = Date.now();
    await t.drainJobs();
    const statuses = await db.selectFrom('job').select('status').where('type', '=', 'catalogue-import.campaign-stamps').execute();
    expect(statuses.map((job) => job.status)).toEqual(['done', 'done']);
    const unstamped = await db.selectFrom('product').select('code').where('id', 'in', ids).where('updated_at', '<', ran).execute();
    expect(unstamped).toEqual([]);
  }, 60_000);

  it("does not hold the 'price' version: a prices line and another writer of prices do not wait for the campaign line", async () => {
    const db = t.database.db;
    const campaign = {
      code: 'PRICE-VERSION',
      store: 'WEB',
      names: { et: 'Kampaania' },
      prices: ids.map((_, i) => ({ product: code(i), customerKind: 'RETAIL', price: 4 })),
    };
    const version = async () =>
      Number(
        (await db.selectFrom('catalogue_reference_version').select('version').where('name', '=', 'price').executeTakeFirstOrThrow())
          .version,
      );
    // Outside the campaign: the line holds the refresh lock of each product it prices (their
    // documents), which a change of one's stores takes too.
    const outside = await insertProduct(db, { code: 'CS-OUT', createdAt: T0 });
    // A bump takes the server's clock in microseconds when it is ahead (2026_12_13_1600); from a
    // version ahead of the clock each adds one, so the bumps can be counted.
    await db
      .updateTable('catalogue_reference_version')
      .set({ version: 2 ** 52 })
      .where('name', '=', 'price')
      .execute();
    const before = await version();
    // The job table held in share mode: the line has written the campaign and its 2,000 prices and
    // stays open at its last write (the stamps' jobs), as a long line is for most of its time.
    const hold = await db.startTransaction().execute();
    let campaignDone = false;
    let campaignRun: ReturnType<ImportTestApp['run']> | undefined;
    const waited: string[] = [];
    let movedWhileOpen: number | undefined;
    const shortWrites: Array<Promise<unknown>> = [];
    try {
      await sql`lock table job in share mode`.execute(hold);
      campaignRun = t.run('campaigns', [campaign]);
      void campaignRun.then(() => (campaignDone = true)).catch(() => {});
      await until('the campaign line to wait on the job table', async () => (await lockWaiters(db)) >= 1);
      expect(campaignDone).toBe(false);
      // A one-line prices import (a product's row), and a store's assortment changed (a new row, as
      // a new product's are: the product feed that makes one would deactivate the products here).
      for (const [what, start] of [
        ['prices line', () => t.run('prices', [{ product: code(1), shopPrice: 11.5 }])],
        ['assortment', () => db.insertInto('product_store').values({ product_id: outside, store_code: 'WEB2' }).execute()],
      ] as const) {
        let done = false;
        const run: Promise<unknown> = start();
        shortWrites.push(run);
        void run.then(() => (done = true)).catch(() => {});
        await until(`the ${what} to end or wait on a lock`, async () => {
          if (done) return true;
          if ((await lockWaiters(db)) < 2) return false;
          waited.push(what);
          return true;
        });
        if (!done) break;
      }
      movedWhileOpen = (await version()) - before;
    } finally {
      await hold.commit().execute();
    }
    expect(waited).toEqual([]);
    // Each moved the version at its own commit, while the line was open.
    expect(movedWhileOpen).toBe(2);
    expect((await campaignRun).outcomes).toEqual({ created: 1 });
    expect(((await shortWrites[0]) as Awaited<ReturnType<ImportTestApp['run']>>).outcomes).toEqual({ updated: 1 });
    // The line moved it at its commit, after both.
    expect(await version()).toBe(before + 3);
  }, 60_000);
});
