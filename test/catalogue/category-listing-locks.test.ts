import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { foldCategoryListingDeltas, rebuildCategoryListing } from '../../src/modules/catalogue/browse/category-listing.repository.js';
import { createCategory, createPerson, createProduct } from '../helpers/catalogue.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// The category lists (category_listing, issue 19) must keep no row that writers of different products
// share: a kept total per category and audience (category_listing_count, updated by every writer of the
// category's products) made two transactions that each change a product of one category and then one of
// another, in opposite orders, wait for each other on the totals, and PostgreSQL aborted one (40P01).
// Admin edits, order processing and deactivation batches run beside the imports, and only the imports'
// lines retried a deadlock. SQLite runs one write transaction at a time: only PostgreSQL is asked.

let t: TestApp;
const ids: Record<string, number> = {};
beforeAll(async () => {
  t = await createTestApp();
  ids.x = await createCategory(t.database.db, { et: 'Iks' }, { code: 'LOCK-X' });
  ids.y = await createCategory(t.database.db, { et: 'Igrek' }, { code: 'LOCK-Y' });
  // A child of both: its products count in its own list and in LOCK-X's.
  ids.xChild = await createCategory(t.database.db, { et: 'Iksi laps' }, { code: 'LOCK-X1', parentId: ids.x });
  await rebuildCategoryListing(t.database.db);
});
afterAll(async () => t?.close());

/**
 * Two transactions, each writing `first` then, once the other has written its own first, `second`. A
 * transaction's first write may wait for the other's commit (a visibility change bumps the one 'price'
 * version row, migration 2026_11_27_1300): the barrier gives up after a second, so that wait is no
 * hang, and a deadlock still meets PostgreSQL's detector (deadlock_timeout, 1 s).
 */
async function interleaved(steps: Array<[first: (trx: Db) => Promise<unknown>, second: (trx: Db) => Promise<unknown>]>): Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const barrier = new Promise<void>((resolve) => (release = resolve));
  const meet = async () => {
    if (++arrived === steps.length) release();
    await Promise.race([barrier, new Promise((resolve) => setTimeout(resolve, 1000))]);
  };
  const results = await Promise.allSettled(
    steps.map(([first, second]) =>
      t.database.db.transaction().execute(async (trx) => {
        await first(trx);
        await meet();
        await second(trx);
      }),
    ),
  );
  expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'committed'))).toEqual(
    steps.map(() => 'committed'),
  );
}

/** The category list's total as a shopper sees it (WEB, the public catalogue). */
async function totalOf(categoryId: number): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: `/category/${categoryId}/products?per-page=1` });
  expect(res.statusCode, res.body).toBe(200);
  return Number(res.headers['x-pagination-total-count']);
}

const totals = async () => ({ x: await totalOf(ids.x!), y: await totalOf(ids.y!), xChild: await totalOf(ids.xChild!) });

const hide = (ids: number[]) => (trx: Db) => trx.updateTable('product').set({ hidden_web: true }).where('id', 'in', ids).execute();
const release = (ids: number[]) => (trx: Db) =>
  trx
    .updateTable('product')
    .set({ released_at: Date.UTC(2024, 0, 1) })
    .where('id', 'in', ids)
    .execute();
const deactivate = (ids: number[]) => (trx: Db) => trx.updateTable('product').set({ is_active: false }).where('id', 'in', ids).execute();
const link = (productId: number, categoryId: number) => (trx: Db) =>
  trx.insertInto('product_category').values({ product_id: productId, category_id: categoryId }).execute();

it.runIf(engine === 'postgres')('an X then Y product edit and a Y then X one, interleaved, both commit and the totals follow', async () => {
  const make = (categoryIds: number[]) => createProduct(t.database.db, { categoryIds });
  const [x1, x2, y1, y2] = [await make([ids.xChild!]), await make([ids.xChild!]), await make([ids.y!]), await make([ids.y!])];
  const before = await totals();
  await interleaved([
    [hide([x1]), hide([y1])],
    [hide([y2]), hide([x2])],
  ]);
  expect(await totals()).toEqual({ x: before.x - 2, y: before.y - 2, xChild: before.xChild - 2 });
});

it.runIf(engine === 'postgres')(
  'release dates (no price bump to wait for) changed in opposite orders of the categories both commit',
  async () => {
    const make = (categoryIds: number[]) => createProduct(t.database.db, { categoryIds, releasedAt: null });
    const [x1, x2, y1, y2] = [await make([ids.x!]), await make([ids.x!]), await make([ids.y!]), await make([ids.y!])];
    const before = await totals();
    await interleaved([
      [release([x1]), release([y1])],
      [release([y2]), release([x2])],
    ]);
    expect(await totals()).toEqual(before);
    const page = await t.app.inject({ method: 'GET', url: `/category/${ids.y}/products?per-page=100` });
    expect(page.json().map((item: { id: number }) => item.id)).toEqual(expect.arrayContaining([y1, y2]));
  },
);

