import { sql, type Kysely } from 'kysely';

// A guest's back-in-stock request waits for its address to confirm it (double opt-in, as the
// newsletter's): before, anyone could make the shop mail any address. confirmed_at is set when the
// mailed link is followed (a logged-in client's request, told at its confirmed login email, is
// confirmed when made); token_hash is the SHA-256 of the link's token, set by the worker that mails
// it. Requests already there were taken as they were, so they count as confirmed when made.
//
// The scan reads only confirmed pending requests: its partial index (migration 2026_11_28_0400)
// now says so too, or on PostgreSQL and SQLite the predicate confirmed_at is not null would be a
// filter over unconfirmed rows as well. The link is looked up by its hash.

const DUE_COLUMNS = ['store_code', 'audience', 'id'];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('back_in_stock_request').addColumn('confirmed_at', 'bigint').execute();
  await db.schema.alterTable('back_in_stock_request').addColumn('token_hash', 'varchar(64)').execute();
  await db
    .updateTable('back_in_stock_request')
    .set({ confirmed_at: sql`created_at` })
    .execute();
  await db.schema.dropIndex('back_in_stock_request_due_idx').execute();
  await db.schema
    .createIndex('back_in_stock_request_due_idx')
    .on('back_in_stock_request')
    .columns(DUE_COLUMNS)
    .where(sql.raw<boolean>('notified_at is null and confirmed_at is not null'))
    .execute();
  await db.schema.createIndex('back_in_stock_request_token_idx').on('back_in_stock_request').column('token_hash').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('back_in_stock_request_token_idx').execute();
  await db.schema.dropIndex('back_in_stock_request_due_idx').execute();
  // Unconfirmed requests were never asked for by their address: the old scan would mail them.
  await db.deleteFrom('back_in_stock_request').where('confirmed_at', 'is', null).execute();
  await db.schema
    .createIndex('back_in_stock_request_due_idx')
    .on('back_in_stock_request')
    .columns(DUE_COLUMNS)
    .where(sql.raw<boolean>('notified_at is null'))
    .execute();
  await db.schema.alterTable('back_in_stock_request').dropColumn('token_hash').execute();
  await db.schema.alterTable('back_in_stock_request').dropColumn('confirmed_at').execute();
}
