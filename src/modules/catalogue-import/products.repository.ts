import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../../db/database.js';
import { isPostgres, lockedOnPostgres, lockRowsOnPostgres } from '../../db/row-lock.js';
import type { Database } from '../../db/schema.js';

// The SQL of the products import (products.import.ts) beside writing a line (products.write.ts):
// the reads the checks of an e-book's physicalBook rest on, taken in the line's transaction, links
// written after the lines, and the deactivation of products the feed no longer lists.

/**
 * A page of the active products' ids and codes after `after`, by id: the supplier's products, or
 * (null) the back office's, which no supplier feeds.
 */
export function activeProductsPage(db: Kysely<Database>, after: number, supplierId: number | null) {
  return db
    .selectFrom('product')
    .select(['id', 'code'])
    .where('is_active', '=', true)
    .where('supplier_id', supplierId === null ? 'is' : '=', supplierId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(5000)
    .execute();
}

/**
 * The type of the product `id` (undefined when there is none) that a line links an e-book to, read
 * in the line's transaction. On PostgreSQL the row stays key-share locked until the line commits:
 * a retype of the product (typeToChange's `for update`) waits for the link to be in, and this read
 * waits for a retype in flight and then reads the type it gave. It does not wait for other
 * writes of the product. On SQLite the line's transaction holds the database's write lock already.
 */
export async function physicalBookType(trx: Transaction<Database>, id: number): Promise<string | undefined> {
  const query = trx.selectFrom('product').select('type').where('id', '=', id);
  const row = await (isPostgres(trx) ? query.forKeyShare() : query).executeTakeFirst();
  return row?.type;
}

/**
 * The type of the product `id` that a line is about to change, read in the line's transaction and,
 * on PostgreSQL, locked `for update` until it commits: a line of another import linking an e-book
 * to it (physicalBookType) has committed its link before this returns, or waits for this line.
 */
export async function typeToChange(trx: Transaction<Database>, id: number): Promise<string | undefined> {
  const row = await lockedOnPostgres(trx, trx.selectFrom('product').select('type').where('id', '=', id)).executeTakeFirst();
  return row?.type;
}

/** The products (e-books, audiobooks) whose physicalBook is the product `id`, by code (product_physical_book_idx). */
export async function linkedEditions(trx: Transaction<Database>, id: number): Promise<Array<{ id: number; code: string }>> {
  const rows = await trx.selectFrom('product').select(['id', 'code']).where('physical_book_id', '=', id).orderBy('code').execute();
  return rows.map((row) => ({ id: Number(row.id), code: row.code }));
}

/** Points the product at its physical book (or none); whether that changed it. */
export async function setPhysicalBook(trx: Transaction<Database>, productId: number, physicalBookId: number | null): Promise<boolean> {
  const result = await trx
    .updateTable('product')
    .set({ physical_book_id: physicalBookId })
    .where('id', '=', productId)
    .where((eb) =>
      physicalBookId === null
        ? eb('physical_book_id', 'is not', null)
        : eb.or([eb('physical_book_id', 'is', null), eb('physical_book_id', '!=', physicalBookId)]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function touchProduct(trx: Transaction<Database>, productId: number, now: number): Promise<void> {
  await trx.updateTable('product').set({ updated_at: now }).where('id', '=', productId).execute();
}

/**
 * Deactivates those of the products still active; the codes of those it did. On PostgreSQL the rows
 * are locked in id order first, as every writer of several products' rows takes them (a checkout's
 * stock holds too): the UPDATE alone locks them in the order its plan meets them (a small table's
 * heap order, not the ids' once a row was rewritten), and a checkout of two of them could wait for
 * it while it waited for the checkout, which PostgreSQL then ended, a 500
 * (test/orders/checkout-during-feed-deactivation.test.ts).
 */
export async function deactivateProducts(trx: Db, ids: number[], now: number): Promise<string[]> {
  if (ids.length === 0) return [];
  await lockRowsOnPostgres(trx, trx.selectFrom('product').select('id').where('id', 'in', ids).orderBy('id'), 'no key update');
  const rows = await trx
    .updateTable('product')
    .set({ is_active: false, updated_at: now })
    .where('id', 'in', ids)
    .where('is_active', '=', true)
    .returning('code')
    .execute();
  return rows.map((row) => row.code);
}

/** Which supplier a product code belongs to: undefined for a new code, null for the back office's. */
export async function supplierOfCode(db: Db, code: string): Promise<number | null | undefined> {
  const row = await db.selectFrom('product').select('supplier_id').where('code', '=', code).executeTakeFirst();
  return row === undefined ? undefined : row.supplier_id === null ? null : Number(row.supplier_id);
}

/** What a product event says of the product. */
export function productSnapshot(db: Db, productId: number) {
  return db
    .selectFrom('product')
    .select(['code', 'ean', 'name', 'is_active', 'shop_price_cents', 'original_price_cents', 'availability', 'web_stock'])
    .where('id', '=', productId)
    .executeTakeFirst();
}
