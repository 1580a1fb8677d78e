import type { Kysely } from 'kysely';
import { idColumn, idType } from '../migration-helpers.js';

// The customer's own data beyond the login (modules/profile): the history of marketing consents,
// a pending change of the login email, saved addresses and notification preferences. The profile
// fields themselves (names, phone, gender, birthday, language) stay on app_user, where
// registration writes them and the data export reads them.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idType(db);
  const pk = idColumn(db);

  // One row per change: given (granted) or withdrawn, when, and through what.
  await db.schema
    .createTable('marketing_consent_event')
    .addColumn('id', id, pk)
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('app_user.id').onDelete('cascade'))
    // EMAIL, SMS or PERSONALISATION.
    .addColumn('consent', 'varchar(24)', (c) => c.notNull())
    .addColumn('granted', 'boolean', (c) => c.notNull())
    // PROFILE (the client's own change); later ones may add theirs.
    .addColumn('source', 'varchar(24)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('marketing_consent_event_user_idx')
    .on('marketing_consent_event')
    .columns(['user_id', 'consent', 'id'])
    .execute();

  // At most one pending change per user; the token (its SHA-256) is minted when the mail is sent.
  await db.schema
    .createTable('email_change')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('app_user.id').onDelete('cascade'))
    .addColumn('new_email', 'varchar(254)', (c) => c.notNull())
    .addColumn('token_hash', 'varchar(64)', (c) => c.unique())
    .addColumn('expires_at', 'bigint')
    .addColumn('requested_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('client_address')
    .addColumn('id', id, pk)
    .addColumn('client_account_id', 'bigint', (c) => c.notNull().references('client_account.id').onDelete('cascade'))
    // SHIPPING or BILLING.
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('phone', 'varchar(40)', (c) => c.notNull())
    .addColumn('address', 'varchar(300)', (c) => c.notNull())
    .addColumn('city', 'varchar(100)', (c) => c.notNull())
    .addColumn('postcode', 'varchar(20)', (c) => c.notNull())
    .addColumn('country_code', 'varchar(2)', (c) => c.notNull().references('country.code'))
    // The kind while this is the default address of its kind, else null: the unique index below
    // allows one default per kind and client on both engines (nulls are distinct), no partial index needed.
    .addColumn('default_for', 'varchar(16)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('client_address_client_idx').on('client_address').columns(['client_account_id', 'id']).execute();
  await db.schema
    .createIndex('client_address_default_idx')
    .on('client_address')
    .columns(['client_account_id', 'default_for'])
    .unique()
    .execute();

  // Notification preferences of a client account; no row: the defaults (profile.service.ts).
  await db.schema
    .createTable('client_preference')
    .addColumn('client_account_id', 'bigint', (c) => c.primaryKey().references('client_account.id').onDelete('cascade'))
    .addColumn('newsletter_language', 'varchar(8)', (c) => c.notNull())
    .addColumn('email_channel', 'boolean', (c) => c.notNull())
    .addColumn('sms_channel', 'boolean', (c) => c.notNull())
    .addColumn('order_updates', 'boolean', (c) => c.notNull())
    .addColumn('back_in_stock', 'boolean', (c) => c.notNull())
    .addColumn('wishlist_offers', 'boolean', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('client_preference').execute();
  await db.schema.dropTable('client_address').execute();
  await db.schema.dropTable('email_change').execute();
  await db.schema.dropTable('marketing_consent_event').execute();
}
