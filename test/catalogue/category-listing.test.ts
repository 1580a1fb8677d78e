import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedCache } from '../../src/infra/bounded-cache.js';
import { GUEST, type Caller } from '../../src/modules/catalogue/index.js';
import { buildCategoryTree } from '../../src/modules/catalogue/browse/category-tree.js';
import { categoryRows } from '../../src/modules/catalogue/browse/category.repository.js';
import {
  categoryListingIsStale,
  categoryListingReader,
  foldCategoryListingDeltas,
  rebuildCategoryListing,
} from '../../src/modules/catalogue/browse/category-listing.repository.js';
import { productPage } from '../../src/modules/catalogue/product-query.js';
import { createCategory, createProduct } from '../helpers/catalogue.js';
import { createImportTestApp, type ImportTestApp } from '../import/helpers.js';

// The category lists' kept order and totals (category_listing, category_listing_count) must give
// exactly what the lists' query gives (same products, order and total) for every category and
// audience, after the build, after every kind of product, category-link and store change the
// triggers follow, after imports and deletions; a tree change makes them stale until rebuilt.

let t: ImportTestApp;
const ids: Record<string, number> = {};
const BUSINESS: Caller = { ...GUEST, kind: 'BUSINESS' };
const db = () => t.database.db;

beforeAll(async () => {
  t = await createImportTestApp();
  ids.fiction = await createCategory(db(), { et: 'Ilukirjandus' }, { code: 'FICTION' });
  ids.novels = await createCategory(db(), { et: 'Romaanid' }, { code: 'NOVELS', parentId: ids.fiction });
  ids.classics = await createCategory(db(), { et: 'Klassika' }, { code: 'CLASSICS', parentId: ids.novels });
  ids.poetry = await createCategory(db(), { et: 'Luule' }, { code: 'POETRY', parentId: ids.fiction });
  ids.kids = await createCategory(db(), { et: 'Lastele' }, { code: 'KIDS' });
  ids.outlet = await createCategory(db(), { et: 'Outlet' }, { code: 'OUTLET', store: 'WEB2' });
  const day = (d: number) => Date.UTC(2024, 0, d);
  ids.a = await createProduct(db(), { code: 'A', categoryIds: [ids.novels], releasedAt: day(5) });
  // In two categories of one subtree: listed once under their common ancestor.
  ids.b = await createProduct(db(), { code: 'B', categoryIds: [ids.classics, ids.poetry], releasedAt: day(5) });
  ids.c = await createProduct(db(), { code: 'C', categoryIds: [ids.classics], releasedAt: null });
  ids.d = await createProduct(db(), { code: 'D', categoryIds: [ids.poetry], releasedAt: null });
  ids.e = await createProduct(db(), { code: 'E', categoryIds: [ids.kids, ids.novels], releasedAt: day(9), hiddenWeb: true });
  ids.f = await createProduct(db(), { code: 'F', categoryIds: [ids.kids], releasedAt: day(1), hiddenBusiness: true });
  ids.g = await createProduct(db(), { code: 'G', categoryIds: [ids.novels], active: false });
  ids.h = await createProduct(db(), { code: 'H', categoryIds: [ids.novels, ids.outlet], stores: ['WEB', 'WEB2'], releasedAt: day(2) });
  ids.i = await createProduct(db(), { code: 'I', categoryIds: [ids.outlet], stores: ['WEB'] });
  ids.j = await createProduct(db(), { code: 'J', categoryIds: [ids.fiction], releasedAt: Date.UTC(1960, 0, 1) });
});
afterAll(() => t.close());

/** Every category of both stores' trees, for both audiences: the kept list against the lists' query. */
async function expectExact(): Promise<void> {
  const reader = categoryListingReader(t.database);
  const noCache = {
    counts: boundedCache<string, number>(0, 1),
    pages: boundedCache<string, number[]>(0, 1),
    levels: boundedCache<string, Array<[number, number]>>(0, 1),
  };
  let compared = 0;
  for (const store of ['WEB', 'WEB2']) {
    const tree = buildCategoryTree(await categoryRows(db(), store, 'et'));
    for (const categoryId of tree.byId.keys()) {
      for (const [caller, audience] of [
        [GUEST, 'R'],
        [BUSINESS, 'B'],
      ] as const) {
        const query = {
          storeCode: store,
          caller,
          filter: { categoryIds: tree.subtreeIds(categoryId) },
          sort: 'newest' as const,
          offset: 0,
          limit: 100,
          now: Date.now(),
        };
        const expected = await productPage(db(), noCache, query);
        expect(await reader.count(categoryId, audience), `total of ${categoryId} ${audience}`).toBe(expected.total);
        expect(await reader.page(categoryId, audience, 0, 100), `list of ${categoryId} ${audience}`).toEqual(expected.ids);
        const kept = {
          count: () => reader.count(categoryId, audience),
          page: (o: number, l: number) => reader.page(categoryId, audience, o, l),
        };
        // A page in the middle, through the lists' own function.
        const middle = { ...query, offset: 1, limit: 2 };
        expect(await productPage(db(), noCache, middle, kept)).toEqual(await productPage(db(), noCache, middle));
        compared += 1;
      }
    }
  }
  expect(compared).toBeGreaterThan(0);
  // No total is left behind for a list that is empty now, other than zero: the counts with their deltas
  // (PostgreSQL) before a fold, the counts alone and no delta after it.
  const wrongTotals = async () => {
    const counts = await sql<{ n: number }>`select count(*) as n from (
        select category_id, audience from category_listing_count union select category_id, audience from category_listing_delta) k
      where coalesce((select c.products from category_listing_count c where c.category_id = k.category_id and c.audience = k.audience), 0)
        + coalesce((select sum(d.delta) from category_listing_delta d where d.category_id = k.category_id and d.audience = k.audience), 0)
        <> (select count(*) from category_listing l where l.category_id = k.category_id and l.audience = k.audience)`.execute(db());
    return Number(counts.rows[0]!.n);
  };
  expect(await wrongTotals()).toBe(0);
  await foldCategoryListingDeltas(db());
  expect(await db().selectFrom('category_listing_delta').select('delta').execute()).toEqual([]);
  expect(await wrongTotals()).toBe(0);
}

