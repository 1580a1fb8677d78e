import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // The redirect flow's state lives here, not in a cookie, so Apple's cross-site form POST back works.
  await db.schema
    .createTable('oauth_transaction')
    .addColumn('state_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(16)', (c) => c.notNull())
    .addColumn('code_verifier', 'varchar(128)', (c) => c.notNull())
    .addColumn('nonce', 'varchar(128)', (c) => c.notNull())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull())
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('return_url', 'varchar(1000)')
    .addColumn('link_user_id', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('social_identity')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('provider', 'varchar(16)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('app_user.id').onDelete('cascade'))
    .addColumn('email', 'varchar(254)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('social_identity_provider_subject_uq', ['provider', 'subject'])
    .execute();
  await db.schema.createIndex('social_identity_user_idx').on('social_identity').column('user_id').execute();

  await db.schema
    .createTable('auth_record')
    .addColumn('id_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(16)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('email', 'varchar(254)')
    .addColumn('email_verified', 'boolean', (c) => c.notNull())
    .addColumn('first_name', 'varchar(100)')
    .addColumn('last_name', 'varchar(100)')
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull())
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('auth_record_expires_idx').on('auth_record').column('expires_at').execute();
  await db.schema.createIndex('oauth_transaction_expires_idx').on('oauth_transaction').column('expires_at').execute();

  // How each session was opened, e.g. `password` or `google`, and whether from the app's native form.
  await db.schema.alterTable('access_token').addColumn('login_method', 'varchar(16)').execute();
  await db.schema.alterTable('access_token').addColumn('native_form', 'boolean').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('access_token').dropColumn('native_form').execute();
  await db.schema.alterTable('access_token').dropColumn('login_method').execute();
  for (const table of ['auth_record', 'social_identity', 'oauth_transaction']) await db.schema.dropTable(table).execute();
}
