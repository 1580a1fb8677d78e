import type { Transaction } from 'kysely';
import type { DatabaseHandle, Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { DEMO_LOGINS, accountRows } from './accounts.js';
import { activityBatches } from './activity.js';
import { push, rowCount, type Batch, type IdBase } from './batch.js';
import { BulkWriter, lockIdTables, readIdBase, syncSequences } from './bulk-writer.js';
import { categoryRows } from './categories.js';
import { merchandisingRows } from './merchandising.js';
import { personRows, publisherRows, seriesRows } from './people.js';
import { ProductFactory } from './product-factory.js';
import { ProductRegistry } from './product-rows.js';
import { Random } from './random.js';
import { shopRows } from './shops.js';

// The generator shared by the demo data (`seed --demo`, a few thousand products) and the
// benchmark dataset (bench/catalogue-dataset.ts, hundreds of thousands): the same bookstore at
// any size, deterministic for a given seed, written with bulk inserts in batches.

export const DEMO_SEED = 20261122;

export interface DatasetOptions {
  products: number;
  /** The moment the data is anchored at: campaigns run around it, orders and clicks lead up to it. */
  now: number;
  /** argon2id hash of the demo password, for the demo logins (hashed once by the caller). */
  passwordHash: string;
  seed?: number;
  /** Products per batch handed to the writer. */
  batchProducts?: number;
}

export interface DatasetSizes {
  persons: number;
  publishers: number;
  series: number;
  shoppers: number;
  orders: number;
  clicks: number;
}

/** How big everything around the products is, for a catalogue of `products`. */
export function datasetSizes(products: number): DatasetSizes {
  const clamp = (value: number, low: number, high: number) => Math.max(low, Math.min(high, Math.round(value)));
  return {
    persons: clamp(products / 3, 300, 100_000),
    publishers: clamp(products / 150, 40, 2_000),
    series: clamp(products / 40, 30, 5_000),
    shoppers: clamp(products / 40, 60, 5_000),
    orders: clamp(products / 5, 300, 100_000),
    clicks: clamp(products * 2, 3_000, 1_000_000),
  };
}

export interface Progress {
  phase: 'reference' | 'products' | 'merchandising' | 'activity';
  products: number;
  rows: number;
}

/** The whole dataset as a sequence of batches, with ids from `firstIds` (the tables' first free ids). */
export function* generateDataset(
  options: DatasetOptions,
  firstIds: IdBase,
  existingEmails: ReadonlySet<string>,
): Generator<[Batch, Progress]> {
  const root = new Random(options.seed ?? DEMO_SEED);
  const ids = { ...firstIds };
  const { now } = options;
  const sizes = datasetSizes(options.products);

  const reference: Batch = {};
  const people = personRows(root.fork('persons'), ids, reference, sizes.persons, now);
  const publishers = publisherRows(root.fork('publishers'), ids, reference, sizes.publishers, now);
  const series = seriesRows(root.fork('series'), ids, reference, publishers, sizes.series, now);
  const categories = categoryRows(ids.category, now);
  ids.category += categories.categories.length;
  push(reference, 'category', ...categories.categories);
  push(reference, 'category_name', ...categories.names);
  const shops = shopRows(ids.shop, now);
  ids.shop += shops.shops.length;
  push(reference, 'shop', ...shops.shops);
  push(reference, 'shop_name', ...shops.names);
  const clients = accountRows(root.fork('accounts'), ids, reference, {
    now,
    passwordHash: options.passwordHash,
    shoppers: sizes.shoppers,
    existingEmails,
  });
  yield [reference, { phase: 'reference', products: 0, rows: rowCount(reference) }];

  const registry = new ProductRegistry();
  const factory = new ProductFactory({
    random: root.fork('products'),
    now,
    ids,
    shops: shops.list,
    clients,
    registry,
    recentByLeaf: new Map(),
    people,
    publishers,
    series,
    leaves: categories.leaves,
  });
  const perBatch = options.batchProducts ?? 2_000;
  let made = 0;
  let batch: Batch = {};
  let inBatch = factory.classics(batch);
  made += inBatch;
  while (made < options.products) {
    const added = factory.next(batch);
    made += added;
    inBatch += added;
    if (inBatch >= perBatch) {
      yield [batch, { phase: 'products', products: made, rows: rowCount(batch) }];
      batch = {};
      inBatch = 0;
    }
  }
  if (inBatch > 0) yield [batch, { phase: 'products', products: made, rows: rowCount(batch) }];

  const merchandising: Batch = {};
  merchandisingRows(root.fork('merchandising'), ids, merchandising, registry, people, now);
  yield [merchandising, { phase: 'merchandising', products: made, rows: rowCount(merchandising) }];

  const activity = activityBatches(root.fork('activity'), ids, registry, clients, shops.list, categories.ids, {
    now,
    orders: sizes.orders,
    clicks: sizes.clicks,
    batchRows: 20_000,
  });
  for (const part of activity) yield [part, { phase: 'activity', products: made, rows: rowCount(part) }];
}

/** Every email the dataset may create: the demo logins and the shoppers. */
export function datasetEmails(products: number): string[] {
  const emails = DEMO_LOGINS.map((login) => login.email);
  for (let i = 1; i <= datasetSizes(products).shoppers; i++) emails.push(`shopper${String(i).padStart(4, '0')}@example.com`);
  return emails;
}

async function existingEmails(db: Db, emails: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let start = 0; start < emails.length; start += 500) {
    const rows = await db
      .selectFrom('app_user')
      .select('email')
      .where('email', 'in', emails.slice(start, start + 500))
      .execute();
    for (const row of rows) found.add(row.email);
  }
  return found;
}

