import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { GUEST } from '../../src/modules/catalogue/index.js';
import { engineOf, startsWith } from '../../src/modules/catalogue/browse/browse.repository.js';
import { authorPage } from '../../src/modules/catalogue/browse/person.repository.js';
import { publisherPage } from '../../src/modules/catalogue/browse/publisher.repository.js';
import { recommendedIds } from '../../src/modules/catalogue/merchandising/recommendation.repository.js';
import { createCategory, createPerson, createProduct, createPublisher } from '../helpers/catalogue.js';
import { overlappingWrites } from '../helpers/overlapping-writes.js';
import { planOfStatement } from '../helpers/query-plans.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Issue 19, cold reads: reference data kept while its version stands (migration 1640), indexed name
// prefixes and a publisher's newest-first page (1641), the best sellers of a category from
// category_sales (1642). The test app runs with the caches off, so every read here is a cold one.

let t: TestApp;
const db = () => t.database.db;
const ids: Record<string, number> = {};
const NAMES = [
  'Õunapuu',
  'õunamaa',
  'Mari',
  'MARGUS',
  'maria',
  'Märt',
  '100% Tõde',
  '100 Aastat',
  'Under_score',
  'Underwood',
  'Ülle',
  'zeta',
];

beforeAll(async () => {
  t = await createTestApp();
  ids.root = await createCategory(db(), { et: 'Ilukirjandus', en: 'Fiction' }, { code: 'FICTION' });
  ids.crime = await createCategory(db(), { et: 'Krimi' }, { code: 'CRIME', parentId: ids.root });
  ids.poetry = await createCategory(db(), { et: 'Luule' }, { code: 'POETRY', parentId: ids.root });
  for (const [index, name] of NAMES.entries()) {
    const person = await createPerson(db(), name);
    const publisher = await createPublisher(db(), name);
    // Every third one only in the business catalogue: the lists still leave it out for a guest.
    await createProduct(db(), { persons: [{ id: person }], publisherId: publisher, hiddenWeb: index % 3 === 2 });
  }
  ids.bound = await createProduct(db(), { code: 'BOUND', binding: 'HARDCOVER', categoryIds: [ids.poetry] });
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });

describe('reference data with the caches off', () => {
  const version = async (name: string) =>
    Number(
      (
        await db()
          .selectFrom('catalogue_reference_version')
          .select('version')
          .where('name', '=', name as 'category')
          .executeTakeFirstOrThrow()
      ).version,
    );
  const treeNames = async () =>
    ((await get('/category')).json() as Array<{ name: string; children: Array<{ name: string }> }>).flatMap((node) => [
      node.name,
      ...node.children.map((child) => child.name),
    ]);

  it('shows a category renamed, added or removed in the database at the next read', async () => {
    expect(await treeNames()).toEqual(expect.arrayContaining(['Ilukirjandus', 'Krimi', 'Luule']));
    const before = await version('category');
    await db()
      .updateTable('category_name')
      .set({ name: 'Põnevus' })
      .where('category_id', '=', ids.crime!)
      .where('language', '=', 'et')
      .execute();
    expect(await version('category')).toBeGreaterThan(before);
    expect(await treeNames()).toContain('Põnevus');
    const added = await createCategory(db(), { et: 'Draama' }, { code: 'DRAMA', parentId: ids.root });
    expect(await treeNames()).toContain('Draama');
    await db().updateTable('category').set({ is_active: false }).where('id', '=', added).execute();
    expect(await treeNames()).not.toContain('Draama');
    await db().deleteFrom('category_name').where('category_id', '=', added).execute();
    await db().deleteFrom('category').where('id', '=', added).execute();
    expect((await get(`/category/${added}`)).statusCode).toBe(404);
  });

  it("shows a binding's new name on the cards at the next read", async () => {
    const binding = async () =>
      ((await get(`/category/${ids.poetry}/products`)).json() as Array<{ code: string; binding: { name: string } | null }>).find(
        (card) => card.code === 'BOUND',
      )?.binding?.name;
    const old = await binding();
    expect(old).toBeTruthy();
    const before = await version('binding');
    await db()
      .updateTable('binding_name')
      .set({ name: 'Kõva köide' })
      .where('binding_code', '=', 'HARDCOVER')
      .where('language', '=', 'et')
      .execute();
    expect(await version('binding')).toBeGreaterThan(before);
    expect(await binding()).toBe('Kõva köide');
  });

  // The product page reads both versions in its own statement (no statements of their own): they
  // must still be the current ones, so a page read after a change shows it.
  it("shows a category's and a binding's new name on the product page at the next read", async () => {
    const page = async () => {
      const details = (await get(`/product/${ids.bound}`)).json() as {
        categories: Array<{ name: string }>;
        binding: { name: string } | null;
      };
      return { categories: details.categories.map((category) => category.name), binding: details.binding?.name };
    };
    expect(await page()).toEqual({ categories: ['Luule'], binding: expect.any(String) });
    await db()
      .updateTable('category_name')
      .set({ name: 'Värsid' })
      .where('category_id', '=', ids.poetry!)
      .where('language', '=', 'et')
      .execute();
    expect((await page()).categories).toEqual(['Värsid']);
    await db()
      .updateTable('binding_name')
      .set({ name: 'Kaanega' })
      .where('binding_code', '=', 'HARDCOVER')
      .where('language', '=', 'et')
      .execute();
    expect(await page()).toEqual({ categories: ['Värsid'], binding: 'Kaanega' });
  });
});

