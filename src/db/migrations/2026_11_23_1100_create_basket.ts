import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Baskets (a guest's, by a hashed token, or a client account's per store) and what a basket
// refers to: discount codes and delivery methods with their prices, shops, countries and parcel
// machines. Money is integer cents; a basket line keeps the unit price the shopper last saw, so
// a later read can say the price changed.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  const pk = idColumn(db);

  await db.schema
    .createTable('discount_code')
    .addColumn('id', id, pk)
    // Upper-case: codes are compared case-insensitively.
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('percent', 'double precision')
    .addColumn('amount_cents', 'integer')
    .addColumn('valid_from', 'bigint')
    .addColumn('valid_to', 'bigint')
    .addColumn('max_uses', 'integer')
    // Counted when an order is placed, not in the basket.
    .addColumn('used_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('min_basket_cents', 'integer')
    // Comma-separated: GUEST, SIMPLE, BUSINESS; store codes (empty: every store).
    .addColumn('customer_kinds', 'varchar(100)', (c) => c.notNull())
    .addColumn('stores', 'varchar(100)', (c) => c.notNull().defaultTo(''))
    .addColumn('free_parcel_machine', 'boolean', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('discount_code_condition')
    .addColumn('discount_code_id', 'bigint', (c) => c.notNull().references('discount_code.id').onDelete('cascade'))
    // INCLUDE or EXCLUDE; CATEGORY, PRODUCT, BINDING or TYPE; a category, product or binding code, or a product type.
    .addColumn('mode', 'varchar(8)', (c) => c.notNull())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('value', 'varchar(40)', (c) => c.notNull())
    .addPrimaryKeyConstraint('discount_code_condition_pk', ['discount_code_id', 'mode', 'kind', 'value'])
    .execute();

  await db.schema
    .createTable('delivery_method')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('kind', 'varchar(24)', (c) => c.notNull())
    // Parcel machines: whose machines (parcel_machine.carrier).
    .addColumn('carrier', 'varchar(40)')
    // Comma-separated ISO country codes the method delivers to (international: its fee table's).
    .addColumn('countries', 'varchar(1000)', (c) => c.notNull())
    .addColumn('suits_digital_only', 'boolean', (c) => c.notNull())
    .addColumn('suits_heavy', 'boolean', (c) => c.notNull())
    .addColumn('days_min', 'integer', (c) => c.notNull())
    .addColumn('days_max', 'integer', (c) => c.notNull())
    .addColumn('vat_rate_percent', 'double precision', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('delivery_method_name')
    .addColumn('delivery_method_id', 'bigint', (c) => c.notNull().references('delivery_method.id').onDelete('cascade'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addPrimaryKeyConstraint('delivery_method_name_pk', ['delivery_method_id', 'language'])
    .execute();
  await db.schema
    .createTable('delivery_method_price')
    .addColumn('delivery_method_id', 'bigint', (c) => c.notNull().references('delivery_method.id').onDelete('cascade'))
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addColumn('free_over_cents', 'integer')
    .addPrimaryKeyConstraint('delivery_method_price_pk', ['delivery_method_id', 'store_code'])
    .execute();
  await db.schema
    .createTable('delivery_country_fee')
    .addColumn('delivery_method_id', 'bigint', (c) => c.notNull().references('delivery_method.id').onDelete('cascade'))
    .addColumn('country_code', 'varchar(2)', (c) => c.notNull())
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('delivery_country_fee_pk', ['delivery_method_id', 'country_code'])
    .execute();
  await db.schema
    .createTable('delivery_method_shop')
    .addColumn('delivery_method_id', 'bigint', (c) => c.notNull().references('delivery_method.id').onDelete('cascade'))
    .addColumn('shop_id', 'bigint', (c) => c.notNull().references('shop.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('delivery_method_shop_pk', ['delivery_method_id', 'shop_id'])
    .execute();
  await db.schema
    .createTable('parcel_machine')
    .addColumn('id', id, pk)
    .addColumn('carrier', 'varchar(40)', (c) => c.notNull())
    .addColumn('code', 'varchar(40)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('city', 'varchar(100)', (c) => c.notNull())
    .addColumn('address', 'varchar(300)', (c) => c.notNull())
    .addColumn('country_code', 'varchar(2)', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('parcel_machine_code_uq', ['carrier', 'code'])
    .execute();

  await db.schema
    .createTable('basket')
    .addColumn('id', id, pk)
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    // A client's basket: one per account and store. A guest's: the SHA-256 of its token.
    .addColumn('client_account_id', 'bigint', (c) => c.references('client_account.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.unique())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('discount_code_id', 'bigint', (c) => c.references('discount_code.id').onDelete('set null'))
    .addColumn('delivery_method_id', 'bigint', (c) => c.references('delivery_method.id').onDelete('set null'))
    .addColumn('parcel_machine_id', 'bigint', (c) => c.references('parcel_machine.id').onDelete('set null'))
    .addColumn('delivery_shop_id', 'bigint', (c) => c.references('shop.id').onDelete('set null'))
    .addColumn('delivery_country_code', 'varchar(2)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('basket_client_uq').unique().on('basket').columns(['client_account_id', 'store_code']).execute();
  await db.schema.createIndex('basket_updated_idx').on('basket').columns(['updated_at', 'id']).execute();
  await db.schema
    .createTable('basket_line')
    .addColumn('basket_id', 'bigint', (c) => c.notNull().references('basket.id').onDelete('cascade'))
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('quantity', 'integer', (c) => c.notNull())
    // The unit price the shopper saw when the line last changed: a different price now is "price changed".
    .addColumn('seen_price_cents', 'integer', (c) => c.notNull())
    .addColumn('added_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('basket_line_pk', ['basket_id', 'product_id'])
    .execute();
  await db.schema.createIndex('basket_line_product_idx').on('basket_line').column('product_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'basket_line',
    'basket',
    'parcel_machine',
    'delivery_method_shop',
    'delivery_country_fee',
    'delivery_method_price',
    'delivery_method_name',
    'delivery_method',
    'discount_code_condition',
    'discount_code',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
