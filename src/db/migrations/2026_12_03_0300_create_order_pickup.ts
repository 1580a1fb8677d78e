import type { Kysely } from 'kysely';

// A pickup order's hand-over in the shop, as the back office reports it (POST /admin/orders/{code}/
// ready-for-pickup and /collected): when it was put out for the buyer, the last day it is kept
// (a date in Tallinn), and when it was collected. One row per order, made by the first report;
// `reports` counts the reports that changed it, so that a reminder queued by one is told from a later one's.
// Indexed by collection time: a feedback request (modules/orders) is timed from it for a pickup order.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('order_pickup')
    .addColumn('order_id', 'bigint', (c) => c.primaryKey().references('customer_order.id').onDelete('cascade'))
    .addColumn('ready_at', 'bigint')
    .addColumn('collect_by', 'varchar(10)')
    .addColumn('collected_at', 'bigint')
    .addColumn('reports', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_pickup_collected_idx').on('order_pickup').columns(['collected_at', 'order_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_pickup').execute();
}
