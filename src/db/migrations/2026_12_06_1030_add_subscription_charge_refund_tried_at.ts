import type { Kysely } from 'kysely';

// The billing run refunds what the refund jobs left (refund_due charges). It took the oldest 500 by id
// and changed nothing on one the gateway could not refund now, so once 500 could never be refunded (a
// payment the gateway answers about in a way the shop cannot read, say) every hourly run tried the same
// ones and no later charge's money went back. A charge now records when a run last tried its refund
// (null: never): the run takes the least recently tried first, as it does with stale pending charges
// (checked_at, migration 2026_11_30_1900). Earlier rows have none, and are tried first.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').addColumn('refund_tried_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').dropColumn('refund_tried_at').execute();
}
