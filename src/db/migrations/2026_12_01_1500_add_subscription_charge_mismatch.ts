import type { Kysely } from 'kysely';

// A charge's payment that EveryPay (or any gateway) holds with another amount, in another currency or
// on another of the merchant's processing accounts pays nothing (paysCharge), and the charge stays
// pending. Nothing recorded it: the callback ended as an unknown payment (404) and the charge was
// seen only once stuck, a day on. A charge now keeps the last such payment its gateway named (JSON:
// reference, order reference, state, amount, currency, own account) and when, for the operator
// (`subscription charges --mismatched`). Earlier charges have none: no mismatch of theirs was kept.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').addColumn('mismatch', 'text').execute();
  await db.schema.alterTable('subscription_charge').addColumn('mismatch_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').dropColumn('mismatch_at').execute();
  await db.schema.alterTable('subscription_charge').dropColumn('mismatch').execute();
}
