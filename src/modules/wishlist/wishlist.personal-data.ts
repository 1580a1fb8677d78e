import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';

// A client's wishlists (one per account and store): what the person keeps an eye on. Bounded by
// the wishlist's own cap per account. The erasure deletes them.

async function exportWishlist(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('wishlist_item')
    .innerJoin('product', 'product.id', 'wishlist_item.product_id')
    .select(['wishlist_item.store_code', 'wishlist_item.product_id', 'product.code', 'wishlist_item.created_at'])
    .where('wishlist_item.client_account_id', 'in', ids)
    .orderBy('wishlist_item.created_at', 'desc')
    .execute();
  return rows.map((row) => ({
    store: row.store_code,
    productId: Number(row.product_id),
    productCode: row.code,
    addedAt: toRfc3339(Number(row.created_at)),
  }));
}

async function eraseWishlist(trx: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length > 0) await trx.deleteFrom('wishlist_item').where('client_account_id', 'in', ids).execute();
}

/** The wishlist module's part of "your data". */
export const wishlistPersonalData: PersonalDataPart = { name: 'wishlist', export: exportWishlist, erase: eraseWishlist };
