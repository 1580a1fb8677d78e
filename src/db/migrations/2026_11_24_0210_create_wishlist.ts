import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// A client's wishlist (per store) and back-in-stock requests (a guest's by email, a client's by
// account). A wishlist is read newest first a page at a time: the (client, store, created_at, id)
// index serves the page and its count. A back-in-stock request is pending until notified_at is
// set (once, by a conditional update) or it expires; the worker's scan reads the pending ones.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  const pk = idColumn(db);

  await db.schema
    .createTable('wishlist_item')
    .addColumn('id', id, pk)
    .addColumn('client_account_id', 'bigint', (c) => c.notNull().references('client_account.id').onDelete('cascade'))
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('wishlist_item_uq')
    .unique()
    .on('wishlist_item')
    .columns(['client_account_id', 'store_code', 'product_id'])
    .execute();
  await db.schema
    .createIndex('wishlist_item_page_idx')
    .on('wishlist_item')
    .columns(['client_account_id', 'store_code', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('wishlist_item_product_idx').on('wishlist_item').column('product_id').execute();

  await db.schema
    .createTable('back_in_stock_request')
    .addColumn('id', id, pk)
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    // Trimmed and lower-cased; a client's is its account's email when it asked.
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('client_account_id', 'bigint', (c) => c.references('client_account.id').onDelete('cascade'))
    // The language of the mail: the client's, or the guest's request language.
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    // R: the public catalogue, B: the business one (which products the requester may be told about).
    .addColumn('audience', 'varchar(1)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('notified_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('back_in_stock_request_uq')
    .unique()
    .on('back_in_stock_request')
    .columns(['store_code', 'product_id', 'email'])
    .execute();
  await db.schema
    .createIndex('back_in_stock_request_pending_idx')
    .on('back_in_stock_request')
    .columns(['notified_at', 'product_id'])
    .execute();
  await db.schema
    .createIndex('back_in_stock_request_client_idx')
    .on('back_in_stock_request')
    .columns(['client_account_id', 'store_code', 'created_at'])
    .execute();
  await db.schema.createIndex('back_in_stock_request_expires_idx').on('back_in_stock_request').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('back_in_stock_request').execute();
  await db.schema.dropTable('wishlist_item').execute();
}
