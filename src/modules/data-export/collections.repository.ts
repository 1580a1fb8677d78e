import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Slice } from './collection.js';
import { applySlice } from './export-slice.repository.js';

// The reads behind four of the five export collections (products: product-export.repository.ts).
// Children (order lines, preferences, names) are read in one query per page, never per row.

export function readClientAccounts(db: Kysely<Database>, slice: Slice) {
  return applySlice(
    db
      .selectFrom('client_account')
      .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
      .select([
        'client_account.id',
        'client_account.code',
        'client_account.created_at',
        'client_account.updated_at',
        'app_user.gender',
        'app_user.birthday',
      ]),
    'client_account',
    slice,
  ).execute();
}

/** The category codes each of the accounts prefers, in the order they were chosen. */
export function readCategoryPreferences(db: Kysely<Database>, clientAccountIds: number[]) {
  return db
    .selectFrom('client_category_preference')
    .innerJoin('category', 'category.id', 'client_category_preference.category_id')
    .select(['client_category_preference.client_account_id', 'category.code'])
    .where('client_category_preference.client_account_id', 'in', clientAccountIds)
    .orderBy('client_category_preference.client_account_id')
    .orderBy('client_category_preference.created_at')
    .orderBy('category.code')
    .execute();
}

export function readSalesHistory(db: Kysely<Database>, slice: Slice) {
  return applySlice(db.selectFrom('sales_history').selectAll(), 'sales_history', slice).execute();
}

/** The product codes of the orders' lines, in line order; may hold lines of other orders too. */
export function readSalesHistoryLines(db: Kysely<Database>, orderIds: number[]) {
  let low = Infinity;
  let high = -Infinity;
  for (const id of orderIds) {
    if (id < low) low = id;
    if (id > high) high = id;
  }
  // Orders reach us in time order, so a batch's ids are nearly consecutive: one range scan of the
  // lines' primary key is cheaper than a thousand look-ups. Lines of orders outside the batch
  // (at most as many again) are read and ignored; sparse ids take the look-ups.
  const dense = high - low < 2 * orderIds.length;
  return db
    .selectFrom('sales_history_item')
    .select(['sales_history_id', 'product_code'])
    .$call((query) =>
      dense
        ? query.where('sales_history_id', '>=', low).where('sales_history_id', '<=', high)
        : query.where('sales_history_id', 'in', orderIds),
    )
    .orderBy('sales_history_id')
    .orderBy('position')
    .execute();
}

export function readSessionActions(db: Kysely<Database>, slice: Slice) {
  return applySlice(db.selectFrom('session_action').selectAll(), 'session_action', slice).execute();
}

export function readShops(db: Kysely<Database>, slice: Slice) {
  return applySlice(db.selectFrom('shop').select(['shop.id', 'shop.code', 'shop.city', 'shop.created_at']), 'shop', slice).execute();
}

export function readShopNames(db: Kysely<Database>, shopIds: number[]) {
  return db.selectFrom('shop_name').select(['shop_id', 'language', 'name']).where('shop_id', 'in', shopIds).execute();
}
