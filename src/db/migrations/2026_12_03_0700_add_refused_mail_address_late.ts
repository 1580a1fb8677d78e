import type { Kysely } from 'kysely';

// Whether the address was kept as refused by a late bounce (`mail bounce`): the server that took a
// mail to it is a relay that takes nearly every mail, so its taking the next one says nothing about
// the mailbox, and such a row is not taken off by it (src/infra/mail/refused-addresses.ts).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('refused_mail_address')
    .addColumn('late_bounce', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('refused_mail_address').dropColumn('late_bounce').execute();
}
