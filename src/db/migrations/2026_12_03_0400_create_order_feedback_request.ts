import type { Kysely } from 'kysely';

// The orders whose buyer was asked to rate what they bought (src/modules/orders/processing/
// feedback-request.ts): one row per order, made in the transaction that queues the mail, so an
// order is asked about once; by client and time, for the one-ask-a-month rule per person.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('order_feedback_request')
    .addColumn('order_id', 'bigint', (c) => c.primaryKey().references('customer_order.id').onDelete('cascade'))
    .addColumn('client_account_id', 'bigint', (c) => c.notNull())
    .addColumn('requested_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('order_feedback_request_client_idx')
    .on('order_feedback_request')
    .columns(['client_account_id', 'requested_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_feedback_request').execute();
}
