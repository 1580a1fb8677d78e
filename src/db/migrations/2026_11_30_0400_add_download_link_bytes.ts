import type { Kysely } from 'kysely';

// A download link serves at most DOWNLOAD_LINK_BUDGET times its file's size in bytes: each request adds
// what it sends to bytes_served, in one conditional update. Before, a link counted its download at the
// first request and then served anyone it was shared with until it expired. Rows already there (links
// of the last few minutes) start from 0.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('download_link_use')
    .addColumn('bytes_served', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('download_link_use').dropColumn('bytes_served').execute();
}
