import type { Kysely } from 'kysely';

// Issue 12: the web flow is bound to the browser that started it, a link made in the web flow waits
// for the user's confirmation, and an ID token an app signs in with is accepted once.
export async function up(db: Kysely<any>): Promise<void> {
  // SHA-256 of the nonce in the HttpOnly cookie set when the flow started; null only for flows
  // started before this migration, which the callback then refuses.
  await db.schema.alterTable('oauth_transaction').addColumn('browser_hash', 'varchar(64)').execute();
  // Apple's cross-site form POST carries no SameSite=Lax cookie: its form waits here while the
  // browser is sent back to the callback with a GET, which does carry the cookie.
  await db.schema.alterTable('oauth_transaction').addColumn('callback_form', 'text').execute();
  // Set on the record of a web link flow: only this user may confirm the link, and it never logs in.
  await db.schema.alterTable('auth_record').addColumn('link_user_id', 'bigint').execute();

  await db.schema
    .createTable('used_id_token')
    // SHA-256 of provider, ':' and the token's jti (or of its signed part when it has none).
    .addColumn('token_key', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('used_id_token_expires_idx').on('used_id_token').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('used_id_token').execute();
  await db.schema.alterTable('auth_record').dropColumn('link_user_id').execute();
  await db.schema.alterTable('oauth_transaction').dropColumn('callback_form').execute();
  await db.schema.alterTable('oauth_transaction').dropColumn('browser_hash').execute();
}
