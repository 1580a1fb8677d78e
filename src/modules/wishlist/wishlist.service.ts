import type { Db } from '../../db/database.js';
import { InvalidInputError, invalidField, notFound, unauthenticated } from '../../infra/domain-error.js';
import type { Catalogue, CatalogueContext, ProductCard } from '../catalogue/index.js';
import {
  countItems,
  deleteItem,
  deleteItems,
  insertItem,
  itemAddedAt,
  lockOwner,
  type WishlistItemsReader,
  type WishlistOwner,
} from './wishlist.repository.js';

// The wishlist's rules. Cards come from the catalogue (its cached bases, its visibility rule and
// pricing's price for the caller), so an item shows exactly what the catalogue shows. A product
// the caller may no longer see drops out of the list and its count; its row stays, so it comes
// back if the product does, until the list is full: a full list makes room by dropping such rows.

/**
 * How many products one client's wishlist in one store may hold. Rows of products hidden from the
 * client count too (every row is read to page the list), but give way to a new product: the client
 * sees only the visible ones, and could neither see nor remove the rows that made the list full.
 */
export const MAX_WISHLIST_ITEMS = 500;

export interface WishlistItem {
  addedAt: number;
  product: ProductCard;
}

/** A card's price (euros, the caller's) in cents, as the wishlist remembers it. */
export const priceCents = (card: Pick<ProductCard, 'price'>): number => Math.round(card.price * 100);

/** The logged-in client's wishlist in the request's store; a guest has none (401). */
export function wishlistOwner(context: CatalogueContext): WishlistOwner {
  const clientAccountId = context.caller.clientAccountId;
  if (clientAccountId === null) throw unauthenticated('wishlist.loginRequired');
  return { clientAccountId, storeCode: context.store.code };
}

/** An item of a page of the list: when it was added, and its card as JSON text (ProductCardSchema). */
export interface WishlistPageItem {
  addedAt: number;
  cardText: Buffer;
}

/**
 * One page of the visible items, newest first, and how many there are in all. Which items the
 * caller sees comes from the catalogue's bases, as the cards themselves do, so the count and the
 * page agree with each other and with the cards (the same rule on the same facts).
 */
export async function wishlistItems(
  readItems: WishlistItemsReader,
  catalogue: Catalogue,
  context: CatalogueContext,
  slice: { offset: number; perPage: number },
): Promise<{ items: WishlistPageItem[]; total: number }> {
  const all = await readItems(wishlistOwner(context));
  const addedAt = new Map(all.map((row) => [row.product_id, row.created_at]));
  const { total, cards } = await catalogue.visibleCardTexts(
    context,
    all.map((row) => row.product_id),
    slice,
  );
  return { items: cards.map((card) => ({ addedAt: addedAt.get(card.id)!, cardText: card.text })), total };
}

/** The product's card for the caller; an unknown product or one hidden from the caller is a 404. Read before the write's transaction. */
export async function wishlistProduct(catalogue: Catalogue, context: CatalogueContext, productId: number): Promise<ProductCard> {
  wishlistOwner(context);
  const [product] = await catalogue.cards(context, [productId]);
  if (!product) throw notFound('wishlist.unknownProduct', { id: productId });
  return product;
}

/** Whether an error is addToWishlist's refusal of a full list. */
export const isWishlistFull = (error: unknown): boolean =>
  error instanceof InvalidInputError && error.fields.some((field) => field.messageKey === 'wishlist.full');

/**
 * The products on the list that the caller may no longer see, the longest on it first: what a full
 * list gives up to take a new product (addToWishlist). Read outside the write's transaction, as the
 * catalogue reads (one connection on SQLite); read only once a list was found full, and from the
 * database rather than the catalogue's cache, which may still hold a product shown again as hidden.
 */
export async function hiddenItems(readItems: WishlistItemsReader, catalogue: Catalogue, context: CatalogueContext): Promise<number[]> {
  const all = await readItems(wishlistOwner(context));
  const ids = all.map((row) => row.product_id);
  const shown = new Set(await catalogue.visibleIdsNow(context, ids));
  return ids.filter((id) => !shown.has(id)).reverse();
}

/**
 * Adds the product (its card from wishlistProduct); adding it again changes nothing (`created:
 * false`, the time it was first added). The item remembers the card's price, the caller's now:
 * what a wishlist offer is measured against (wishlist.jobs.ts). Past the cap, the rows of `hidden`
 * (hiddenItems: products the caller may not see, oldest first) go, as many as it takes; a list full
 * of products the caller sees is a 422 on productId.
 */
export async function addToWishlist(
  trx: Db,
  context: CatalogueContext,
  product: Pick<ProductCard, 'id' | 'price'>,
  hidden: readonly number[] = [],
): Promise<{ created: boolean; addedAt: number }> {
  const owner = wishlistOwner(context);
  const productId = product.id;
  await lockOwner(trx, owner);
  const created = await insertItem(trx, owner, productId, priceCents(product), context.now);
  // Counted after the insert, under the lock: the transaction rolls back past the cap.
  if (created) {
    let count = await countItems(trx, owner);
    if (count > MAX_WISHLIST_ITEMS && hidden.length > 0) {
      await deleteItems(trx, owner, hidden.filter((id) => id !== productId).slice(0, count - MAX_WISHLIST_ITEMS));
      count = await countItems(trx, owner);
    }
    if (count > MAX_WISHLIST_ITEMS) throw invalidField('productId', 'wishlist.full', { max: MAX_WISHLIST_ITEMS });
  }
  const addedAt = created ? context.now : ((await itemAddedAt(trx, owner, productId)) ?? context.now);
  return { created, addedAt };
}

/** Removes the product from the wishlist; removing one that is not there is no error (idempotent). */
export async function removeFromWishlist(db: Db, context: CatalogueContext, productId: number): Promise<void> {
  await deleteItem(db, wishlistOwner(context), productId);
}
