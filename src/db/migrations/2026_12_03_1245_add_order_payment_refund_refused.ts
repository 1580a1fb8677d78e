import type { Kysely } from 'kysely';

// A payment due back (refund_due_at) whose refund its gateway refused as asked (the payment can no
// longer be refunded, a part of it was refunded by hand): the sweep no longer sends it again, and
// refund_refused_at keeps that the shop still owes money, for the operators, who refund it by hand.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('order_payment').addColumn('refund_refused_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('order_payment').dropColumn('refund_refused_at').execute();
}
