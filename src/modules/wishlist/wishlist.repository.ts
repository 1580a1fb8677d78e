import { PostgresAdapter, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { visibleProduct, type Caller } from '../catalogue/index.js';

// All of the wishlist's SQL. A page is read through wishlist_item_page_idx, newest first, with the
// catalogue's one visibility rule in SQL, so a hidden product is neither on a page nor counted.

export interface WishlistOwner {
  clientAccountId: number;
  storeCode: string;
}

export interface WishlistPageRow {
  product_id: number;
  created_at: number;
}

/** One page of the visible items, newest first, and how many visible items there are in all. */
export async function wishlistPage(
  db: Db,
  owner: WishlistOwner,
  caller: Caller,
  slice: { offset: number; perPage: number },
): Promise<{ rows: WishlistPageRow[]; total: number }> {
  const visible = visibleProduct(owner.storeCode, caller);
  const base = db
    .selectFrom('wishlist_item as w')
    .innerJoin('product as p', 'p.id', 'w.product_id')
    .where('w.client_account_id', '=', owner.clientAccountId)
    .where('w.store_code', '=', owner.storeCode)
    .where(visible);
  const [rows, count] = await Promise.all([
    base
      .select(['w.product_id', 'w.created_at'])
      .orderBy('w.created_at', 'desc')
      .orderBy('w.id', 'desc')
      .limit(slice.perPage)
      .offset(slice.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((row) => ({ product_id: Number(row.product_id), created_at: Number(row.created_at) })),
    total: Number(count.total),
  };
}

/**
 * Serialises the client's wishlist writes (the cap check) on PostgreSQL by locking the account's
 * row; SQLite runs one write transaction at a time anyway.
 */
export async function lockOwner(trx: Db, owner: WishlistOwner): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return;
  await trx.selectFrom('client_account').select('id').where('id', '=', owner.clientAccountId).forUpdate().execute();
}

/** Adds the product unless it is there already; true when a row was added. */
export async function insertItem(trx: Db, owner: WishlistOwner, productId: number, now: number): Promise<boolean> {
  const inserted = await trx
    .insertInto('wishlist_item')
    .values({ client_account_id: owner.clientAccountId, store_code: owner.storeCode, product_id: productId, created_at: now })
    .onConflict((conflict) => conflict.columns(['client_account_id', 'store_code', 'product_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Every item of the client in the store, hidden products too: what the cap counts. */
export async function countItems(trx: Db, owner: WishlistOwner): Promise<number> {
  const row = await trx
    .selectFrom('wishlist_item')
    .select(sql<number>`count(*)`.as('total'))
    .where('client_account_id', '=', owner.clientAccountId)
    .where('store_code', '=', owner.storeCode)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

export async function itemAddedAt(db: Db, owner: WishlistOwner, productId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('wishlist_item')
    .select('created_at')
    .where('client_account_id', '=', owner.clientAccountId)
    .where('store_code', '=', owner.storeCode)
    .where('product_id', '=', productId)
    .executeTakeFirst();
  return row ? Number(row.created_at) : undefined;
}

export async function deleteItem(db: Db, owner: WishlistOwner, productId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('wishlist_item')
    .where('client_account_id', '=', owner.clientAccountId)
    .where('store_code', '=', owner.storeCode)
    .where('product_id', '=', productId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
