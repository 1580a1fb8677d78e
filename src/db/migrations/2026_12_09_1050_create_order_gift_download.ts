import type { Kysely } from 'kysely';

// The receiver of an order's e-books and audiobooks bought for them (src/modules/orders/gift-downloads.ts):
// one row per order for someone else with downloads, made by the processing that grants them, naming the
// address the receiver's mail and its download link went to. By address, for the receiver's "your data"
// (export and erasure: an erased receiver's link gives nothing any more).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('order_gift_download')
    .addColumn('order_id', 'bigint', (c) => c.primaryKey().references('customer_order.id').onDelete('cascade'))
    .addColumn('receiver_email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_gift_download_receiver_idx').on('order_gift_download').column('receiver_email').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_gift_download').execute();
}
