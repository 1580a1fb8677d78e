import type { Kysely } from 'kysely';

// An upgrade's charge names the plan the upgrade started from. A declined upgrade charge that the
// bank approves after all is applied (the customer paid for it) only while the subscription is
// still on that plan in that period and no later change replaced it; the charge did not say which
// plan that was. Earlier rows and period charges have none: a late settle of such an upgrade is
// refunded, as before.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').addColumn('from_plan_id', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').dropColumn('from_plan_id').execute();
}
