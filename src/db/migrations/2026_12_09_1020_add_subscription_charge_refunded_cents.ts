import type { Kysely } from 'kysely';

// What the gateway reports refunded of a subscription charge's payment (a refund in its portal, in part or
// whole; a chargeback is whole), in cents. A settled charge refunded only in part stayed settled at its full
// amount, and `subscription stats` counted as revenue money the shop had given back; the stats now count the
// amount less this. Earlier rows: 0 (what was refunded of them then is not known here; one refunded whole is
// `refunded` already). No index: it is read with the charge, never searched.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('subscription_charge')
    .addColumn('refunded_cents', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscription_charge').dropColumn('refunded_cents').execute();
}
