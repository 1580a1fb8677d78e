import type { Kysely } from 'kysely';

// A person's wholesale applications are found by their email or by the account one was approved into
// (the export and the erasure, accounts.personal-data.ts): the account's side needs its own index, or
// the two-sided look-up reads the whole table.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('wholesale_request_client_account_idx').on('wholesale_request').column('client_account_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('wholesale_request_client_account_idx').execute();
}
