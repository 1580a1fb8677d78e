import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentBody } from '../../src/db/migrations/2026_11_24_1600_create_product_document.js';
import { insertProduct, T0 } from '../data-export/fixtures.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { createImportTestApp, type ImportTestApp } from './helpers.js';
import { copiesOfProduct } from '../helpers/catalogue.js';

// A campaign line's price rows refreshed the document of every product they price (its `cp`, the
// campaign prices: the trigger of migration 2026_11_24_1600 on campaign_price), which takes the
// product's refresh lock (pg_advisory_xact_lock(1600024, id)) until the line commits: about 20 s at
// 100,000 prices. A change of the stores or categories of one of those products (a products line:
// its document, store list and category list rows take that lock too) waited for the whole line,
// and so would the campaign line for a products line in flight. The product page reads the campaign
// prices from campaign_price now (as lists, search and baskets do), and the campaign's writes refresh
// no document (migration 2026_12_13_1500): here each waits for the other in neither order, and once
// both committed the page, the lists and the kept rows show both changes.

const PRODUCTS = 2000;
type Summary = Awaited<ReturnType<ImportTestApp['run']>>;
let t: ImportTestApp;
let ids: number[];
let categories: Record<string, number>;
const code = (i: number) => `CR-${String(i).padStart(4, '0')}`;
const db = () => t.database.db;

