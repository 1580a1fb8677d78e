import { sql, type Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// An operator's refund of an order's payment is recorded before the gateway is asked (an intent):
// its sum, what the payment had refunded before it, and the gateway key of its own that every try of
// it sends, so the gateway refunds it once however often it is sent. `sending` while a request has it
// at the gateway, `unknown` when that request got no answer (a retry looks the payment up at the
// gateway and finishes it), then `refunded` or `refused`. One unresolved refund per payment at a
// time: a second one at once is refused, never sent. `request_key` is the operator's Idempotency-Key.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('order_refund')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('payment_id', 'bigint', (c) => c.notNull().references('order_payment.id').onDelete('cascade'))
    // What the operator asked for: null for "all that can be given back".
    .addColumn('requested_cents', 'integer')
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('refunded_before_cents', 'integer', (c) => c.notNull())
    // Taken off the gift cards the order bought before the gateway was asked (bought-card-refunds.ts).
    .addColumn('card_cents', 'integer', (c) => c.notNull())
    .addColumn('idempotency_key', 'varchar(200)', (c) => c.notNull().unique())
    .addColumn('request_key', 'varchar(200)')
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('order_refund_unresolved_uq')
    .on('order_refund')
    .column('payment_id')
    .unique()
    .where(sql.raw<boolean>("state in ('sending', 'unknown')"))
    .execute();
  await db.schema.createIndex('order_refund_request_uq').on('order_refund').columns(['payment_id', 'request_key']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_refund').execute();
}
