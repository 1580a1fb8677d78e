import type { Kysely } from 'kysely';

// The order reference a payment attempt was made under at the gateway: the order's code for the
// first attempt, `<code>-<n>` for later ones. EveryPay refuses a second payment under the same
// order reference by default, so an attempt whose answer was lost (the gateway made the payment,
// the shop never heard) would otherwise leave the order unpayable.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('order_payment').addColumn('order_reference', 'varchar(40)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('order_payment').dropColumn('order_reference').execute();
}
