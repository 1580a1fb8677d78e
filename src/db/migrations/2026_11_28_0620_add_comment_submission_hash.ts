import type { Kysely } from 'kysely';

// POST /product/{id}/comments sent twice (a double click, a retry after a timeout) made two
// comments. Each new comment keeps a hash of what was submitted (product, trimmed text, rating), so
// a repeat from the same client within a few minutes finds the first one: one seek of
// product_comment_submission_idx (client, hash, created_at). Earlier rows have no hash; none of
// them is within the window. The index replaces product_comment_client_idx, whose one column it
// starts with (the data export, the erasure and the client account's cascade read by it).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('product_comment').addColumn('submission_hash', 'varchar(64)').execute();
  await db.schema
    .createIndex('product_comment_submission_idx')
    .on('product_comment')
    .columns(['client_account_id', 'submission_hash', 'created_at'])
    .execute();
  await db.schema.dropIndex('product_comment_client_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('product_comment_client_idx').on('product_comment').column('client_account_id').execute();
  await db.schema.dropIndex('product_comment_submission_idx').execute();
  await db.schema.alterTable('product_comment').dropColumn('submission_hash').execute();
}
