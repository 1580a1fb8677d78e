import type { Kysely } from 'kysely';

// An upgrade whose charge the gateway answered "still with the bank" is answered 503 (the payment
// is being processed); the callback or the billing run's look-up then brings the bank's decision,
// which was applied without a word to the customer. A charge now records when its customer was told
// it is pending, in the transaction that checks it still is, so that the one transaction that
// finishes it mails the outcome (the upgrade active, or declined and the plan unchanged); a charge
// decided before the customer was answered is told in the answer, and mailed nothing. Earlier rows
// have none: a charge pending across the deploy is applied without a mail, as before.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').addColumn('pending_told_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').dropColumn('pending_told_at').execute();
}
