import type { Kysely } from 'kysely';

// The last `sitemap generate` of each store and section: how many URLs it wrote, the files the
// sitemap index lists for it, and its error if it failed (then the index keeps the files before).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sitemap_section')
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull())
    .addColumn('section', 'varchar(40)', (c) => c.notNull())
    .addColumn('generated_at', 'bigint', (c) => c.notNull())
    .addColumn('urls', 'integer', (c) => c.notNull())
    // JSON array of the file names the index lists, e.g. ["products-1.xml","products-2.xml"].
    .addColumn('files', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('sitemap_section_pk', ['store_code', 'section'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sitemap_section').execute();
}
