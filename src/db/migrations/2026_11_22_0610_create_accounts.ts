import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // "user" is reserved in PostgreSQL.
  await db.schema
    .createTable('app_user')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('email', 'varchar(254)', (c) => c.notNull().unique())
    .addColumn('password_hash', 'varchar(255)')
    .addColumn('email_verified', 'boolean', (c) => c.notNull())
    .addColumn('activated_at', 'bigint')
    .addColumn('verification_token_hash', 'varchar(64)')
    .addColumn('verification_expires_at', 'bigint')
    .addColumn('verification_client_account_id', 'bigint')
    .addColumn('reset_token_hash', 'varchar(64)')
    .addColumn('reset_expires_at', 'bigint')
    .addColumn('first_name', 'varchar(100)')
    .addColumn('last_name', 'varchar(100)')
    .addColumn('phone', 'varchar(30)')
    .addColumn('birthday', 'varchar(10)')
    .addColumn('gender', 'varchar(16)')
    .addColumn('newsletter', 'boolean', (c) => c.notNull())
    .addColumn('terms_accepted_at', 'bigint')
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('app_user_verification_token_idx').on('app_user').column('verification_token_hash').execute();
  await db.schema.createIndex('app_user_reset_token_idx').on('app_user').column('reset_token_hash').execute();
  await db.schema.createIndex('app_user_created_at_idx').on('app_user').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('company')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('registry_code', 'varchar(40)', (c) => c.notNull())
    .addColumn('vat_number', 'varchar(40)')
    .addColumn('street', 'varchar(200)', (c) => c.notNull())
    .addColumn('city', 'varchar(100)', (c) => c.notNull())
    .addColumn('postcode', 'varchar(20)', (c) => c.notNull())
    .addColumn('country_code', 'varchar(2)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('company_registry_code_idx').on('company').column('registry_code').execute();

  await db.schema
    .createTable('client_account')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('code', 'varchar(20)', (c) => c.notNull().unique())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('app_user.id').onDelete('cascade'))
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('company_id', 'bigint', (c) => c.references('company.id'))
    .addColumn('role', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('client_account_user_store_type_uq', ['user_id', 'store_code', 'type'])
    .execute();
  await db.schema.createIndex('client_account_created_at_idx').on('client_account').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('wholesale_request')
    .addColumn('id', idType(db), idColumn(db))
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull().references('web_store.code'))
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('company_name', 'varchar(200)', (c) => c.notNull())
    .addColumn('form', 'text', (c) => c.notNull())
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('client_account_id', 'bigint', (c) => c.references('client_account.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('decided_at', 'bigint')
    .execute();
  await db.schema.createIndex('wholesale_request_status_idx').on('wholesale_request').columns(['status', 'id']).execute();

  await db.schema
    .createTable('access_token')
    .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('app_user.id').onDelete('cascade'))
    .addColumn('client_account_id', 'bigint', (c) => c.notNull().references('client_account.id').onDelete('cascade'))
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull())
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('access_token_user_idx').on('access_token').column('user_id').execute();
  await db.schema.createIndex('access_token_expires_idx').on('access_token').column('expires_at').execute();

  // Fixed-window counters shared by every API process (the limits must hold across processes).
  await db.schema
    .createTable('rate_limit')
    .addColumn('key', 'varchar(200)', (c) => c.primaryKey())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['rate_limit', 'access_token', 'wholesale_request', 'client_account', 'company', 'app_user']) {
    await db.schema.dropTable(table).execute();
  }
}
