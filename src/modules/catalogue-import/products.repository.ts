import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';

// The SQL of the products import's passes over the catalogue (products.import.ts): links written
// after the lines, and the deactivation of products the feed no longer lists.

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

/** The type of the product `id`, or undefined when there is none. */
export async function productType(db: Kysely<Database>, id: number): Promise<string | undefined> {
  const row = await db.selectFrom('product').select('type').where('id', '=', id).executeTakeFirst();
  return row?.type;
}

/** The id and type of the product with this code, or undefined when there is none. */
export function productOfCode(db: Kysely<Database>, code: string) {
  return db.selectFrom('product').select(['id', 'type']).where('code', '=', code).executeTakeFirst();
}

/** The products (e-books, audiobooks) whose physicalBook is the product `id`, by code (product_physical_book_idx). */
export async function linkedEditions(db: Kysely<Database>, id: number): Promise<Array<{ id: number; code: string }>> {
  const rows = await db.selectFrom('product').select(['id', 'code']).where('physical_book_id', '=', id).orderBy('code').execute();
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

/** Deactivates those of the products still active; the codes of those it did. */
export async function deactivateProducts(trx: Db, ids: number[], now: number): Promise<string[]> {
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
