import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedCache } from '../../src/infra/bounded-cache.js';
import { beginBulkWrite, endBulkWrite, GUEST, type Caller } from '../../src/modules/catalogue/index.js';
import { storeListingReader } from '../../src/modules/catalogue/browse/store-listing.repository.js';
import { productPage } from '../../src/modules/catalogue/product-query.js';
import { createProduct } from '../helpers/catalogue.js';
import { createImportTestApp, type ImportTestApp } from '../import/helpers.js';

// The store's whole list (GET /product without a filter) and its total are read from store_listing
// (issue 19): they must give exactly what the lists' query gives (same products,
// order and total) for both stores and audiences, after every kind of product and store change the
// triggers follow, after imports, bulk writes and deletions.

let t: ImportTestApp;
const ids: Record<string, number> = {};
const BUSINESS: Caller = { ...GUEST, kind: 'BUSINESS' };
const db = () => t.database.db;
const noCache = () => ({
  counts: boundedCache<string, number>(0, 1),
  pages: boundedCache<string, number[]>(0, 1),
  levels: boundedCache<string, Array<[number, number]>>(0, 1),
});
const day = (d: number) => Date.UTC(2024, 0, d);

beforeAll(async () => {
  t = await createImportTestApp();
  ids.a = await createProduct(db(), { code: 'A', releasedAt: day(5) });
  ids.b = await createProduct(db(), { code: 'B', releasedAt: day(5) });
  ids.c = await createProduct(db(), { code: 'C', releasedAt: null });
  ids.d = await createProduct(db(), { code: 'D', releasedAt: null, stores: ['WEB', 'WEB2'] });
  ids.e = await createProduct(db(), { code: 'E', releasedAt: day(9), hiddenWeb: true });
  ids.f = await createProduct(db(), { code: 'F', releasedAt: day(1), hiddenBusiness: true, stores: ['WEB2'] });
  ids.g = await createProduct(db(), { code: 'G', active: false });
  ids.h = await createProduct(db(), { code: 'H', stores: ['WEB', 'WEB2'], releasedAt: day(2) });
  ids.i = await createProduct(db(), { code: 'I', stores: [] });
  ids.j = await createProduct(db(), { code: 'J', releasedAt: Date.UTC(1960, 0, 1) });
});
afterAll(() => t.close());

/** Both stores and audiences: the kept list and its total against the lists' query. */
async function expectExact(): Promise<void> {
  const reader = storeListingReader(t.database);
  for (const store of ['WEB', 'WEB2']) {
    for (const [caller, audience] of [
      [GUEST, 'R'],
      [BUSINESS, 'B'],
    ] as const) {
      const query = { storeCode: store, caller, filter: {}, sort: 'newest' as const, offset: 0, limit: 100, now: Date.now() };
      const expected = await productPage(db(), noCache(), query);
      expect(await reader.count(store, audience), `total of ${store} ${audience}`).toBe(expected.total);
      expect(await reader.page(store, audience, 0, 100), `list of ${store} ${audience}`).toEqual(expected.ids);
    }
  }
  // Through HTTP: the guest's list and total as the query gives them.
  for (const store of ['WEB', 'WEB2']) {
    const res = await t.app.inject({ method: 'GET', url: '/product?per-page=100', headers: { store } });
    expect(res.statusCode, res.body).toBe(200);
    const expected = await productPage(db(), noCache(), {
      storeCode: store,
      caller: GUEST,
      filter: {},
      sort: 'newest',
      offset: 0,
      limit: 100,
      now: Date.now(),
    });
    expect(res.json().map((item: { id: number }) => item.id)).toEqual(expected.ids);
    expect(res.headers['x-pagination-total-count']).toBe(String(expected.total));
    // A search without text or filter finds the same products (in its own order) and total.
    const found = await t.app.inject({ method: 'GET', url: '/product/search?per-page=100', headers: { store } });
    expect(found.statusCode, found.body).toBe(200);
    expect(
      found
        .json()
        .map((item: { id: number }) => item.id)
        .sort(),
    ).toEqual([...expected.ids].sort());
    expect(found.headers['x-pagination-total-count']).toBe(String(expected.total));
  }
}

