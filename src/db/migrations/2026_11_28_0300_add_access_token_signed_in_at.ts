import type { Kysely } from 'kysely';

// When the person last proved who they are (a password, a provider, an emailed link) for this token.
// A token re-issued from another (switching store) keeps its source's time, so "signed in within
// the last minutes" (asked before erasing an account or changing the email of one without a
// password) cannot be refreshed by re-issuing an old token. Null on earlier rows: their created_at.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('access_token').addColumn('signed_in_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('access_token').dropColumn('signed_in_at').execute();
}
