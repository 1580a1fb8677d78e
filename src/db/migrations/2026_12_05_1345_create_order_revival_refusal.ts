import type { Kysely } from 'kysely';

// A FAILED order the back office reported having (POST /admin/orders/{code}/status) whose revival was
// refused (409: its gift cards were spent since, or the cards it bought were voided). The back office
// may have shipped it already, and the shop must settle it by hand; the refusal was only a log line.
// One row per order, written after the report's rolled-back transaction; `reports` counts the refused
// reports. `storefront order revivals --refused` lists those still FAILED, walking the primary key.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('order_revival_refusal')
    .addColumn('order_id', 'bigint', (c) => c.primaryKey().references('customer_order.id').onDelete('cascade'))
    .addColumn('reason', 'varchar(32)', (c) => c.notNull())
    .addColumn('reported_status', 'varchar(40)', (c) => c.notNull())
    .addColumn('reports', 'integer', (c) => c.notNull())
    .addColumn('first_at', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_revival_refusal').execute();
}
