import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Suppliers that push their feeds (stock, prices, products) to POST /integration/supplier/{code}/{kind},
// signed with their secret. A product belongs to at most one supplier (`product.supplier_id`, set
// when the supplier's product feed creates it): a supplier's feeds touch only its products, and a
// supplier's product feed deactivates only its own products. `supplier_request` remembers the
// signatures accepted in the last minutes, so a captured request cannot be sent again.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('supplier')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    // The HMAC key as given to the supplier: a signature is checked by computing it (docs/integrations.md).
    .addColumn('secret', 'varchar(100)', (c) => c.notNull())
    // The kill switch: set, the supplier's requests are refused (403) before their body is read.
    .addColumn('disabled_at', 'bigint')
    .addColumn('secret_rotated_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .alterTable('product')
    .addColumn('supplier_id', 'bigint', (c) => c.references('supplier.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('product_supplier_idx').on('product').columns(['supplier_id', 'is_active', 'id']).execute();

  await db.schema
    .createTable('supplier_request')
    .addColumn('supplier_id', 'bigint', (c) => c.notNull().references('supplier.id').onDelete('cascade'))
    .addColumn('signature', 'varchar(64)', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('supplier_request_pk', ['supplier_id', 'signature'])
    .execute();
  await db.schema.createIndex('supplier_request_received_idx').on('supplier_request').column('received_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('supplier_request').execute();
  await db.schema.dropIndex('product_supplier_idx').execute();
  await db.schema.alterTable('product').dropColumn('supplier_id').execute();
  await db.schema.dropTable('supplier').execute();
}