describe('the category lists kept in order', () => {
  it('starts stale after a tree change and is exact once built', async () => {
    expect(await categoryListingIsStale(db())).toBe(true);
    expect(await categoryListingReader(t.database).count(ids.fiction!, 'R')).toBeUndefined();
    await rebuildCategoryListing(db());
    expect(await categoryListingIsStale(db())).toBe(false);
    expect(await categoryListingReader(t.database).count(ids.fiction!, 'R')).toBe(6);
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
  });

  it('stays exact when category links and stores change', async () => {
    await db().insertInto('product_category').values({ product_id: ids.d!, category_id: ids.kids! }).execute();
    await db().deleteFrom('product_category').where('product_id', '=', ids.b!).where('category_id', '=', ids.poetry!).execute();
    await expectExact();
    await db().updateTable('product_category').set({ category_id: ids.poetry! }).where('product_id', '=', ids.c!).execute();
    await expectExact();
    await db().deleteFrom('product_store').where('product_id', '=', ids.h!).where('store_code', '=', 'WEB').execute();
    await db().insertInto('product_store').values({ product_id: ids.i!, store_code: 'WEB2' }).execute();
    await expectExact();
  });

  it('stays exact when products are deleted and added', async () => {
    await db().deleteFrom('product').where('id', '=', ids.d!).execute();
    await createProduct(db(), { code: 'K', categoryIds: [ids.classics!, ids.kids!], releasedAt: Date.UTC(2024, 0, 5) });
    await expectExact();
  });

  it('stays exact through an import of products (a full feed: the products it leaves out are deactivated)', async () => {
    const result = await t.run(
      'products',
      [
        { code: 'A', type: 'BOOK', name: 'A', stores: ['WEB'], shopPrice: 9, vatRate: 9, availability: 'AVAILABLE', categories: ['KIDS'] },
        {
          code: 'NEW',
          type: 'BOOK',
          name: 'Uus',
          stores: ['WEB', 'WEB2'],
          shopPrice: 9,
          vatRate: 9,
          availability: 'AVAILABLE',
          categories: ['CLASSICS', 'OUTLET'],
          releasedAt: '2024-03-01',
        },
      ],
      { force: true },
    );
    expect(result.reported).toEqual([]);
    await expectExact();
  });

  it('goes stale on a tree change, lists by query meanwhile, and the categories import rebuilds it', async () => {
    await db().updateTable('category').set({ is_active: false }).where('id', '=', ids.novels!).execute();
    expect(await categoryListingIsStale(db())).toBe(true);
    // Meanwhile the route answers by the query, from the new tree: the novels' products are gone from fiction.
    const res = await t.app.inject({ method: 'GET', url: `/category/${ids.fiction}/products` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().map((item: { code: string }) => item.code)).not.toContain('H');
    const result = await t.run('categories', [{ code: 'POETRY', store: 'WEB', parent: 'KIDS', names: { et: 'Luule' } }]);
    expect(result.reported).toEqual([]);
    expect(await categoryListingIsStale(db())).toBe(false);
    await expectExact();
  });

  it('answers the category route from the kept list with the same items and total as the query', async () => {
    for (const day of [3, 4, 4, 7]) await createProduct(db(), { categoryIds: [ids.kids!], releasedAt: Date.UTC(2025, 0, day) });
    await rebuildCategoryListing(db());
    const page = () => t.app.inject({ method: 'GET', url: `/category/${ids.kids}/products?per-page=2&page=1` });
    const res = await page();
    expect(res.statusCode, res.body).toBe(200);
    const noCache = {
      counts: boundedCache<string, number>(0, 1),
      pages: boundedCache<string, number[]>(0, 1),
      levels: boundedCache<string, Array<[number, number]>>(0, 1),
    };
    const tree = buildCategoryTree(await categoryRows(db(), 'WEB', 'et'));
    const expected = await productPage(db(), noCache, {
      storeCode: 'WEB',
      caller: GUEST,
      filter: { categoryIds: tree.subtreeIds(ids.kids!) },
      sort: 'newest',
      offset: 0,
      limit: 2,
      now: Date.now(),
    });
    expect(expected.total).toBeGreaterThan(2);
    expect(res.json().map((item: { id: number }) => item.id)).toEqual(expected.ids);
    expect(res.headers['x-pagination-total-count']).toBe(String(expected.total));
    // The answer is the kept list's: a row taken out of it behind the triggers' back is missing from the page.
    await db().deleteFrom('category_listing').where('product_id', '=', expected.ids[0]!).execute();
    expect((await page()).json().map((item: { id: number }) => item.id)).not.toContain(expected.ids[0]);
  });
});