/** The prefix test as it was before the indexes (a LIKE on each folded side): the answers must not change. */
function likeOnly(column: string, prefix: string) {
  const escape = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`(upper(${sql.ref(column)}) like ${escape(prefix.toUpperCase())} escape '\\' or lower(${sql.ref(column)}) like ${escape(prefix.toLowerCase())} escape '\\')`;
}

describe('name prefixes of authors and publishers', () => {
  const PREFIXES = ['mar', 'MAR', 'Mär', 'õun', 'ÕUN', 'Õ', 'ü', '100%', '100', 'under_', 'UNDER', 'u', 'z', 'x', '%', '_'];

  it('finds the same names as the plain LIKE did, for every prefix', async () => {
    for (const table of ['person', 'publisher'] as const) {
      for (const prefix of PREFIXES) {
        const column = `${table}.name`;
        const indexed = await db()
          .selectFrom(table)
          .select('name')
          .where(startsWith(column, prefix, engineOf(db()), engineOf(db()) === 'sqlite'))
          .orderBy('name')
          .execute();
        const plain = await db().selectFrom(table).select('name').where(likeOnly(column, prefix)).orderBy('name').execute();
        expect(indexed, `${table} ${prefix}`).toEqual(plain);
      }
    }
    const sample = await db()
      .selectFrom('person')
      .select('name')
      .where(startsWith('person.name', 'õun', engineOf(db()), engineOf(db()) === 'sqlite'))
      .execute();
    expect(sample.map((row) => row.name).sort()).toEqual(['Õunapuu', 'õunamaa']);
  });

  it('answers GET /author and GET /publisher by prefix with the ones a guest may see', async () => {
    // Every third name (Mari, Märt, Under_score, zeta) has only a business product.
    const names = async (url: string) => ((await get(url)).json() as Array<{ name: string }>).map((row) => row.name).sort();
    expect(await names('/author?q=mar')).toEqual(['MARGUS', 'maria']);
    expect(await names('/publisher?q=MAR')).toEqual(['MARGUS', 'maria']);
    expect(await names('/author?letter=õ')).toEqual(['Õunapuu', 'õunamaa'].sort());
    expect(await names('/publisher?q=ÕUN')).toEqual(['Õunapuu', 'õunamaa'].sort());
    expect(await names('/publisher?q=100%25')).toEqual(['100% Tõde']);
    expect(await names('/author?q=under_')).toEqual([]);
    expect(await names('/author?q=under')).toEqual(['Underwood']);
  });

  it('gives the same page whether it sorts the indexed prefix or walks every name in order', async () => {
    for (const q of ['mar', 'Õ', 'u', '1']) {
      const filter = { storeCode: 'WEB', caller: GUEST, q };
      const sorted = await authorPage(db(), { ...filter, prefixRange: true }, 0, 20);
      expect(sorted.length, q).toBeGreaterThan(0);
      expect(await authorPage(db(), { ...filter, prefixRange: false }, 0, 20), q).toEqual(sorted);
      expect(await publisherPage(db(), { ...filter, prefixRange: false }, 0, 20), q).toEqual(
        await publisherPage(db(), { ...filter, prefixRange: true }, 0, 20),
      );
    }
  });

  it('reads the names of the prefix from the folded-name indexes', async () => {
    for (const table of ['person', 'publisher'] as const) {
      const query = db()
        .selectFrom(table)
        .select('id')
        .where(startsWith(`${table}.name`, 'mar', engineOf(db()), engineOf(db()) === 'sqlite'));
      const plan = await planOfStatement(db(), query.compile());
      expect(plan).toContain(`${table}_name_upper_idx`);
      expect(plan).toContain(`${table}_name_lower_idx`);
    }
  });
});