it.runIf(engine === 'postgres')("products linked to the categories in opposite orders (an admin's edit) both commit", async () => {
  const [p1, p2, q1, q2] = [
    await createProduct(t.database.db),
    await createProduct(t.database.db),
    await createProduct(t.database.db),
    await createProduct(t.database.db),
  ];
  const before = await totals();
  await interleaved([
    [link(p1, ids.xChild!), link(q1, ids.y!)],
    [link(q2, ids.y!), link(p2, ids.xChild!)],
  ]);
  expect(await totals()).toEqual({ x: before.x + 2, y: before.y + 2, xChild: before.xChild + 2 });
});

it.runIf(engine === 'postgres')('two bulk deactivations of both categories, in opposite orders, both commit', async () => {
  const make = async (categoryIds: number[]) =>
    Promise.all(Array.from({ length: 20 }, () => createProduct(t.database.db, { categoryIds })));
  const [x1, x2, y1, y2] = [await make([ids.x!]), await make([ids.x!]), await make([ids.y!]), await make([ids.y!])];
  const before = await totals();
  await interleaved([
    [deactivate(x1), deactivate(y1)],
    [deactivate(y2), deactivate(x2)],
  ]);
  expect(await totals()).toEqual({ x: before.x - 40, y: before.y - 40, xChild: before.xChild });
});

it.runIf(engine === 'postgres')(
  "a fold of the totals' deltas waits for no writer, leaves an open writer's change to it, and two folds fold each once",
  async () => {
    const [x1, x2] = [
      await createProduct(t.database.db, { categoryIds: [ids.xChild!] }),
      await createProduct(t.database.db, { categoryIds: [ids.x!] }),
    ];
    const before = await totals();
    await t.database.db.transaction().execute(async (trx) => {
      await hide([x1])(trx);
      // Within a second, though the writer holds its rows: a fold that waited for writers would not end.
      const folded = await Promise.race([
        foldCategoryListingDeltas(t.database.db),
        new Promise((_, reject) => setTimeout(() => reject(new Error('the fold waited for the writer')), 1000)),
      ]);
      expect(folded).toBeGreaterThan(0);
      expect(await totals()).toEqual(before);
    });
    expect(await totals()).toEqual({ ...before, x: before.x - 1, xChild: before.xChild - 1 });
    await hide([x2])(t.database.db);
    await Promise.all([foldCategoryListingDeltas(t.database.db), foldCategoryListingDeltas(t.database.db)]);
    expect(await totals()).toEqual({ ...before, x: before.x - 2, xChild: before.xChild - 1 });
    expect(await t.database.db.selectFrom('category_listing_delta').select('delta').execute()).toEqual([]);
  },
);

it.runIf(engine === 'postgres')('two writers of one product, linking it to two categories at once, both count', async () => {
  // Listed already: each writer's refresh replaces the product's rows the other replaces too.
  const p = await createProduct(t.database.db, { categoryIds: [ids.y!] });
  const before = await totals();
  let second: Promise<unknown> | undefined;
  await t.database.db.transaction().execute(async (trx) => {
    await link(p, ids.xChild!)(trx);
    second = t.database.db.transaction().execute(link(p, ids.x!));
    await until('the second writer to wait for the product', async () => (await lockWaiters(t.database.db)) >= 1);
  });
  await second;
  expect(await totals()).toEqual({ x: before.x + 1, y: before.y, xChild: before.xChild + 1 });
});

it.runIf(engine === 'postgres')(
  "an e-book's deactivation and an edit of its physical book then of it (an author's rename: in id order) both commit",
  async () => {
    // The physical book first (the e-book names it): a writer that takes both products' locks in id order (a
    // person's or a campaign's change, migration 2026_11_24_1600) takes the physical book's before the e-book's.
    const author = await createPerson(t.database.db, 'Lukk Autor');
    const book = await createProduct(t.database.db, { categoryIds: [ids.y!], persons: [{ id: author }] });
    const ebook = await createProduct(t.database.db, {
      categoryIds: [ids.y!],
      persons: [{ id: author }],
      physicalBookId: book,
      type: 'EBOOK',
    });
    const before = await totals();
    let deactivation: Promise<string> | undefined;
    await t.database.db.transaction().execute(async (trx) => {
      // Holds the physical book's lock (its store row's refresh), not the e-book's.
      await trx.updateTable('product_store').set({ store_code: 'WEB' }).where('product_id', '=', book).execute();
      // The e-book's deactivation refreshes its listing and its physical book's document: it waits for the book.
      deactivation = t.database.db
        .updateTable('product')
        .set({ is_active: false })
        .where('id', '=', ebook)
        .execute()
        .then(
          () => 'committed',
          (err: unknown) => String(err),
        );
      await until('the deactivation to wait for the physical book', async () => (await lockWaiters(t.database.db)) >= 1);
      await trx.updateTable('person').set({ name: 'Lukk Autor Uus' }).where('id', '=', author).execute();
    });
    expect(await deactivation).toBe('committed');
    expect(await totals()).toEqual({ ...before, y: before.y - 1 });
  },
);
