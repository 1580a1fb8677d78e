import type { Kysely } from 'kysely';

// The two web stores are part of the contract (store codes WEB and WEB2), so they are reference
// data created with the table; operators change their settings with `storefront store ...`.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('web_store')
    .addColumn('code', 'varchar(16)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('is_locked', 'boolean', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('available_languages', 'varchar(100)', (c) => c.notNull())
    .addColumn('default_language', 'varchar(8)', (c) => c.notNull())
    .addColumn('frontend_url', 'varchar(500)', (c) => c.notNull())
    .addColumn('currency', 'varchar(3)', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  const now = Date.now();
  await db
    .insertInto('web_store')
    .values(
      [
        { code: 'WEB', name: 'Main store', frontend_url: 'http://localhost:5173' },
        { code: 'WEB2', name: 'Outlet', frontend_url: 'http://localhost:5174' },
      ].map((store) => ({
        ...store,
        is_active: true,
        is_locked: false,
        locked_until: null,
        available_languages: 'et,en,ru',
        default_language: 'et',
        currency: 'EUR',
        updated_at: now,
      })),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('web_store').execute();
}
