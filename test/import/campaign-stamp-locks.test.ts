import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProduct, T0 } from '../data-export/fixtures.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { createImportTestApp, type ImportTestApp } from './helpers.js';

// A campaign line stamps product.updated_at of every product it prices (the data export's
// updatedFrom finds the new discount price by it). Stamped in the line's own transaction, the first
// product's row stayed locked until the last was stamped and the line committed: 4 s for 20,000
// prices, while a stock or price write (or a checkout) of that product waited. Here the stamp is
// made slow by a lock the test holds on a product past the first thousand (as a long stamp is), and
// the line is held before its commit by a lock on the job table (the stamps' jobs are its last
// write): a one-line stock import of the first product must not wait for the campaign's line. (A
// price line would: every writer of prices, the campaign line too, bumps the one 'price' row of
// catalogue_reference_version in its transaction, which is another matter.)

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
  const { rows: columns } = await sql<{ name: string }>`
    select column_name as name from information_schema.columns
    where table_schema = current_schema() and table_name = 'product' and column_name not in ('id', 'code') and is_generated = 'NEVER'`.execute(
    db,
  );
  const copied = sql.join(columns.map((column) => sql.ref(column.name)));
  const { rows: copies } = await sql<{ id: number }>`
    insert into product (code, ${copied}) select 'CS-' || lpad(g::text, 4, '0'), ${copied}
    from product, generate_series(1, ${PRODUCTS - 1}) g where id = ${template} order by g returning id`.execute(db);
  ids = [template, ...copies.map((row) => Number(row.id))];
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
});
