import { PostgresAdapter, sql, type Kysely } from 'kysely';

// The data export's /client-account takes updatedFrom and updatedTo: client_account.updated_at is
// when the account's export item (the person's gender and birthday, the categories followed) last
// changed, moved by every write of them (accounts' touchExportedAccounts), and indexed with the id
// for the export's order. Rows there already get the newest time known of them: their user's
// updated_at (a profile edit, an erasure; other user writes too, which at worst has an unchanged
// account read once more) or their newest followed category, at least their creation.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('client_account')
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  const greatest = db.getExecutor().adapter instanceof PostgresAdapter ? sql.raw('greatest') : sql.raw('max');
  await sql`update client_account set updated_at = ${greatest}(
      created_at,
      coalesce((select app_user.updated_at from app_user where app_user.id = client_account.user_id), 0),
      coalesce((select max(p.created_at) from client_category_preference p where p.client_account_id = client_account.id), 0)
    )`.execute(db);
  await db.schema.createIndex('client_account_updated_idx').on('client_account').columns(['updated_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('client_account_updated_idx').execute();
  await db.schema.alterTable('client_account').dropColumn('updated_at').execute();
}
