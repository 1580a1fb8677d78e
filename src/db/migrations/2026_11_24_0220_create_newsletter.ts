import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// Newsletter subscriptions with double opt-in. A request is what `POST /newsletter/subscribe`
// leaves: nobody is subscribed by it; the worker mints the confirmation token (only its hash is
// kept) when it mails the link. A subscriber row appears when the link is followed and keeps the
// consent (and a later withdrawal) with its time, store, language and source.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('newsletter_request')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('store_code', 'varchar(10)', (c) => c.notNull())
    .addColumn('language', 'varchar(2)', (c) => c.notNull())
    .addColumn('source', 'varchar(40)', (c) => c.notNull())
    // Null until the worker mails the link (and when it sent none: the address was subscribed).
    .addColumn('token_hash', 'varchar(64)', (c) => c.unique())
    .addColumn('expires_at', 'bigint')
    .addColumn('confirmed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('newsletter_request_created_at').on('newsletter_request').column('created_at').execute();

  await db.schema
    .createTable('newsletter_subscriber')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('store_code', 'varchar(10)', (c) => c.notNull())
    .addColumn('language', 'varchar(2)', (c) => c.notNull())
    .addColumn('source', 'varchar(40)', (c) => c.notNull())
    .addColumn('consented_at', 'bigint', (c) => c.notNull())
    // Null while subscribed: the export lists only these.
    .addColumn('withdrawn_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('newsletter_subscriber_email_store', ['email', 'store_code'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('newsletter_subscriber').execute();
  await db.schema.dropTable('newsletter_request').execute();
}
