import { hashPassword } from '../infra/passwords.js';
import type { DatabaseHandle } from '../db/database.js';
import { DEMO_PASSWORD } from './accounts.js';
import { lockIdTables } from './bulk-writer.js';
import { writeBasketDemo } from './basket.js';
import { writeBlogDemo } from './blog.js';
import { writeContactDemo } from './contact.js';
import { writeStoreNamesDemo } from './stores.js';
import { writeContentDemo } from './content.js';
import { writeDatasetIn } from './catalogue-generator.js';
import { categoryListingIsStale, rebuildCategoryListing } from '../modules/catalogue/index.js';
import { COUNTRIES } from '../db/migrations/data/countries-2026-11.js';
import type { Database } from '../db/schema.js';

/** What the database holds after seeding (the same numbers on every run over the same data). */
export interface SeedReport {
  countries: number;
  products: number;
  categories: number;
  persons: number;
  publishers: number;
  series: number;
  shops: number;
  campaigns: number;
  productLists: number;
  users: number;
  salesHistory: number;
  sessionActions: number;
}

/** Products of the demo shop: enough to page through categories and authors, seeded in seconds. */
export const DEMO_PRODUCTS = 3_000;

/** Tables an operator fills by importing; any row in one of them means the catalogue is not ours to fill. */
const CATALOGUE_TABLES = ['product', 'category', 'shop', 'person', 'publisher', 'series', 'campaign', 'product_list'] as const;

/**
 * Demo data for a fresh installation. Idempotent: it fills in what is missing and never
 * overwrites what an operator changed. Countries come with the migrations; this restores any
 * that were removed. The demo bookstore (catalogue, shops, demo logins, orders and clicks) is
 * loaded only into an empty catalogue, in one transaction; once anything is there (the demo
 * itself or an import) a run only checks a few tables and reports the counts. `now` stamps the
 * demo rows (the caller's clock).
 */
export async function seedDemo(database: DatabaseHandle, options: { now: number }): Promise<SeedReport> {
  const { db } = database;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('country')
      .values(COUNTRIES.map(({ code, position }) => ({ code, position })))
      .onConflict((conflict) => conflict.column('code').doNothing())
      .execute();
    await trx
      .insertInto('country_name')
      .values(
        COUNTRIES.flatMap(({ code, names }) => Object.entries(names).map(([language, name]) => ({ country_code: code, language, name }))),
      )
      .onConflict((conflict) => conflict.columns(['country_code', 'language']).doNothing())
      .execute();
  });

  if (await catalogueIsEmpty(database)) {
    // Hashed once, outside the transaction (it takes tens of milliseconds on the thread pool).
    const passwordHash = await hashPassword(DEMO_PASSWORD);
    const { now } = options;
    await db.transaction().execute(async (trx) => {
      // Another process may have seeded or imported since the check: decide again under the lock
      // (SQLite: the write lock the transaction began with; PostgreSQL: the tables' locks).
      await lockIdTables(database, trx);
      if (!(await catalogueIsEmpty(database, trx))) return;
      await writeDatasetIn(database, trx, { products: DEMO_PRODUCTS, now, passwordHash });
    });
  }
  // The category lists' kept order, for the tree just written (or one a crash left stale).
  if (await categoryListingIsStale(db)) await rebuildCategoryListing(db);
  // Delivery and discount codes also for a demo catalogue loaded before baskets existed.
  await db.transaction().execute((trx) => writeBasketDemo(trx, options.now));
  // Pages, banners and menus also for a demo catalogue loaded before content existed.
  await db.transaction().execute((trx) => writeContentDemo(trx, options.now));
  // Blog, news, shop schedules and redirects (idempotent, like the basket's).
  await db.transaction().execute((trx) => writeBlogDemo(trx, options.now));
  // The stores' office contact data, where blank, and their names, where the placeholders stand.
  await db.transaction().execute(async (trx) => {
    await writeContactDemo(trx, options.now);
    await writeStoreNamesDemo(trx, options.now);
  });
  return seedReport(database);
}

async function catalogueIsEmpty({ db }: DatabaseHandle, trx: Pick<typeof db, 'selectFrom'> = db): Promise<boolean> {
  for (const table of CATALOGUE_TABLES) {
    const row = await trx
      .selectFrom(table as keyof Database)
      .select('id')
      .limit(1)
      .executeTakeFirst();
    if (row !== undefined) return false;
  }
  return true;
}

async function seedReport({ db }: DatabaseHandle): Promise<SeedReport> {
  const count = async (table: keyof Database) =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    countries: await count('country'),
    products: await count('product'),
    categories: await count('category'),
    persons: await count('person'),
    publishers: await count('publisher'),
    series: await count('series'),
    shops: await count('shop'),
    campaigns: await count('campaign'),
    productLists: await count('product_list'),
    users: await count('app_user'),
    salesHistory: await count('sales_history'),
    sessionActions: await count('session_action'),
  };
}
