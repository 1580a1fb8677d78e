import type { Kysely } from 'kysely';

// The test gateway's own books: it plays a payment service provider, so it keeps its payments (and
// their refunds) as a provider would, apart from the shop's orders. The reference is the
// provider's random, unguessable id; the idempotency keys make a retried create or refund a no-op.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('test_gateway_payment')
    .addColumn('reference', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('order_reference', 'varchar(64)', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('refunded_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('currency', 'varchar(3)', (c) => c.notNull())
    // pending, settled, failed, abandoned or refunded.
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('return_url', 'varchar(2000)', (c) => c.notNull())
    .addColumn('callback_url', 'varchar(2000)', (c) => c.notNull())
    .addColumn('idempotency_key', 'varchar(200)', (c) => c.notNull().unique())
    .addColumn('customer_email', 'varchar(320)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('test_gateway_refund')
    .addColumn('idempotency_key', 'varchar(200)', (c) => c.primaryKey())
    .addColumn('payment_reference', 'varchar(64)', (c) => c.notNull().references('test_gateway_payment.reference').onDelete('cascade'))
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('test_gateway_refund').execute();
  await db.schema.dropTable('test_gateway_payment').execute();
}
