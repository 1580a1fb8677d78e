import type { Kysely } from 'kysely';

// The names a company master gave when inviting someone who already had a user here (modules/companies).
// Until that person accepts, the company sees these, not the names the person keeps on their user:
// an invitation must not show a master the real name behind an email address they typed. Gone with
// the account (cascade), and when the person's data is erased.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('company_invitation')
    .addColumn('client_account_id', 'bigint', (c) => c.primaryKey().references('client_account.id').onDelete('cascade'))
    .addColumn('first_name', 'varchar(100)', (c) => c.notNull())
    .addColumn('last_name', 'varchar(100)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('company_invitation').execute();
}
