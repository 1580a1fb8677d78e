import { sql } from 'kysely';
import type { DatabaseHandle, Db } from '../../../db/database.js';
import { isPostgres } from '../../../db/row-lock.js';

// Bulk writes of new products (the demo, the benchmark's datasets). On PostgreSQL the transaction
// turns off the row triggers that keep product documents and category listing rows (migration
// 2026_11_27_2100) while it inserts, then does their work once: each written product's document
// rebuilt, the store lists' rows refreshed for them (2026_12_09_1010), and the category listing
// marked stale for the catalogue to rebuild whole. SQLite's triggers run in
// process and stay on: nothing to do there.

/** The tables a product document is built from, each keyed by `product_id` (migration 2026_11_24_1600). */
export const DOCUMENT_CHILD_TABLES = [
  'product_store',
  'product_person',
  'product_alt_code',
  'product_category',
  'product_asset',
  'campaign_price',
] as const;

/** Until endBulkWrite or the end of the transaction, inserted products leave their documents and listing to it. */
export async function beginBulkWrite(handle: DatabaseHandle, trx: Db): Promise<void> {
  if (handle.engine === 'postgres') await sql`select set_config('storefront.bulk_write', 'on', true)`.execute(trx);
}

/** Turns the triggers back on and does their work for these products (ids of products whose documents the writes changed). */
export async function endBulkWrite(handle: DatabaseHandle, trx: Db, productIds: Iterable<number>): Promise<void> {
  if (handle.engine !== 'postgres') return;
  await sql`select set_config('storefront.bulk_write', 'off', true)`.execute(trx);
  // In id order, the order the triggers' per-product locks are taken in.
  const ids = [...new Set(productIds)].sort((a, b) => a - b);
  if (ids.length > 0) {
    await refreshProductDocuments(trx, ids);
    // The store lists' rows, at once for all of them (migration 2026_12_09_1010): they never go stale.
    await sql`select store_listing_refresh_many(${ids}::bigint[])`.execute(trx);
  }
  await trx
    .updateTable('category_listing_state')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('id', '=', 1)
    .execute();
}

/**
 * Rebuilds the products' documents on PostgreSQL, each under its product's refresh lock, taken in id
 * order (as the triggers take them); on SQLite nothing, its triggers keep every document exact. For
 * writes the triggers leave out: a bulk write's, and a campaign's prices (migration 2026_12_13_1500),
 * whose jobs bring the documents' `cp` up to date for the release before.
 */
export async function refreshProductDocuments(trx: Db, productIds: Iterable<number>): Promise<void> {
  if (!isPostgres(trx)) return;
  const ids = [...new Set(productIds)].sort((a, b) => a - b);
  if (ids.length === 0) return;
  await sql`select product_document_refresh(id) from unnest(${ids}::bigint[]) as id`.execute(trx);
}
