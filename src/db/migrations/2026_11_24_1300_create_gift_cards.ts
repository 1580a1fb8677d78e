import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Gift cards as a ledger. A card's code is never stored: `code_hmac` is an HMAC-SHA256 of the
// normalised code under a server key (the look-up), `code_hint` its last four characters for
// lists. Every change of money is a row of `gift_card_entry`: `amount_cents` moves the spendable
// balance, `held_cents` the part held for unpaid orders. `gift_card.balance_cents` is the sum of
// the entries' `amount_cents`, written in the same transaction as each entry: a reservation is the
// conditional update `balance_cents >= amount`, so two checkouts cannot spend one cent twice.
// `gift_card_hold` is one card's part of one order, with its state (HELD, CAPTURED, RELEASED,
// REFUNDED), moved by conditional updates so a repeat does nothing. `basket_gift_card` lists the
// cards a basket will be paid with. `customer_order.gift_card_cents` is what the cards paid of
// the order (its `total_cents` is what is left to pay online).
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  const pk = idColumn(db);

  await db.schema
    .createTable('gift_card')
    .addColumn('id', id, pk)
    .addColumn('code_hmac', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('code_hint', 'varchar(8)', (c) => c.notNull())
    // PHYSICAL (imported from the back office) or VIRTUAL (bought in the shop).
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('initial_cents', 'bigint', (c) => c.notNull())
    .addColumn('balance_cents', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    // A virtual card: the order line that bought it, the buyer, the recipient and the mail.
    .addColumn('order_id', 'bigint', (c) => c.references('customer_order.id').onDelete('set null'))
    .addColumn('order_position', 'integer')
    .addColumn('buyer_client_account_id', 'bigint', (c) => c.references('client_account.id').onDelete('set null'))
    .addColumn('recipient_name', 'varchar(200)')
    .addColumn('recipient_email', 'varchar(254)')
    .addColumn('message', 'varchar(1000)')
    .addColumn('store_code', 'varchar(16)')
    .addColumn('language', 'varchar(8)')
    .addColumn('deliver_at', 'bigint')
    .addColumn('mailed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('gift_card_order_uq').unique().on('gift_card').columns(['order_id', 'order_position']).execute();
  await db.schema.createIndex('gift_card_buyer_idx').on('gift_card').column('buyer_client_account_id').execute();
  await db.schema.createIndex('gift_card_recipient_idx').on('gift_card').column('recipient_email').execute();
  await db.schema.createIndex('gift_card_expiry_idx').on('gift_card').columns(['expires_at', 'balance_cents']).execute();

  await db.schema
    .createTable('gift_card_entry')
    .addColumn('id', id, pk)
    .addColumn('gift_card_id', 'bigint', (c) => c.notNull().references('gift_card.id').onDelete('cascade'))
    // ISSUE, IMPORT, RESERVE, CAPTURE, RELEASE, REFUND, EXPIRY.
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('held_cents', 'bigint', (c) => c.notNull())
    .addColumn('order_id', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('gift_card_entry_card_idx').on('gift_card_entry').columns(['gift_card_id', 'id']).execute();

  await db.schema
    .createTable('gift_card_hold')
    .addColumn('gift_card_id', 'bigint', (c) => c.notNull().references('gift_card.id').onDelete('cascade'))
    .addColumn('order_id', 'bigint', (c) => c.notNull().references('customer_order.id').onDelete('cascade'))
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('gift_card_hold_pk', ['gift_card_id', 'order_id'])
    .execute();
  await db.schema.createIndex('gift_card_hold_order_idx').on('gift_card_hold').column('order_id').execute();

  await db.schema
    .createTable('basket_gift_card')
    .addColumn('basket_id', 'bigint', (c) => c.notNull().references('basket.id').onDelete('cascade'))
    .addColumn('gift_card_id', 'bigint', (c) => c.notNull().references('gift_card.id').onDelete('cascade'))
    .addColumn('added_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('basket_gift_card_pk', ['basket_id', 'gift_card_id'])
    .execute();

  await db.schema
    .alterTable('customer_order')
    .addColumn('gift_card_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('customer_order').dropColumn('gift_card_cents').execute();
  await db.schema.dropTable('basket_gift_card').execute();
  await db.schema.dropTable('gift_card_hold').execute();
  await db.schema.dropTable('gift_card_entry').execute();
  await db.schema.dropTable('gift_card').execute();
}