describe("a publisher's products, newest first", () => {
  it('is a range scan of product_publisher_newest_idx without a sort', async () => {
    const publisherId = Number((await db().selectFrom('publisher').select('id').where('name', '=', 'Mari').executeTakeFirstOrThrow()).id);
    const query = db()
      .selectFrom('product as p')
      .select('p.id')
      .where('p.publisher_id', '=', publisherId)
      .orderBy(sql`case when p.released_at is null then 1 else 0 end`)
      .orderBy('p.released_at', 'desc')
      .orderBy('p.id', 'desc')
      .limit(20);
    const plan = await planOfStatement(db(), query.compile());
    expect(plan).toContain('product_publisher_newest_idx');
    expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
  });
});

/** category_sales against what it is kept from. */
async function expectCategorySalesExact(database: Db): Promise<void> {
  const kept = await database.selectFrom('category_sales').select(['category_id', 'sales_count', 'product_id']).execute();
  const truth = await database
    .selectFrom('product_category as pc')
    .innerJoin('product as p', 'p.id', 'pc.product_id')
    .select(['pc.category_id', 'p.sales_count', 'pc.product_id'])
    .execute();
  const key = (row: { category_id: number; sales_count: number; product_id: number }) =>
    `${Number(row.category_id)}:${Number(row.sales_count)}:${Number(row.product_id)}`;
  expect(kept.map(key).sort()).toEqual(truth.map(key).sort());
}

describe("recommendations: a category's best sellers from category_sales", () => {
  it('stays exact through sales, category links and deletions, and ranks as every member would', async () => {
    const crime: number[] = [];
    for (let i = 0; i < 60; i += 1) {
      crime.push(
        await createProduct(db(), {
          categoryIds: i % 4 === 0 ? [ids.crime!, ids.poetry!] : [ids.crime!],
          salesCount: (i * 37) % 23,
          hiddenWeb: i % 7 === 3,
          active: i % 11 !== 5,
        }),
      );
    }
    await expectCategorySalesExact(db());
    await db().updateTable('product').set({ sales_count: 500 }).where('id', '=', crime[1]!).execute();
    await db().updateTable('product').set({ sales_count: 0 }).where('id', '=', crime[2]!).execute();
    await db().deleteFrom('product_category').where('product_id', '=', crime[8]!).where('category_id', '=', ids.poetry!).execute();
    await db().updateTable('product_category').set({ category_id: ids.poetry! }).where('product_id', '=', crime[9]!).execute();
    await db().deleteFrom('product').where('id', '=', crime[10]!).execute();
    await expectCategorySalesExact(db());

    const subject = crime[0]!;
    const categoryIds = [ids.crime!, ids.poetry!];
    const expected = await db()
      .selectFrom('product as p')
      .select(['p.id', 'p.sales_count'])
      .where('p.id', 'in', db().selectFrom('product_category').select('product_id').where('category_id', 'in', categoryIds))
      .where('p.id', '<>', subject)
      .where('p.is_active', '=', true)
      .where('p.hidden_web', '=', false)
      .orderBy('p.sales_count', 'desc')
      .orderBy('p.id', 'desc')
      .limit(50)
      .execute();
    const got = await recommendedIds(db(), { productId: subject, productCode: 'NONE', storeCode: 'WEB', caller: GUEST, categoryIds });
    expect(got).toEqual(expected.map((row) => Number(row.id)));
    expect(got[0]).toBe(crime[1]);
  });

  it('keeps the committed count when a sale and a new category link of one product overlap', async () => {
    const product = await createProduct(db(), { categoryIds: [ids.crime!], salesCount: 3 });
    await overlappingWrites(
      db(),
      (trx) => trx.updateTable('product').set({ sales_count: 40 }).where('id', '=', product).execute(),
      (trx) => trx.insertInto('product_category').values({ product_id: product, category_id: ids.poetry! }).execute(),
    );
    await overlappingWrites(
      db(),
      (trx) => trx.insertInto('product_category').values({ product_id: product, category_id: ids.root! }).execute(),
      (trx) => trx.updateTable('product').set({ sales_count: 41 }).where('id', '=', product).execute(),
    );
    await expectCategorySalesExact(db());
  });
});
