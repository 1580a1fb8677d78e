import { sql } from 'kysely';
import { lockLiveClientAccount } from '../client-account-lock/index.js';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';

// All of the wishlist's SQL. A list is read through wishlist_item_list_idx, newest first; which
// items the caller sees is the catalogue's visibility rule on its bases (wishlist.service.ts).

export interface WishlistOwner {
  clientAccountId: number;
  storeCode: string;
}

export interface WishlistPageRow {
  product_id: number;
  created_at: number;
}

/** Every item of the owner, newest first: product and time added. */
export type WishlistItemsReader = (owner: WishlistOwner) => Promise<WishlistPageRow[]>;

/**
 * The items reader, compiled once. It reads wishlist_item_list_idx alone (the index holds the
 * product id): which of the products the caller may see is the catalogue's to say, from its
 * bases (wishlist.service.ts), so no product or assortment row is read here. A list is capped
 * (MAX_WISHLIST_ITEMS), so reading it whole stays a few hundred short rows.
 */
export function wishlistItemsReader(handle: DatabaseHandle): WishlistItemsReader {
  return handle.engine === 'sqlite' ? itemsAsOneValue(handle) : itemsAsRows(handle);
}

function itemsAsRows(handle: DatabaseHandle): WishlistItemsReader {
  const items = preparedQuery(handle, (db, clientAccountId: number, storeCode: string) =>
    db
      .selectFrom('wishlist_item as w')
      .select(['w.product_id', 'w.created_at'])
      .where('w.client_account_id', '=', clientAccountId)
      .where('w.store_code', '=', storeCode)
      .orderBy('w.created_at', 'desc')
      .orderBy('w.id', 'desc'),
  );
  return async (owner) =>
    (await items(owner.clientAccountId, owner.storeCode)).map((row) => ({
      product_id: Number(row.product_id),
      created_at: Number(row.created_at),
    }));
}

/**
 * On SQLite the same items as one JSON value: better-sqlite3 builds a JavaScript object per row
 * through the engine's API, which cost half of the read (52 µs for 50 items, against 26 µs as
 * one value and JSON.parse). An aggregate's input order is not promised, so the order is the sort
 * here (an already ordered list is one pass).
 */
function itemsAsOneValue(handle: DatabaseHandle): WishlistItemsReader {
  const items = preparedQuery(handle, (db, clientAccountId: number, storeCode: string) =>
    db
      .selectFrom('wishlist_item as w')
      .select(sql<string>`json_group_array(json_array(w.product_id, w.created_at, w.id))`.as('items'))
      .where('w.client_account_id', '=', clientAccountId)
      .where('w.store_code', '=', storeCode),
  );
  return async (owner) => {
    const [row] = await items(owner.clientAccountId, owner.storeCode);
    const list = JSON.parse(row?.items ?? '[]') as Array<[productId: number, createdAt: number, id: number]>;
    list.sort((a, b) => b[1] - a[1] || b[2] - a[2]);
    return list.map(([productId, createdAt]) => ({ product_id: productId, created_at: createdAt }));
  };
}

/**
 * Serialises the client's wishlist writes (the cap check) by the client account's lock, which
 * refuses an account erased meanwhile (401).
 */
export async function lockOwner(trx: Db, owner: WishlistOwner): Promise<void> {
  await lockLiveClientAccount(trx, owner.clientAccountId);
}

/** Adds the product at the client's price now (cents) unless it is there already; true when a row was added. */
export async function insertItem(trx: Db, owner: WishlistOwner, productId: number, priceCents: number, now: number): Promise<boolean> {
  const inserted = await trx
    .insertInto('wishlist_item')
    .values({
      client_account_id: owner.clientAccountId,
      store_code: owner.storeCode,
      product_id: productId,
      created_at: now,
      offer_price_cents: priceCents,
    })
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

/** Removes the products from the list (a full list's hidden rows, to make room). */
export async function deleteItems(trx: Db, owner: WishlistOwner, productIds: readonly number[]): Promise<void> {
  if (productIds.length === 0) return;
  await trx
    .deleteFrom('wishlist_item')
    .where('client_account_id', '=', owner.clientAccountId)
    .where('store_code', '=', owner.storeCode)
    .where('product_id', 'in', productIds)
    .execute();
}

// --- wishlist offers (wishlist.jobs.ts) ---------------------------------------------------------

export interface OfferItem {
  productId: number;
  /** The remembered price, cents; null until the first scan on rows from before wishlist offers. */
  rememberedCents: number | null;
}

/** Every item of the owner with its remembered price (wishlist_item_list_idx finds them; a list is capped). */
export async function offerItems(db: Db, owner: WishlistOwner): Promise<OfferItem[]> {
  const rows = await db
    .selectFrom('wishlist_item')
    .select(['product_id', 'offer_price_cents'])
    .where('client_account_id', '=', owner.clientAccountId)
    .where('store_code', '=', owner.storeCode)
    .execute();
  return rows.map((row) => ({
    productId: Number(row.product_id),
    rememberedCents: row.offer_price_cents === null ? null : Number(row.offer_price_cents),
  }));
}

/**
 * Remembers each item's price: `higher` only where the item has none yet or a lower one (a scan
 * raises, never lowers); `told` whatever it was (an offer mail's lower price).
 */
export async function rememberPrices(
  trx: Db,
  owner: WishlistOwner,
  which: 'higher' | 'told',
  prices: ReadonlyArray<{ productId: number; cents: number }>,
): Promise<void> {
  for (const { productId, cents } of prices) {
    let update = trx
      .updateTable('wishlist_item')
      .set({ offer_price_cents: cents })
      .where('client_account_id', '=', owner.clientAccountId)
      .where('store_code', '=', owner.storeCode)
      .where('product_id', '=', productId);
    if (which === 'higher')
      update = update.where((eb) => eb.or([eb('offer_price_cents', 'is', null), eb('offer_price_cents', '<', cents)]));
    await update.execute();
  }
}

/** When the client's last offer mail was queued; undefined if never. */
export async function lastOfferMailAt(db: Db, clientAccountId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('wishlist_offer_mail')
    .select('queued_at')
    .where('client_account_id', '=', clientAccountId)
    .executeTakeFirst();
  return row ? Number(row.queued_at) : undefined;
}

/**
 * Claims the client's next offer mail: true when no mail was queued within `intervalMs` before `now`
 * and this call recorded one at `now`. One conditional upsert, so of two scans racing one claims
 * (PostgreSQL's second insert waits for the first's commit and then finds the row too recent).
 */
export async function claimOfferMail(trx: Db, clientAccountId: number, now: number, intervalMs: number): Promise<boolean> {
  const claimed = await trx
    .insertInto('wishlist_offer_mail')
    .values({ client_account_id: clientAccountId, queued_at: now })
    .onConflict((conflict) =>
      conflict
        .column('client_account_id')
        .doUpdateSet({ queued_at: now })
        .where('wishlist_offer_mail.queued_at', '<=', now - intervalMs),
    )
    .returning('client_account_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** The products' names now, by id (a product deleted since has none). */
export async function productNames(db: Db, productIds: readonly number[]): Promise<Map<number, string>> {
  if (productIds.length === 0) return new Map();
  const rows = await db.selectFrom('product').select(['id', 'name']).where('id', 'in', productIds).execute();
  return new Map(rows.map((row) => [Number(row.id), row.name]));
}
