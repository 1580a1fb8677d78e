import type { Kysely } from 'kysely';

// Virtual gift cards bought in the shop. `basket_virtual_gift_card` holds what a basket line of a
// VIRTUAL_GIFT_CARD product says beyond its product (the amount, which is its price, the
// recipient, the message and the delivery date). Checkout copies it to
// `virtual_gift_card_purchase` per order line; once the order is paid a job issues the card
// (`gift_card_id`), whose code is minted only when the recipient's mail goes out on the delivery
// date, so no code waits in the database.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('basket_virtual_gift_card')
    .addColumn('basket_id', 'bigint', (c) => c.notNull().references('basket.id').onDelete('cascade'))
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('recipient_name', 'varchar(200)', (c) => c.notNull())
    .addColumn('recipient_email', 'varchar(254)', (c) => c.notNull())
    .addColumn('message', 'varchar(1000)', (c) => c.notNull())
    // YYYY-MM-DD: the mail goes out that morning.
    .addColumn('deliver_on', 'varchar(10)', (c) => c.notNull())
    .addPrimaryKeyConstraint('basket_virtual_gift_card_pk', ['basket_id', 'product_id'])
    .execute();

  await db.schema
    .createTable('virtual_gift_card_purchase')
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('customer_order.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('recipient_name', 'varchar(200)', (c) => c.notNull())
    .addColumn('recipient_email', 'varchar(254)', (c) => c.notNull())
    .addColumn('message', 'varchar(1000)', (c) => c.notNull())
    .addColumn('deliver_at', 'bigint', (c) => c.notNull())
    .addColumn('buyer_client_account_id', 'bigint', (c) => c.references('client_account.id').onDelete('set null'))
    .addColumn('buyer_email', 'varchar(254)', (c) => c.notNull())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull())
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('gift_card_id', 'bigint', (c) => c.references('gift_card.id').onDelete('set null'))
    // Set when the order was given up or its money went back: not issued (or voided when it was).
    .addColumn('cancelled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('virtual_gift_card_purchase_pk', ['order_id', 'position'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('virtual_gift_card_purchase').execute();
  await db.schema.dropTable('basket_virtual_gift_card').execute();
}