/** Small store discounts, so the pricing rules have something to show. */
async function setStoreDiscounts(db: Db, now: number): Promise<void> {
  await db
    .updateTable('web_store')
    .set({ guest_discount_percent: 2, logged_in_discount_percent: 5, updated_at: now })
    .where('code', '=', 'WEB')
    .execute();
  await db
    .updateTable('web_store')
    .set({ guest_discount_percent: 3, logged_in_discount_percent: 7, updated_at: now })
    .where('code', '=', 'WEB2')
    .execute();
}

/**
 * Writes the whole dataset inside the caller's transaction (all or nothing: the demo seed).
 * On PostgreSQL the id tables are locked first (a no-op when the caller holds the lock already)
 * so the ids read here stay free until the commit.
 */
export async function writeDatasetIn(handle: DatabaseHandle, trx: Transaction<Database>, options: DatasetOptions): Promise<void> {
  await lockIdTables(handle, trx);
  const writer = new BulkWriter(handle);
  const firstIds = await readIdBase(trx);
  const emails = await existingEmails(trx, datasetEmails(options.products));
  for (const [batch] of generateDataset(options, firstIds, emails)) await writer.write(trx, batch);
  await setStoreDiscounts(trx, options.now);
  await syncSequences(handle, trx);
}

/**
 * Writes the dataset one transaction per batch (the benchmark's large datasets: memory stays
 * flat and progress shows). Meant for an empty catalogue with nobody else writing.
 */
export async function writeDatasetInBatches(
  handle: DatabaseHandle,
  options: DatasetOptions,
  onProgress?: (progress: Progress) => void,
): Promise<void> {
  const writer = new BulkWriter(handle);
  const firstIds = await readIdBase(handle.db);
  const emails = await existingEmails(handle.db, datasetEmails(options.products));
  for (const [batch, progress] of generateDataset(options, firstIds, emails)) {
    await handle.db.transaction().execute((trx) => writer.write(trx, batch));
    onProgress?.(progress);
  }
  await handle.db.transaction().execute(async (trx) => {
    await setStoreDiscounts(trx, options.now);
    await syncSequences(handle, trx);
  });
}
