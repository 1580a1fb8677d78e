import type { Kysely } from 'kysely';

// A payment that settled for an order that could not go on (given up, and its gift cards no
// longer cover their share) is money the shop must give back: refund_due_at marks it until the
// worker's order sweep has refunded it through its gateway.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('order_payment').addColumn('refund_due_at', 'bigint').execute();
  await db.schema.createIndex('order_payment_refund_due_idx').on('order_payment').column('refund_due_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('order_payment_refund_due_idx').execute();
  await db.schema.alterTable('order_payment').dropColumn('refund_due_at').execute();
}