describe('the store lists kept in order', () => {
  it('is exact from the start', async () => {
    expect(await storeListingReader(t.database).count('WEB', 'R')).toBe(6);
    await expectExact();
  });

  it('stays exact through product edits: visibility, activity and release dates', async () => {
    await db().updateTable('product').set({ hidden_web: true }).where('id', '=', ids.a!).execute();
    await expectExact();
    await db().updateTable('product').set({ hidden_web: false, hidden_business: true }).where('id', '=', ids.e!).execute();
    await expectExact();
    await db().updateTable('product').set({ is_active: true }).where('id', '=', ids.g!).execute();
    await db().updateTable('product').set({ is_active: false }).where('id', '=', ids.b!).execute();
    await expectExact();
    await db().updateTable('product').set({ released_at: null }).where('id', '=', ids.a!).execute();
    await db()
      .updateTable('product')
      .set({ released_at: Date.UTC(2030, 0, 1) })
      .where('id', '=', ids.c!)
      .execute();
    await expectExact();
    // A change of a column the list does not read changes nothing.
    await db().updateTable('product').set({ sales_count: 5 }).where('id', '=', ids.d!).execute();
    await expectExact();
  });

  it('stays exact when stores change', async () => {
    await db().deleteFrom('product_store').where('product_id', '=', ids.h!).where('store_code', '=', 'WEB').execute();
    await db().insertInto('product_store').values({ product_id: ids.i!, store_code: 'WEB2' }).execute();
    await expectExact();
    await db().updateTable('product_store').set({ store_code: 'WEB' }).where('product_id', '=', ids.i!).execute();
    await expectExact();
    await db().updateTable('product_store').set({ product_id: ids.j! }).where('product_id', '=', ids.f!).execute();
    await expectExact();
  });

  it('stays exact when products are deleted (their stores with them) and added', async () => {
    await db().deleteFrom('product').where('id', '=', ids.d!).execute();
    await db().deleteFrom('product').where('id', '=', ids.h!).execute();
    await createProduct(db(), { code: 'K', stores: ['WEB', 'WEB2'], releasedAt: day(5) });
    await expectExact();
  });

  it('stays exact through an import of products (a full feed: the products it leaves out are deactivated)', async () => {
    const result = await t.run(
      'products',
      [
        { code: 'A', type: 'BOOK', name: 'A', stores: ['WEB2'], shopPrice: 9, vatRate: 9, availability: 'AVAILABLE' },
        {
          code: 'NEW',
          type: 'BOOK',
          name: 'Uus',
          stores: ['WEB', 'WEB2'],
          shopPrice: 9,
          vatRate: 9,
          availability: 'AVAILABLE',
          hiddenBusiness: true,
          releasedAt: '2024-03-01',
        },
      ],
      { force: true },
    );
    expect(result.reported).toEqual([]);
    await expectExact();
    expect(await storeListingReader(t.database).count('WEB', 'R')).toBe(1);
  });

  it('stays exact through a bulk write, which refreshes its products at its end', async () => {
    const written = await db()
      .transaction()
      .execute(async (trx) => {
        await beginBulkWrite(t.database, trx);
        const made = [
          await createProduct(trx, { code: 'BULK1', stores: ['WEB', 'WEB2'], releasedAt: day(3) }),
          await createProduct(trx, { code: 'BULK2', hiddenWeb: true, releasedAt: day(4) }),
        ];
        await endBulkWrite(t.database, trx, made);
        return made;
      });
    expect(written).toHaveLength(2);
    await expectExact();
  });

  it('answers GET /product without a filter from the kept list, and a filtered one by the query', async () => {
    for (const d of [3, 4, 4, 7]) await createProduct(db(), { releasedAt: Date.UTC(2025, 0, d) });
    const page = (query = '') => t.app.inject({ method: 'GET', url: `/product?per-page=2&page=1${query}` });
    const total = async (query = '') => Number((await page(query)).headers['x-pagination-total-count']);
    const first = (await page()).json().map((item: { id: number }) => item.id);
    expect(first).toHaveLength(2);
    const all = await total();
    expect(await total('&type=BOOK')).toBe(all);
    // Put back for the tests after this one.
    await db().updateTable('product').set({ hidden_web: true }).where('id', '=', first[0]).execute();
    await db().updateTable('product').set({ hidden_web: false }).where('id', '=', first[0]).execute();
    expect(await total()).toBe(all);
    // A row taken out behind the triggers' back is missing from the unfiltered page and total, not from a filtered one.
    await db().deleteFrom('store_listing').where('product_id', '=', first[0]).where('store_code', '=', 'WEB').execute();
    expect((await page()).json().map((item: { id: number }) => item.id)).not.toContain(first[0]);
    expect(await total()).toBe(all - 1);
    expect((await page('&type=BOOK')).json().map((item: { id: number }) => item.id)).toContain(first[0]);
    expect(await total('&type=BOOK')).toBe(all);
    // Put back for the tests after this one.
    await db().updateTable('product').set({ hidden_web: true }).where('id', '=', first[0]).execute();
    await db().updateTable('product').set({ hidden_web: false }).where('id', '=', first[0]).execute();
    expect(await total()).toBe(all);
  });

  it('answers a search without text or filter with the store list total, and a filtered one by counting', async () => {
    const total = async (query = '') => {
      const res = await t.app.inject({ method: 'GET', url: `/product/search?per-page=1${query}` });
      expect(res.statusCode, res.body).toBe(200);
      return Number(res.headers['x-pagination-total-count']);
    };
    const exact = await total();
    expect(await total('&type=BOOK')).toBe(exact);
    // A list row taken out behind the triggers' back shows in the unfiltered search's total only.
    const [row] = await db()
      .selectFrom('store_listing')
      .selectAll()
      .where('store_code', '=', 'WEB')
      .where('audience', '=', 'R')
      .limit(1)
      .execute();
    await db()
      .deleteFrom('store_listing')
      .where('product_id', '=', row!.product_id)
      .where('store_code', '=', 'WEB')
      .where('audience', '=', 'R')
      .execute();
    expect(await total()).toBe(exact - 1);
    expect(await total('&type=BOOK')).toBe(exact);
    await db().insertInto('store_listing').values(row!).execute();
    expect(await total()).toBe(exact);
  });
});
