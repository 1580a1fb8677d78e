import type { Kysely } from 'kysely';

// The last moment of the receiver's key to an order's gift downloads (order_gift_download), written by the order
// mail that hands the key out (GIFT_DOWNLOAD_TTL after the processing, to the end of the shop's day), so that the
// receiver's "your data" says until when it works without knowing the configuration. Null until that mail was made
// (and for the rows of orders mailed before this column).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('order_gift_download').addColumn('expires_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('order_gift_download').dropColumn('expires_at').execute();
}
