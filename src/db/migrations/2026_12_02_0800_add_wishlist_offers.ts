import type { Kysely } from 'kysely';

// Wishlist offers (modules/wishlist, wishlist.jobs.ts): the worker's scan mails a client who chose
// them when a product on their wishlist costs them less than the price the shop remembers for it.
//
// - wishlist_item.offer_price_cents: the price remembered for the item, the client's price when it
//   was added; a scan that finds it higher raises it, a mail that tells of a lower one lowers it to
//   the price told. Null on rows from before: the first scan gives them one, and mails nothing.
// - wishlist_offer_mail: when the client's last offer mail was queued (one row per client account),
//   for the interval between two mails; claimed by a conditional upsert, so racing scans queue one.
// - client_preference_wishlist_offers_idx: the scan walks the clients who turned the mails on in
//   client account order, a page at a time, from this index alone (no row of the others is read).
//   Everything else it reads goes by a key: the account, its user and unconfirmed_login_email by
//   their primary keys, the items by wishlist_item_list_idx, the mail row by its primary key.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('wishlist_item').addColumn('offer_price_cents', 'bigint').execute();
  await db.schema
    .createTable('wishlist_offer_mail')
    .addColumn('client_account_id', 'bigint', (c) => c.primaryKey().references('client_account.id').onDelete('cascade'))
    .addColumn('queued_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('client_preference_wishlist_offers_idx')
    .on('client_preference')
    .columns(['wishlist_offers', 'client_account_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('client_preference_wishlist_offers_idx').execute();
  await db.schema.dropTable('wishlist_offer_mail').execute();
  await db.schema.alterTable('wishlist_item').dropColumn('offer_price_cents').execute();
}
