import type { Kysely } from 'kysely';

// A one-time link followed twice (a double click, a mail client that sends the form again, two at
// once) got a 400 for the second time: the token was cleared by the first. A spent link is kept
// here, by its token's hash, until the token would have expired, so the repeat is told from a link
// that never worked and answers as the first did, without doing its work again
// (modules/accounts/spent-links.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('spent_link')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    // verification, password-reset, email-change: a hash is looked up only as the link it was.
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('app_user.id').onDelete('cascade'))
    // The account a verification link activated (null for the other kinds).
    .addColumn('client_account_id', 'bigint')
    .addColumn('spent_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('spent_link_expires_idx').on('spent_link').column('expires_at').execute();
  await db.schema.createIndex('spent_link_user_idx').on('spent_link').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('spent_link').execute();
}
