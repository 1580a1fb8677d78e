import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Orders and how they are paid: the order with its contact data, lines and the money of each,
// every state change with its time and cause, payment attempts at a gateway, the inbox of gateway
// callbacks (one row per reference and reported state, so a repeated callback is applied once),
// digital entitlements of paid orders, and stock held for orders (product.reserved_quantity).
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  const pk = idColumn(db);

  await db.schema
    .createTable('customer_order')
    .addColumn('id', id, pk)
    // WT… (WEB) and WN… (WEB2); set right after the row is inserted, from its id.
    .addColumn('code', 'varchar(20)', (c) => c.unique())
    .addColumn('store_code', 'varchar(10)', (c) => c.notNull())
    .addColumn('client_account_id', 'bigint', (c) => c.references('client_account.id'))
    // GUEST, SIMPLE, BUSINESS or WHOLESALE: how the order was priced and may be paid.
    .addColumn('customer_kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('language', 'varchar(5)', (c) => c.notNull())
    .addColumn('status', 'varchar(32)', (c) => c.notNull())
    .addColumn('status_changed_at', 'bigint', (c) => c.notNull())
    // The basket it came from and the basket's version after checkout emptied it: a second
    // checkout of an unchanged basket finds this order instead of making another.
    .addColumn('basket_id', 'bigint')
    .addColumn('basket_version_after', 'integer')
    // Idempotency-Key of the checkout request, scoped to whoever sent it (client or guest basket).
    .addColumn('idempotency_scope', 'varchar(80)')
    .addColumn('idempotency_key', 'varchar(200)')
    .addColumn('request_hash', 'varchar(64)')
    .addColumn('shipping_name', 'varchar(200)', (c) => c.notNull())
    .addColumn('shipping_email', 'varchar(254)', (c) => c.notNull())
    .addColumn('shipping_phone', 'varchar(40)', (c) => c.notNull())
    .addColumn('shipping_address', 'varchar(300)', (c) => c.notNull())
    .addColumn('shipping_city', 'varchar(100)', (c) => c.notNull())
    .addColumn('shipping_postcode', 'varchar(20)', (c) => c.notNull())
    .addColumn('shipping_country', 'varchar(2)', (c) => c.notNull())
    .addColumn('billing_name', 'varchar(200)', (c) => c.notNull())
    .addColumn('billing_email', 'varchar(254)', (c) => c.notNull())
    .addColumn('billing_phone', 'varchar(40)', (c) => c.notNull())
    .addColumn('billing_address', 'varchar(300)', (c) => c.notNull())
    .addColumn('billing_city', 'varchar(100)', (c) => c.notNull())
    .addColumn('billing_postcode', 'varchar(20)', (c) => c.notNull())
    .addColumn('billing_country', 'varchar(2)', (c) => c.notNull())
    .addColumn('notes', 'varchar(1000)', (c) => c.notNull())
    .addColumn('newsletter', 'boolean', (c) => c.notNull())
    .addColumn('delivery_method_id', 'bigint', (c) => c.notNull())
    .addColumn('delivery_method_code', 'varchar(40)', (c) => c.notNull())
    .addColumn('delivery_kind', 'varchar(24)', (c) => c.notNull())
    .addColumn('delivery_name', 'varchar(200)', (c) => c.notNull())
    .addColumn('parcel_machine_id', 'bigint')
    .addColumn('parcel_machine_name', 'varchar(300)')
    .addColumn('delivery_shop_code', 'varchar(40)')
    .addColumn('delivery_country', 'varchar(2)')
    .addColumn('delivery_cents', 'integer', (c) => c.notNull())
    .addColumn('delivery_vat_rate', 'double precision', (c) => c.notNull())
    .addColumn('payment_method', 'varchar(24)', (c) => c.notNull())
    .addColumn('discount_code_id', 'bigint')
    .addColumn('discount_code', 'varchar(40)')
    .addColumn('discount_cents', 'integer', (c) => c.notNull())
    .addColumn('subtotal_cents', 'integer', (c) => c.notNull())
    .addColumn('total_cents', 'integer', (c) => c.notNull())
    .addColumn('vat_cents', 'integer', (c) => c.notNull())
    // Wholesale orders are priced without VAT; the total then has it added.
    .addColumn('vat_included', 'boolean', (c) => c.notNull())
    .addColumn('session_id', 'varchar(100)')
    // The back office: when the hand-off succeeded, and its own order time and status.
    .addColumn('handed_off_at', 'bigint')
    .addColumn('nav_created_at', 'bigint')
    .addColumn('nav_status', 'varchar(40)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customer_order_client_idx')
    .on('customer_order')
    .columns(['client_account_id', 'store_code', 'id'])
    .execute();
  // The worker's sweeps and the operators' feed.
  await db.schema.createIndex('customer_order_status_idx').on('customer_order').columns(['status', 'status_changed_at']).execute();
  await db.schema.createIndex('customer_order_updated_idx').on('customer_order').columns(['updated_at', 'id']).execute();
  await db.schema
    .createIndex('customer_order_idempotency_uq')
    .on('customer_order')
    .columns(['idempotency_scope', 'idempotency_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('customer_order_basket_uq')
    .on('customer_order')
    .columns(['basket_id', 'basket_version_after'])
    .unique()
    .execute();

  await db.schema
    .createTable('order_line')
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('customer_order.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addColumn('product_code', 'varchar(40)', (c) => c.notNull())
    .addColumn('product_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('title', 'varchar(500)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('unit_price_cents', 'integer', (c) => c.notNull())
    .addColumn('regular_price_cents', 'integer', (c) => c.notNull())
    .addColumn('discount_cents', 'integer', (c) => c.notNull())
    .addColumn('total_cents', 'integer', (c) => c.notNull())
    .addColumn('vat_rate', 'double precision', (c) => c.notNull())
    .addColumn('is_digital', 'boolean', (c) => c.notNull())
    // Whether the item ships only from our stock (held at checkout), and how many units this line
    // holds now in product.reserved_quantity (0 once sold at processing, or released).
    .addColumn('stock_bound', 'boolean', (c) => c.notNull())
    .addColumn('reserved_quantity', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_line_pk', ['order_id', 'position'])
    .execute();
  await db.schema.createIndex('order_line_product_idx').on('order_line').columns(['product_id']).execute();

  await db.schema
    .createTable('order_status_change')
    .addColumn('id', id, pk)
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('customer_order.id').onDelete('cascade'))
    .addColumn('from_status', 'varchar(32)')
    .addColumn('to_status', 'varchar(32)', (c) => c.notNull())
    .addColumn('cause', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_status_change_order_idx').on('order_status_change').columns(['order_id', 'id']).execute();

  await db.schema
    .createTable('order_payment')
    .addColumn('id', id, pk)
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('customer_order.id'))
    .addColumn('gateway', 'varchar(20)', (c) => c.notNull())
    // The gateway's reference; null while the create call is under way.
    .addColumn('reference', 'varchar(200)')
    .addColumn('idempotency_key', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('refunded_cents', 'integer', (c) => c.notNull().defaultTo(0))
    // creating, pending, settled, failed, abandoned, voided, refunded
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    // The redirect form as JSON, so a second create-form answers the same form.
    .addColumn('redirect', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_payment_order_idx').on('order_payment').columns(['order_id']).execute();
  await db.schema.createIndex('order_payment_reference_uq').on('order_payment').columns(['gateway', 'reference']).unique().execute();

  // The callback inbox: one row per gateway reference and the state the gateway confirmed.
  await db.schema
    .createTable('payment_callback')
    .addColumn('gateway', 'varchar(20)', (c) => c.notNull())
    .addColumn('reference', 'varchar(200)', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('order_id', 'bigint')
    // What applying it did: applied, stale, mismatch (amount or order differ), unknown.
    .addColumn('outcome', 'varchar(24)', (c) => c.notNull())
    .addColumn('received_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_callback_pk', ['gateway', 'reference', 'state'])
    .execute();

  await db.schema
    .createTable('order_entitlement')
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('customer_order.id'))
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addColumn('client_account_id', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_entitlement_pk', ['order_id', 'product_id'])
    .execute();
  await db.schema
    .createIndex('order_entitlement_client_idx')
    .on('order_entitlement')
    .columns(['client_account_id', 'product_id'])
    .execute();

  // Server-made secrets shared by every process (the order checksum key when none is configured).
  await db.schema
    .createTable('app_secret')
    .addColumn('name', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('value', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  // Units held by orders not yet handed to the back office: web_stock less these can be sold.
  await db.schema
    .alterTable('product')
    .addColumn('reserved_quantity', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('product').dropColumn('reserved_quantity').execute();
  for (const table of [
    'app_secret',
    'order_entitlement',
    'payment_callback',
    'order_payment',
    'order_status_change',
    'order_line',
    'customer_order',
  ])
    await db.schema.dropTable(table).execute();
}
