import type { Kysely } from 'kysely';

// A business or wholesale account named after someone's email by a registration form is usable
// only once that person confirmed it by mail (and, where the store wants it, the back office
// approved it). Accounts that exist already keep working: they start ACTIVE.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('client_account')
    .addColumn('status', 'varchar(24)', (c) => c.notNull().defaultTo('ACTIVE'))
    .execute();
  await db.schema.createIndex('client_account_status_idx').on('client_account').columns(['status', 'type']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('client_account_status_idx').execute();
  await db.schema.alterTable('client_account').dropColumn('status').execute();
}
