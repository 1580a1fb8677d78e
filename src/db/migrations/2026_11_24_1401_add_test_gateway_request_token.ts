import type { Kysely } from 'kysely';

// The test gateway saves cards like a provider does (a payment that requests a token), so
// subscriptions can be tried end to end without EveryPay.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('test_gateway_payment')
    .addColumn('request_token', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('test_gateway_payment').dropColumn('request_token').execute();
}
