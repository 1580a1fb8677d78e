import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';

// A client's wishlists (one per account and store): what the person keeps an eye on, with the
// price the shop remembers for each item (what a wishlist offer is measured against), and, as a
// part of its own (the wishlist's part keeps its shape), when each account was last mailed its
// offers. Bounded by the wishlist's own cap per account. The erasure deletes them.

async function exportWishlist(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('wishlist_item')
    .innerJoin('product', 'product.id', 'wishlist_item.product_id')
    .select([
      'wishlist_item.store_code',
      'wishlist_item.product_id',
      'product.code',
      'wishlist_item.created_at',
      'wishlist_item.offer_price_cents',
    ])
    .where('wishlist_item.client_account_id', 'in', ids)
    .orderBy('wishlist_item.created_at', 'desc')
    .execute();
  return rows.map((row) => ({
    store: row.store_code,
    productId: Number(row.product_id),
    productCode: row.code,
    addedAt: toRfc3339(Number(row.created_at)),
    rememberedPriceCents: row.offer_price_cents === null ? null : Number(row.offer_price_cents),
  }));
}

async function exportOfferMails(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return [];
  const mails = await db
    .selectFrom('wishlist_offer_mail')
    .innerJoin('client_account', 'client_account.id', 'wishlist_offer_mail.client_account_id')
    .select(['client_account.code', 'wishlist_offer_mail.queued_at'])
    .where('wishlist_offer_mail.client_account_id', 'in', ids)
    .orderBy('wishlist_offer_mail.client_account_id')
    .execute();
  return mails.map((row) => ({ clientCode: row.code, lastQueuedAt: toRfc3339(Number(row.queued_at)) }));
}

async function eraseWishlist(trx: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length > 0) await trx.deleteFrom('wishlist_item').where('client_account_id', 'in', ids).execute();
}

async function eraseOfferMails(trx: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length > 0) await trx.deleteFrom('wishlist_offer_mail').where('client_account_id', 'in', ids).execute();
}

/** The wishlist module's part of "your data". */
export const wishlistPersonalData: PersonalDataPart = { name: 'wishlist', export: exportWishlist, erase: eraseWishlist };

/** The wishlist offers' part of "your data": when each of the person's accounts was last mailed them. */
export const wishlistOfferMailPersonalData: PersonalDataPart = {
  name: 'wishlistOfferMails',
  export: exportOfferMails,
  erase: eraseOfferMails,
};
