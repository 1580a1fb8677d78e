import type { Kysely } from 'kysely';

// The store's own contact data for the contact page (the office, not a shop: shops are the
// catalogue's), and where contact-form messages go. One row per web store, created with the table
// like the stores themselves; operators fill it with `storefront contact set`.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('store_contact')
    .addColumn('store_code', 'varchar(16)', (c) => c.primaryKey().references('web_store.code'))
    .addColumn('company_name', 'varchar(200)')
    // Where POST /contact messages are mailed; without it they go to BACKOFFICE_EMAILS.
    .addColumn('email', 'varchar(254)')
    .addColumn('phone', 'varchar(50)')
    .addColumn('address', 'varchar(500)')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  const now = Date.now();
  await db
    .insertInto('store_contact')
    .values(
      ['WEB', 'WEB2'].map((code) => ({ store_code: code, company_name: null, email: null, phone: null, address: null, updated_at: now })),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('store_contact').execute();
}
