import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

// The SQL of the products import's passes over the catalogue (products.import.ts): links written
// after the lines, and the deactivation of products the feed no longer lists.

/** A page of the active products' ids and codes after `after`, by id. */
export function activeProductsPage(db: Kysely<Database>, after: number) {
  return db
    .selectFrom('product')
    .select(['id', 'code'])
    .where('is_active', '=', true)
    .where('id', '>', after)
    .orderBy('id')
    .limit(5000)
    .execute();
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

/** Deactivates those of the products still active; how many it did. */
export async function deactivateProducts(db: Kysely<Database>, ids: number[], now: number): Promise<number> {
  const result = await db
    .updateTable('product')
    .set({ is_active: false, updated_at: now })
    .where('id', 'in', ids)
    .where('is_active', '=', true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
