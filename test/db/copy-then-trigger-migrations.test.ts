import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { migrations } from '../../src/db/migrations/index.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { engine, scratchDatabase } from '../helpers/test-app.js';

// Migrations that build a kept table from the rows there are and put triggers on those rows' tables to
// keep it (store_listing's 1010 was the first found, test/catalogue/store-listing-migration.test.ts). On
// PostgreSQL a running release may write meanwhile: a change in flight when the build reads, committed
// before the triggers are there, is in no kept row, and stays so until its row is written again. Each
// migration here runs as `storefront migrate` runs it (Kysely's Migrator, one transaction) on a database
// migrated to the one before, while a writer's transaction holds a change; the writer commits once the
// migration waits for it. SQLite has one writer at a time: only PostgreSQL is asked.

let database: DatabaseHandle;
let drop: () => Promise<void>;
const names = Object.keys(migrations).sort();
const migrator = () => new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });

async function migrateTo(name: string): Promise<void> {
  const { error } = await migrator().migrateTo(name);
  if (error) throw error;
}

/** Runs the migration `name` while `change` is written in a transaction that commits only once the migration waits on a lock. */
async function migrateWhileWriting(name: string, change: (trx: Kysely<Database>) => Promise<unknown>): Promise<void> {
  let commit!: () => void;
  const committed = new Promise<void>((resolve) => (commit = resolve));
  let written!: () => void;
  const wrote = new Promise<void>((resolve) => (written = resolve));
  const writer = database.db.transaction().execute(async (trx) => {
    await change(trx);
    written();
    await committed;
  });
  await wrote;
  const migration = migrateTo(name);
  migration.catch(() => {});
  await until(`migration ${name} to wait for the writer`, async () => (await lockWaiters(database.db)) >= 1);
  commit();
  await writer;
  await migration;
}

beforeAll(async () => {
  if (engine !== 'postgres') return;
  const scratch = await scratchDatabase();
  drop = scratch.drop;
  database = createDatabase(scratch.url);
  await migrateTo(names[names.indexOf('2026_11_24_1550_create_category_listing') - 1]!);
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

const now = Date.UTC(2026, 0, 1);

async function product(db: Kysely<Database>, code: string): Promise<number> {
  const row = await sql<{ id: number }>`insert into product (code, type, name, shop_price_cents, vat_rate_percent, availability,
      is_active, hidden_web, hidden_business, created_at, updated_at)
    values (${code}, 'BOOK', ${code}, 1000, 9, 'AVAILABLE', true, false, false, ${now}, ${now}) returning id`.execute(db);
  const id = Number(row.rows[0]!.id);
  await sql`insert into product_store (product_id, store_code) values (${id}, 'WEB')`.execute(db);
  return id;
}

async function category(db: Kysely<Database>, code: string): Promise<number> {
  const row = await sql<{
    id: number;
  }>`insert into category (code, store_code, parent_id, level, position, is_active, created_at, updated_at)
    values (${code}, 'WEB', null, 1, 1, true, ${now}, ${now}) returning id`.execute(db);
  return Number(row.rows[0]!.id);
}

/** Inserts a row of `table` with `values`, every other required column a placeholder of its type; its id, if it has one. */
async function insertRow(db: Kysely<Database>, table: string, values: Record<string, unknown>): Promise<number> {
  const required = await sql<{ column_name: string; data_type: string }>`select column_name, data_type from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} and is_nullable = 'NO' and column_default is null`.execute(db);
  const placeholder = (type: string) => (type === 'boolean' ? false : /int|double|numeric|real/.test(type) ? 1 : 'x');
  const row = Object.fromEntries(required.rows.map((column) => [column.column_name, placeholder(column.data_type)]));
  const inserted = await db
    .insertInto(table as never)
    .values({ ...row, ...values } as never)
    .returningAll()
    .executeTakeFirstOrThrow();
  return Number((inserted as { id?: unknown }).id);
}

it.runIf(engine === 'postgres')(
  'a product change in flight while a kept table is built is in it once the migration commits (PostgreSQL)',
  async () => {
    const db = database.db;
    const p = await product(db, 'GAP-P');
    const [c1, c2] = [await category(db, 'GAP-C1'), await category(db, 'GAP-C2')];
    await sql`insert into product_category (product_id, category_id) values (${p}, ${c1})`.execute(db);

    // 1550 puts its triggers on first, and a trigger's lock waits for the writer: the build sees the product hidden.
    await migrateWhileWriting('2026_11_24_1550_create_category_listing', (trx) =>
      sql`update product set hidden_web = true where id = ${p}`.execute(trx),
    );
    const listed = await sql<{ audience: string }>`select audience from category_listing where product_id = ${p} order by audience`.execute(
      db,
    );
    expect(listed.rows.map((row) => row.audience)).toEqual(['B']);

    // 1600: a store added while the documents are built is in the product's document.
    await migrateWhileWriting('2026_11_24_1600_create_product_document', (trx) =>
      sql`insert into product_store (product_id, store_code) values (${p}, 'WEB2')`.execute(trx),
    );
    const document = await sql<{ body: string }>`select body from product_document where product_id = ${p}`.execute(db);
    expect(JSON.parse(document.rows[0]!.body).s).toEqual(['WEB', 'WEB2']);

    // 1642: a category added while the best sellers are built is among the product's rows.
    await migrateWhileWriting('2026_11_24_1642_create_category_sales', (trx) =>
      sql`insert into product_category (product_id, category_id) values (${p}, ${c2})`.execute(trx),
    );
    const sales = await sql<{
      category_id: number;
    }>`select category_id from category_sales where product_id = ${p} order by category_id`.execute(db);
    expect(sales.rows.map((row) => Number(row.category_id))).toEqual([c1, c2]);
  },
  120_000,
);

it.runIf(engine === 'postgres')(
  "an order's change in flight while the download list or the bought products are built is in them once the migration commits (PostgreSQL)",
  async () => {
    const db = database.db;
    await migrateTo(names[names.indexOf('2026_11_28_0600_create_download_item') - 1]!);
    const p = await product(db, 'GAP-E');
    const user = await insertRow(db, 'app_user', { email: 'gap@example.ee' });
    const account = await insertRow(db, 'client_account', { user_id: user, store_code: 'WEB', type: 'SIMPLE', status: 'ACTIVE' });
    const order = await insertRow(db, 'customer_order', { client_account_id: account, store_code: 'WEB', status: 'PENDING_PAYMENT' });
    await insertRow(db, 'order_line', { order_id: order, position: 1, product_id: p, product_code: 'GAP-E', quantity: 1 });
    await insertRow(db, 'order_entitlement', { order_id: order, product_id: p, client_account_id: account });

    // 0600: a file added to a bought product while the download list is built is on the buyer's list.
    let file = 0;
    await migrateWhileWriting('2026_11_28_0600_create_download_item', async (trx) => {
      file = await insertRow(trx, 'product_file', { product_id: p });
    });
    const items = await sql<{ file_id: number }>`select file_id from download_item where client_account_id = ${account}`.execute(db);
    expect(items.rows.map((row) => Number(row.file_id))).toEqual([file]);

    // 0610: an order paid while the bought products are built is among them.
    await migrateWhileWriting('2026_11_28_0610_create_bought_product', (trx) =>
      sql`update customer_order set status = 'PENDING_PROCESSING' where id = ${order}`.execute(trx),
    );
    const bought = await sql<{ product_id: number }>`select product_id from bought_product where client_account_id = ${account}`.execute(
      db,
    );
    expect(bought.rows.map((row) => Number(row.product_id))).toEqual([p]);
  },
  120_000,
);
