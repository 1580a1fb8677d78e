import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Downloads of bought digital products: which stored file is a product's (one per format), how
// many downloads each entitlement (order_entitlement: an order's digital product) has used, and
// which signed links have been used, since a link counts one download however many requests
// (resumes, parallel ranges) it serves before it expires.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('product_file')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id'))
    // EPUB, PDF, MP3, M4B ...: one file of each format per product.
    .addColumn('format', 'varchar(16)', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(500)', (c) => c.notNull())
    .addColumn('content_type', 'varchar(100)', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    // The name offered to the browser (Content-Disposition), already made safe.
    .addColumn('filename', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('product_file_product_format_uq', ['product_id', 'format'])
    .execute();

  await db.schema
    .createTable('download_count')
    .addColumn('order_id', 'bigint', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('download_count_pk', ['order_id', 'product_id'])
    .execute();

  await db.schema
    .createTable('download_link_use')
    .addColumn('link_id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('order_id', 'bigint', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    // The link's expiry: a row is of no use after it and may be pruned.
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('download_link_use_expires_idx').on('download_link_use').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['download_link_use', 'download_count', 'product_file']) await db.schema.dropTable(table).execute();
}
