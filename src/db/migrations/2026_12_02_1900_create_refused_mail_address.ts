import type { Kysely } from 'kysely';

// Addresses whose mail server refused a mail as a mailbox that does not exist, the mail's every
// recipient so (src/infra/mail/refused-addresses.ts): marketing mails skip them until a mail to one
// is accepted. The address is the normalised email; one row per address, pruned by refused_at.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('refused_mail_address')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('refused_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refused_mail_address_refused_at_idx').on('refused_mail_address').column('refused_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('refused_mail_address').execute();
}
