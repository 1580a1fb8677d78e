import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Blog posts and their categories, and news. A blog post is written in one language (its
// `language`); a news item and a blog category have translations. Every item is store-scoped and
// published by an active flag and an optional visible-from/to window (to exclusive). Slugs are
// unique per store, so a post's URL opens whatever language the browser asks in. Lists are read
// newest first a page at a time: (store, language, published_at, id) serves the blog's page and
// its count, (store, published_at, id) the news'.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  const pk = idColumn(db);

  await db.schema
    .createTable('blog_category')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('slug', 'varchar(200)', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('blog_category_store_slug_uq').unique().on('blog_category').columns(['store_code', 'slug']).execute();
  await db.schema
    .createTable('blog_category_name')
    .addColumn('blog_category_id', 'bigint', (c) => c.notNull().references('blog_category.id').onDelete('cascade'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addPrimaryKeyConstraint('blog_category_name_pk', ['blog_category_id', 'language'])
    .execute();

  await db.schema
    .createTable('blog_post')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('slug', 'varchar(200)', (c) => c.notNull())
    .addColumn('title', 'varchar(300)', (c) => c.notNull())
    .addColumn('summary', 'text')
    // Sanitized HTML (infra/html-sanitizer.ts) on the way in.
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('image_url', 'varchar(500)')
    .addColumn('author', 'varchar(200)')
    .addColumn('category_id', 'bigint', (c) => c.references('blog_category.id').onDelete('set null'))
    .addColumn('seo_title', 'varchar(300)')
    .addColumn('seo_description', 'varchar(500)')
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('visible_from', 'bigint')
    .addColumn('visible_to', 'bigint')
    .addColumn('published_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('blog_post_store_slug_uq').unique().on('blog_post').columns(['store_code', 'slug']).execute();
  await db.schema.createIndex('blog_post_page_idx').on('blog_post').columns(['store_code', 'language', 'published_at', 'id']).execute();
  await db.schema.createIndex('blog_post_category_idx').on('blog_post').columns(['category_id', 'published_at']).execute();
  await db.schema
    .createTable('blog_post_tag')
    .addColumn('blog_post_id', 'bigint', (c) => c.notNull().references('blog_post.id').onDelete('cascade'))
    .addColumn('tag', 'varchar(60)', (c) => c.notNull())
    .addPrimaryKeyConstraint('blog_post_tag_pk', ['blog_post_id', 'tag'])
    .execute();
  await db.schema.createIndex('blog_post_tag_tag_idx').on('blog_post_tag').columns(['tag', 'blog_post_id']).execute();

  await db.schema
    .createTable('news')
    .addColumn('id', id, pk)
    .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('slug', 'varchar(200)', (c) => c.notNull())
    .addColumn('image_url', 'varchar(500)')
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('visible_from', 'bigint')
    .addColumn('visible_to', 'bigint')
    .addColumn('published_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('news_store_slug_uq').unique().on('news').columns(['store_code', 'slug']).execute();
  await db.schema.createIndex('news_page_idx').on('news').columns(['store_code', 'published_at', 'id']).execute();
  await db.schema
    .createTable('news_translation')
    .addColumn('news_id', 'bigint', (c) => c.notNull().references('news.id').onDelete('cascade'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('title', 'varchar(300)', (c) => c.notNull())
    .addColumn('summary', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('seo_title', 'varchar(300)')
    .addColumn('seo_description', 'varchar(500)')
    .addPrimaryKeyConstraint('news_translation_pk', ['news_id', 'language'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['news_translation', 'news', 'blog_post_tag', 'blog_post', 'blog_category_name', 'blog_category']) {
    await db.schema.dropTable(table).execute();
  }
}
