import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';
import { BINDINGS } from './data/bindings.js';

// The catalogue: products and everything around them. Codes are the back office's (NAV) and are
// what imports upsert by; ids are ours. Money is integer cents, percentages are plain numbers.
// Denormalised columns on `product` (image_url, web_stock, rating_*, discount_percent) are kept
// up to date by the writers (imports, comments) so lists read one row per product.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  const pk = idColumn(db);

  // Store discounts of the pricing rules (domain notes: guest and logged-in discount per store).
  await db.schema
    .alterTable('web_store')
    .addColumn('guest_discount_percent', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('web_store')
    .addColumn('logged_in_discount_percent', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  // A retail client's own discount, and a company's discount (business) agreed with the back office.
  await db.schema
    .alterTable('client_account')
    .addColumn('discount_percent', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('company')
    .addColumn('discount_percent', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('binding')
    .addColumn('code', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('binding_name')
    .addColumn('binding_code', 'varchar(32)', (c) => c.notNull().references('binding.code').onDelete('cascade'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addPrimaryKeyConstraint('binding_name_pk', ['binding_code', 'language'])
    .execute();
  await db
    .insertInto('binding')
    .values(BINDINGS.map(({ code }, position) => ({ code, position })))
    .execute();
  await db
    .insertInto('binding_name')
    .values(
      BINDINGS.flatMap(({ code, names }) => Object.entries(names).map(([language, name]) => ({ binding_code: code, language, name }))),
    )
    .execute();

  await db.schema
    .createTable('publisher')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('publisher_name_idx').on('publisher').columns(['name', 'id']).execute();

  await db.schema
    .createTable('series')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('publisher_id', 'bigint', (c) => c.references('publisher.id').onDelete('set null'))
    .addColumn('description', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('series_name_idx').on('series').columns(['name', 'id']).execute();

  await db.schema
    .createTable('person')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('image_url', 'varchar(500)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('person_name_idx').on('person').columns(['name', 'id']).execute();

  await db.schema
    .createTable('product')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('ean', 'varchar(20)')
    .addColumn('type', 'varchar(24)', (c) => c.notNull())
    .addColumn('name', 'varchar(500)', (c) => c.notNull())
    .addColumn('alt_names', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('description', 'text')
    .addColumn('language', 'varchar(8)')
    .addColumn('binding_code', 'varchar(32)', (c) => c.references('binding.code'))
    .addColumn('year', 'integer')
    .addColumn('pages', 'integer')
    .addColumn('width_mm', 'integer')
    .addColumn('height_mm', 'integer')
    .addColumn('depth_mm', 'integer')
    .addColumn('weight_g', 'integer')
    .addColumn('publisher_id', 'bigint', (c) => c.references('publisher.id').onDelete('set null'))
    .addColumn('series_id', 'bigint', (c) => c.references('series.id').onDelete('set null'))
    .addColumn('series_number', 'integer')
    .addColumn('physical_book_id', 'bigint', (c) => c.references('product.id').onDelete('set null'))
    .addColumn('shop_price_cents', 'integer', (c) => c.notNull())
    .addColumn('original_price_cents', 'integer')
    .addColumn('wholesale_price_cents', 'integer')
    .addColumn('vat_rate_percent', 'double precision', (c) => c.notNull())
    .addColumn('discount_percent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('availability', 'varchar(32)', (c) => c.notNull())
    .addColumn('delivery_time', 'varchar(24)')
    .addColumn('web_stock', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('image_url', 'varchar(500)')
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('hidden_web', 'boolean', (c) => c.notNull())
    .addColumn('hidden_business', 'boolean', (c) => c.notNull())
    .addColumn('sales_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_sum', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('released_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('product_ean_idx').on('product').column('ean').execute();
  await db.schema.createIndex('product_publisher_idx').on('product').columns(['publisher_id', 'id']).execute();
  await db.schema.createIndex('product_series_idx').on('product').columns(['series_id', 'series_number', 'id']).execute();
  await db.schema.createIndex('product_physical_book_idx').on('product').column('physical_book_id').execute();
  await db.schema.createIndex('product_created_idx').on('product').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('product_released_idx').on('product').columns(['released_at', 'id']).execute();
  await db.schema.createIndex('product_sales_idx').on('product').columns(['sales_count', 'id']).execute();
  await db.schema.createIndex('product_discount_idx').on('product').columns(['discount_percent', 'id']).execute();
  await db.schema.createIndex('product_price_idx').on('product').columns(['shop_price_cents', 'id']).execute();
  await db.schema.createIndex('product_name_idx').on('product').columns(['name', 'id']).execute();

  // Alternate EAN/ISBN codes (ISBN-10, other editions' barcodes) that find the same product.
  await db.schema
    .createTable('product_alt_code')
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('code', 'varchar(20)', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_alt_code_pk', ['product_id', 'code'])
    .execute();
  await db.schema.createIndex('product_alt_code_code_idx').on('product_alt_code').column('code').execute();

  // Per-store assortment: a product is sold in a store only with a row here.
  await db.schema
    .createTable('product_store')
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addPrimaryKeyConstraint('product_store_pk', ['product_id', 'store_code'])
    .execute();
  await db.schema.createIndex('product_store_store_idx').on('product_store').columns(['store_code', 'product_id']).execute();

  await db.schema
    .createTable('product_person')
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('person_id', 'bigint', (c) => c.notNull().references('person.id').onDelete('cascade'))
    .addColumn('role', 'varchar(24)', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_person_pk', ['product_id', 'person_id', 'role'])
    .execute();
  await db.schema.createIndex('product_person_person_idx').on('product_person').columns(['person_id', 'product_id']).execute();

  await db.schema
    .createTable('product_asset')
    .addColumn('id', id, pk)
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(24)', (c) => c.notNull())
    .addColumn('url', 'varchar(1000)', (c) => c.notNull())
    .addColumn('mime_type', 'varchar(100)')
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('product_asset_product_idx').on('product_asset').columns(['product_id', 'position']).execute();

  await db.schema
    .createTable('product_related')
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('related_product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_related_pk', ['product_id', 'related_product_id'])
    .execute();

  // Categories: a tree per store; `level` is the depth, 1 at the root.
  await db.schema
    .createTable('category')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('parent_id', 'bigint', (c) => c.references('category.id').onDelete('cascade'))
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('category_store_parent_idx').on('category').columns(['store_code', 'parent_id', 'position']).execute();
  await db.schema.createIndex('category_parent_idx').on('category').column('parent_id').execute();
  await db.schema
    .createTable('category_name')
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('category.id').onDelete('cascade'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addPrimaryKeyConstraint('category_name_pk', ['category_id', 'language'])
    .execute();
  await db.schema
    .createTable('product_category')
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('category.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('product_category_pk', ['product_id', 'category_id'])
    .execute();
  await db.schema.createIndex('product_category_category_idx').on('product_category').columns(['category_id', 'product_id']).execute();

  // Physical shops; `web_stock` says whether the shop's stock can be sold on the web.
  await db.schema
    .createTable('shop')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('city', 'varchar(100)', (c) => c.notNull())
    .addColumn('address', 'varchar(300)')
    .addColumn('phone', 'varchar(30)')
    .addColumn('email', 'varchar(254)')
    .addColumn('web_stock', 'boolean', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shop_created_idx').on('shop').columns(['created_at', 'id']).execute();
  await db.schema
    .createTable('shop_name')
    .addColumn('shop_id', 'bigint', (c) => c.notNull().references('shop.id').onDelete('cascade'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('opening_hours', 'varchar(500)')
    .addPrimaryKeyConstraint('shop_name_pk', ['shop_id', 'language'])
    .execute();
  await db.schema
    .createTable('shop_stock')
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('shop_id', 'bigint', (c) => c.notNull().references('shop.id').onDelete('cascade'))
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('shop_stock_pk', ['product_id', 'shop_id'])
    .execute();
  await db.schema.createIndex('shop_stock_shop_idx').on('shop_stock').columns(['shop_id', 'product_id']).execute();

  // Campaigns: a time-boxed price for retail or business customers, shown as a campaign list.
  await db.schema
    .createTable('campaign')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('valid_from', 'bigint')
    .addColumn('valid_to', 'bigint')
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('image_url', 'varchar(500)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('campaign_store_idx').on('campaign').columns(['store_code', 'is_active', 'position']).execute();
  await db.schema
    .createTable('campaign_name')
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaign.id').onDelete('cascade'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addPrimaryKeyConstraint('campaign_name_pk', ['campaign_id', 'language'])
    .execute();
  await db.schema
    .createTable('campaign_price')
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaign.id').onDelete('cascade'))
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('customer_kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaign_price_pk', ['campaign_id', 'product_id', 'customer_kind'])
    .execute();
  await db.schema.createIndex('campaign_price_product_idx').on('campaign_price').column('product_id').execute();

  // Curated product lists (main page blocks, "staff picks"), per store.
  await db.schema
    .createTable('product_list')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('product_list_name')
    .addColumn('product_list_id', 'bigint', (c) => c.notNull().references('product_list.id').onDelete('cascade'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_list_name_pk', ['product_list_id', 'language'])
    .execute();
  await db.schema
    .createTable('product_list_item')
    .addColumn('product_list_id', 'bigint', (c) => c.notNull().references('product_list.id').onDelete('cascade'))
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_list_item_pk', ['product_list_id', 'product_id'])
    .execute();
  await db.schema.createIndex('product_list_item_product_idx').on('product_list_item').column('product_id').execute();

  // A company's own price for a product (wholesale), VAT excluded.
  await db.schema
    .createTable('company_product_price')
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('company_product_price_pk', ['company_id', 'product_id'])
    .execute();

  // Comments (any number per client) and ratings (one per client and product).
  await db.schema
    .createTable('product_comment')
    .addColumn('id', id, pk)
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('client_account_id', 'bigint', (c) => c.notNull().references('client_account.id').onDelete('cascade'))
    .addColumn('author_name', 'varchar(100)', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('product_comment_product_idx').on('product_comment').columns(['product_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('product_comment_client_idx').on('product_comment').column('client_account_id').execute();
  await db.schema
    .createTable('product_rating')
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('product.id').onDelete('cascade'))
    .addColumn('client_account_id', 'bigint', (c) => c.notNull().references('client_account.id').onDelete('cascade'))
    .addColumn('rating', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_rating_pk', ['product_id', 'client_account_id'])
    .execute();
  await db.schema.createIndex('product_rating_client_idx').on('product_rating').column('client_account_id').execute();

  await db.schema
    .createTable('quote')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('product_id', 'bigint', (c) => c.references('product.id').onDelete('cascade'))
    .addColumn('person_id', 'bigint', (c) => c.references('person.id').onDelete('set null'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('quote_product_idx').on('quote').columns(['product_id', 'id']).execute();
  await db.schema.createIndex('quote_person_idx').on('quote').columns(['person_id', 'id']).execute();

  // Categories a client follows (client account preferences; exported as `preferences`).
  await db.schema
    .createTable('client_category_preference')
    .addColumn('client_account_id', 'bigint', (c) => c.notNull().references('client_account.id').onDelete('cascade'))
    .addColumn('category_id', 'bigint', (c) => c.notNull().references('category.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('client_category_preference_pk', ['client_account_id', 'category_id'])
    .execute();

  // What shoppers do (VIEW, ADD_TO_WISHLIST, ADD_TO_BASKET), for the data export.
  await db.schema
    .createTable('session_action')
    .addColumn('id', id, pk)
    .addColumn('session_id', 'varchar(100)', (c) => c.notNull())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull())
    .addColumn('product_code', 'varchar(40)', (c) => c.notNull())
    .addColumn('client_code', 'varchar(20)')
    .addColumn('action_type', 'varchar(24)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('session_action_created_idx').on('session_action').columns(['created_at', 'id']).execute();

  // Orders as the back office reports them (online and shop sales); the recommendations' order history.
  await db.schema
    .createTable('sales_history')
    .addColumn('id', id, pk)
    .addColumn('order_code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('client_code', 'varchar(20)', (c) => c.notNull())
    .addColumn('client_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('source_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('city', 'varchar(100)', (c) => c.notNull())
    .addColumn('session_id', 'varchar(100)')
    .addColumn('delivery_method', 'varchar(60)', (c) => c.notNull())
    .addColumn('shop_code', 'varchar(40)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('created_nav', 'bigint')
    .execute();
  await db.schema.createIndex('sales_history_created_idx').on('sales_history').columns(['created_at', 'id']).execute();
  await db.schema
    .createTable('sales_history_item')
    .addColumn('sales_history_id', 'bigint', (c) => c.notNull().references('sales_history.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('product_code', 'varchar(40)', (c) => c.notNull())
    .addPrimaryKeyConstraint('sales_history_item_pk', ['sales_history_id', 'position'])
    .execute();
  await db.schema
    .createIndex('sales_history_item_product_idx')
    .on('sales_history_item')
    .columns(['product_code', 'sales_history_id'])
    .execute();

  // Operator API keys for the admin endpoints (imports); only the SHA-256 of a key is stored.
  await db.schema
    .createTable('api_key')
    .addColumn('id', id, pk)
    .addColumn('name', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const tables = [
    'api_key',
    'sales_history_item',
    'sales_history',
    'session_action',
    'client_category_preference',
    'quote',
    'product_rating',
    'product_comment',
    'company_product_price',
    'product_list_item',
    'product_list_name',
    'product_list',
    'campaign_price',
    'campaign_name',
    'campaign',
    'shop_stock',
    'shop_name',
    'shop',
    'product_category',
    'category_name',
    'category',
    'product_related',
    'product_asset',
    'product_person',
    'product_store',
    'product_alt_code',
    'product',
    'person',
    'series',
    'publisher',
    'binding_name',
    'binding',
  ];
  for (const table of tables) await db.schema.dropTable(table).execute();
  await db.schema.alterTable('company').dropColumn('discount_percent').execute();
  await db.schema.alterTable('client_account').dropColumn('discount_percent').execute();
  await db.schema.alterTable('web_store').dropColumn('logged_in_discount_percent').execute();
  await db.schema.alterTable('web_store').dropColumn('guest_discount_percent').execute();
}
