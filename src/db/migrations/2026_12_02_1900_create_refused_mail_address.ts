import type { Kysely } from 'kysely';

// Addresses whose mail server said, for every mail sent to them, that the mailbox does not exist
// (src/infra/mail/refused-addresses.ts): marketing mails skip them until a mail to one is accepted.
// The address is the normalised email (as app_user.email); one row per address.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('refused_mail_address')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('refused_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('refused_mail_address').execute();
}