beforeAll(async () => {
  t = await createImportTestApp();
  if (engine !== 'postgres') return;
  // One fixture product (in WEB), copied in one statement.
  const template = await insertProduct(db(), { code: code(0), createdAt: T0 });
  const copies = await copiesOfProduct(db(), template, PRODUCTS - 1, 'CR-');
  ids = [template, ...copies];
  // Only the first is active: the products lines below, full feeds of one product, deactivate none.
  await db().updateTable('product').set({ is_active: false }).where('id', '<>', template).execute();
  const created = await t.run('categories', [
    { code: 'CR-A', store: 'WEB', names: { et: 'Esimene' } },
    { code: 'CR-B', store: 'WEB', names: { et: 'Teine' } },
  ]);
  expect(created.outcomes).toEqual({ created: 2 });
  const rows = await db().selectFrom('category').select(['id', 'code']).execute();
  categories = Object.fromEntries(rows.map((row) => [row.code, Number(row.id)]));
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const campaign = (campaignCode: string, price: number) => ({
  code: campaignCode,
  store: 'WEB',
  names: { et: 'Kampaania' },
  prices: ids.map((_, i) => ({ product: code(i), customerKind: 'RETAIL', price })),
});

const productLine = (stores: string[], categoryCodes: string[], assets: unknown[] = []) => ({
  code: code(0),
  type: 'BOOK',
  name: 'Raamat',
  stores,
  shopPrice: 20,
  vatRate: 9,
  availability: 'AVAILABLE',
  categories: categoryCodes,
  assets,
});

/** Runs `start` until it ends or waits on a lock (more than `waiting` sessions do); whether it waited. */
async function endsOrWaits(
  what: string,
  start: () => Promise<unknown>,
  waiting: number,
): Promise<{ run: Promise<unknown>; waited: boolean }> {
  let done = false;
  let waited = false;
  const run = start();
  run.catch(() => {});
  void run.then(() => (done = true)).catch(() => (done = true));
  await until(`the ${what} to end or wait on a lock`, async () => {
    if (done) return true;
    waited = (await lockWaiters(db())) > waiting;
    return waited;
  });
  return { run, waited };
}

/** The product's page, lists and kept rows once both committed: its stores, categories and campaign price. */
async function expectBoth(expected: { stores: string[]; category: string; price: number }): Promise<void> {
  const id = ids[0]!;
  const page = await t.app.inject({ method: 'GET', url: `/product/${id}`, headers: { store: 'WEB' } });
  expect(page.statusCode, page.body).toBe(200);
  expect(page.json().price).toBe(expected.price);
  expect(page.json().categories.map((c: { code: string }) => c.code)).toEqual([expected.category]);
  const listed = await t.app.inject({ method: 'GET', url: `/category/${categories[expected.category]}/products` });
  expect(listed.statusCode, listed.body).toBe(200);
  expect(listed.json().map((card: { id: number; price: number }) => [card.id, card.price])).toEqual([[id, expected.price]]);
  for (const store of ['WEB', 'WEB2']) {
    const all = await t.app.inject({ method: 'GET', url: '/product?per-page=100', headers: { store } });
    expect(all.statusCode, all.body).toBe(200);
    expect(
      all.json().some((card: { id: number }) => card.id === id),
      `listed in ${store}`,
    ).toBe(expected.stores.includes(store));
  }
  const storeRows = await db()
    .selectFrom('store_listing')
    .select(['store_code', 'audience'])
    .where('product_id', '=', id)
    .orderBy('store_code')
    .orderBy('audience')
    .execute();
  expect(storeRows).toEqual(
    expected.stores.flatMap((store) => [
      { store_code: store, audience: 'B' },
      { store_code: store, audience: 'R' },
    ]),
  );
  const categoryRows = await db()
    .selectFrom('category_listing')
    .select(['category_id', 'audience'])
    .where('product_id', '=', id)
    .orderBy('audience')
    .execute();
  const categoryId = categories[expected.category]!;
  expect(categoryRows.map((row) => [Number(row.category_id), row.audience])).toEqual([
    [categoryId, 'B'],
    [categoryId, 'R'],
  ]);
  // The document: its stores and categories at once; its campaign prices (read by no page now) once the
  // campaign's jobs ran, for a process of the release before, which reads them there.
  const document = async () => {
    const { rows } = await sql<{ kept: string; fresh: string }>`
      select d.body as kept, ${sql.raw(documentBody(true))} as fresh
      from product p join product_document d on d.product_id = p.id where p.id = ${id}`.execute(db());
    return { kept: JSON.parse(rows[0]!.kept) as Record<string, unknown>, fresh: JSON.parse(rows[0]!.fresh) as Record<string, unknown> };
  };
  const before = await document();
  expect({ ...before.kept, cp: undefined }).toEqual({ ...before.fresh, cp: undefined });
  await t.drainJobs();
  const after = await document();
  expect(after.kept).toEqual(after.fresh);
}

describe.skipIf(engine !== 'postgres')('a campaign line and a change of the stores and categories of a product it prices', () => {
  it('campaign line open first: the products line does not wait for it, and commits first', async () => {
    // The job table held in share mode: the line has written the campaign and its prices and stays
    // open at its last write (the stamps' jobs), as a long line is for most of its time.
    const hold = await db().startTransaction().execute();
    let campaignRun: Promise<unknown> | undefined;
    let products: { run: Promise<unknown>; waited: boolean } | undefined;
    try {
      await sql`lock table job in share mode`.execute(hold);
      campaignRun = t.run('campaigns', [campaign('CR-FIRST', 5)]);
      campaignRun.catch(() => {});
      await until('the campaign line to wait on the job table', async () => (await lockWaiters(db())) >= 1);
      products = await endsOrWaits('products line', () => t.run('products', [productLine(['WEB', 'WEB2'], ['CR-A'])]), 1);
    } finally {
      await hold.commit().execute();
    }
    // Both end before anything is asserted: a line left running would hold its locks into the next test.
    const [productsDone, campaignDone] = await Promise.all([products.run, campaignRun]);
    expect(products.waited).toBe(false);
    expect((productsDone as Summary).outcomes).toEqual({ updated: 1 });
    expect((campaignDone as Summary).outcomes).toEqual({ created: 1 });
    await expectBoth({ stores: ['WEB', 'WEB2'], category: 'CR-A', price: 5 });
  }, 90_000);

  it('products line open first: the campaign line does not wait for it, and commits first', async () => {
    // The asset table held in share mode: the products line has written the product's stores and
    // categories (and holds the product's refresh lock) and stays open at its assets.
    const hold = await db().startTransaction().execute();
    let productsRun: Promise<unknown> | undefined;
    let campaignLine: { run: Promise<unknown>; waited: boolean } | undefined;
    try {
      await sql`lock table product_asset in share mode`.execute(hold);
      productsRun = t.run('products', [
        productLine(['WEB'], ['CR-B'], [{ kind: 'IMAGE', url: 'https://img.example/cr.jpg', mimeType: null, width: 1, height: 1 }]),
      ]);
      productsRun.catch(() => {});
      await until('the products line to wait on the asset table', async () => (await lockWaiters(db())) >= 1);
      campaignLine = await endsOrWaits('campaign line', () => t.run('campaigns', [campaign('CR-SECOND', 4)]), 1);
    } finally {
      await hold.commit().execute();
    }
    const [campaignDone, productsDone] = await Promise.all([campaignLine.run, productsRun]);
    expect(campaignLine.waited).toBe(false);
    expect((campaignDone as Summary).outcomes).toEqual({ created: 1 });
    expect((productsDone as Summary).outcomes).toEqual({ updated: 1 });
    await expectBoth({ stores: ['WEB'], category: 'CR-B', price: 4 });
  }, 90_000);
});

describe.skipIf(engine !== 'postgres')("a campaign's stamp jobs", () => {
  it("rebuild the documents after the stamps' commit: a stock line of a stamped product does not wait for a rebuild", async () => {
    expect((await t.run('shops', [{ code: 'SHOP-CR', names: { et: 'Kauplus' }, city: 'Tallinn', webStock: true }])).outcomes).toEqual({
      created: 1,
    });
    expect((await t.run('campaigns', [campaign('CR-THIRD', 3)])).outcomes).toEqual({ created: 1 });
    // A writer of the first product's document in flight (a products line, an author's rename): it
    // holds the product's refresh lock, which the job's rebuild waits for.
    const hold = await db().startTransaction().execute();
    let jobs: Promise<unknown> | undefined;
    let stock: { run: Promise<unknown>; waited: boolean } | undefined;
    try {
      await sql`select pg_advisory_xact_lock(1600024, (${ids[0]!}::bigint % 2147483647)::int)`.execute(hold);
      jobs = t.drainJobs();
      jobs.catch(() => {});
      await until('the job to wait on the refresh lock', async () => (await lockWaiters(db())) >= 1);
      stock = await endsOrWaits('stock line', () => t.run('stock', [{ product: code(1), shop: 'SHOP-CR', quantity: 7 }]), 1);
    } finally {
      await hold.commit().execute();
    }
    const [stocked] = await Promise.all([stock.run, jobs]);
    expect(stock.waited).toBe(false);
    expect((stocked as Summary).outcomes).toEqual({ created: 1 });
    const { rows } = await sql<{ kept: string; fresh: string }>`
      select d.body as kept, ${sql.raw(documentBody(true))} as fresh
      from product p join product_document d on d.product_id = p.id where p.id in (${ids[0]!}, ${ids[1999]!})`.execute(db());
    for (const row of rows) expect(JSON.parse(row.kept)).toEqual(JSON.parse(row.fresh));
  }, 90_000);
});
