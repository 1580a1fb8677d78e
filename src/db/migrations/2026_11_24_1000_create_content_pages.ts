import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Content and merchandising pages around the catalogue: plain content pages, pages made of ordered
// blocks (composite, category landing, discount landing and main pages share one table, told apart
// by `kind`), banners and menus. Every item is store-scoped, has an active flag and an optional
// visible window [visible_from, visible_to) in Unix ms, and keeps its texts per language in one
// JSON column (`translations`, {"et": {...}, "en": {...}, "ru": {...}}): an item is read whole, in
// one row, and falls back to the store's default language in code. Codes are the back office's,
// unique per table: imports and the admin PUT upsert by them.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  const pk = idColumn(db);

  await db.schema
    .createTable('content_page')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('slug', 'varchar(200)', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('visible_from', 'bigint')
    .addColumn('visible_to', 'bigint')
    // {"et": {"title", "body" (sanitized HTML), "seoTitle", "seoDescription"}, ...}
    .addColumn('translations', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('content_page_slug_uq').unique().on('content_page').columns(['store_code', 'slug']).execute();

  await db.schema
    .createTable('block_page')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    // COMPOSITE, CATEGORY, DISCOUNT or MAIN.
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    // Composite and discount pages are read by slug; a category page by its category; a main page by its store.
    .addColumn('slug', 'varchar(200)')
    .addColumn('category_id', 'bigint', (c) => c.references('category.id').onDelete('cascade'))
    // A discount page's campaign, by the back office's code (read when the page is, so a campaign
    // imported after the page, or re-imported, is found).
    .addColumn('campaign_code', 'varchar(40)')
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('visible_from', 'bigint')
    .addColumn('visible_to', 'bigint')
    // {"et": {"title", "seoTitle", "seoDescription"}, ...}
    .addColumn('translations', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('block_page_slug_uq').unique().on('block_page').columns(['store_code', 'kind', 'slug']).execute();
  await db.schema.createIndex('block_page_category_idx').on('block_page').columns(['category_id']).execute();

  await db.schema
    .createTable('page_block')
    .addColumn('id', id, pk)
    .addColumn('page_id', 'bigint', (c) => c.notNull().references('block_page.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    // RICH_TEXT, IMAGE, BANNER, PRODUCT_LIST, CAMPAIGN_LIST, PRODUCT_COMPONENT or LINKS.
    .addColumn('type', 'varchar(24)', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('visible_from', 'bigint')
    .addColumn('visible_to', 'bigint')
    // What the type needs that is not text: product codes, a component, an image URL, a banner placement, links.
    .addColumn('settings', 'text', (c) => c.notNull())
    // {"et": {"title", "body" (sanitized HTML), ...}, ...}
    .addColumn('translations', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('page_block_page_idx').on('page_block').columns(['page_id', 'position']).execute();

  await db.schema
    .createTable('banner')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    // Where it shows: HEADER, MENU, or a name a block's banner placement refers to.
    .addColumn('placement', 'varchar(40)', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    // Comma-separated customer kinds it shows to (GUEST,SIMPLE,BUSINESS,WHOLESALE); empty: everybody.
    .addColumn('customer_kinds', 'varchar(64)', (c) => c.notNull())
    .addColumn('link_url', 'varchar(500)')
    .addColumn('image_url', 'varchar(500)')
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('visible_from', 'bigint')
    .addColumn('visible_to', 'bigint')
    // {"et": {"title", "body" (sanitized HTML), "imageUrl"?}, ...}
    .addColumn('translations', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('banner_placement_idx').on('banner').columns(['store_code', 'placement', 'position']).execute();

  await db.schema
    .createTable('menu')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('visible_from', 'bigint')
    .addColumn('visible_to', 'bigint')
    // Featured links in order: [{"url", "categoryId"?, "labels": {"et", "en"?, "ru"?}}].
    .addColumn('links', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('menu_store_idx').on('menu').columns(['store_code']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('menu').execute();
  await db.schema.dropTable('banner').execute();
  await db.schema.dropTable('page_block').execute();
  await db.schema.dropTable('block_page').execute();
  await db.schema.dropTable('content_page').execute();
}
