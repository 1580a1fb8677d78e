import type { Kysely } from 'kysely';

// GET /wishlist reads a client's whole list (capped) newest first and asks the catalogue which of
// its products the caller sees: an index that also holds the product id answers it without a
// table row per item. It replaces wishlist_item_page_idx, whose columns it starts with.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('wishlist_item_list_idx')
    .on('wishlist_item')
    .columns(['client_account_id', 'store_code', 'created_at', 'id', 'product_id'])
    .execute();
  await db.schema.dropIndex('wishlist_item_page_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('wishlist_item_page_idx')
    .on('wishlist_item')
    .columns(['client_account_id', 'store_code', 'created_at', 'id'])
    .execute();
  await db.schema.dropIndex('wishlist_item_list_idx').execute();
}
