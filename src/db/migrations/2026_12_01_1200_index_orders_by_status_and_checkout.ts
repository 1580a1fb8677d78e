import type { Kysely } from 'kysely';

// The unpaid-order sweep ages an order that never started a payment (NEW) by its checkout time, which
// a payment start the gateway could not create does not move (each such start moved the order's last
// status change, and an order kept restarting was never given up). It walks NEW orders in
// (created_at, id) order from a cursor, as customer_order_status_idx serves the other statuses' walks
// by status_changed_at: without this index each batch sorted every NEW order, and NEW orders pile up
// exactly while the gateway is down.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('customer_order_status_created_idx').on('customer_order').columns(['status', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('customer_order_status_created_idx').execute();
}
