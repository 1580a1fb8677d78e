import type { DatabaseHandle, Db } from '../../db/database.js';
import { lockLiveClientAccount } from '../client-account-lock/index.js';
import { preparedLineQueries, type BasketLine, type LineQueries, type ProductsReader } from './basket-lines.repository.js';
import type { BasketProductCache } from './basket-product-cache.js';
import { invalidField, InvalidInputError, notFound, type InvalidField } from '../../infra/domain-error.js';
import { consumeRateLimit, type RateLimit } from '../../infra/rate-limit.js';
import { hashToken, newToken } from '../../infra/tokens.js';
import { pricingCustomer, isVisibleTo } from '../catalogue/index.js';
import { priceFor } from '../pricing/index.js';
import { readCompanyPrices, type BasketProduct } from './basket-products.repository.js';
import type { BasketContext } from './basket-pricing.js';
import {
  basketLines,
  createGuestBasket,
  deleteAllLines,
  deleteLine,
  ensureClientBasket,
  findGuestBasket,
  preparedBasketFinders,
  preparedBasketWrites,
  touchBasket,
  updateLine,
  type BasketRow,
  type BasketWrites,
} from './basket.repository.js';
import { checkQuantity, MAX_LINES, maxOrderable } from './basket-rules.js';
import {
  checkVirtualCard,
  preparedBasketCards,
  type BasketCardsReader,
  clearBasketCards,
  clearVirtualCardLines,
  saveVirtualCardLine,
  virtualCardLines,
  type VirtualGiftCardInput,
} from '../gift-cards/index.js';

// The basket's writes. Each takes the caller's transaction and a basket opened for writing
// (openBasket: locked, created when missing), checks the rules before it changes anything, and
// returns the basket with its next version. Prices are never taken from the client.

const DAY_MS = 86_400_000;
/** A guest basket is kept this long after its last change. */
export const GUEST_BASKET_TTL_MS = 30 * DAY_MS;
/** An empty basket is deleted this long after its last change. */
export const EMPTY_BASKET_TTL_MS = DAY_MS;

/**
 * Whose basket: a client account's (per store), or a guest's by its token (none yet: undefined);
 * a guest's `address` is its client address's rate-limit key (infra/address-key.ts).
 */
export type BasketOwner = { kind: 'client'; clientAccountId: number } | { kind: 'guest'; token: string | undefined; address: string };

/** The read path's look-ups, compiled once: the owner's basket and its lines (outside transactions; the lines' products as `products` keeps them). */
export function basketReads(handle: DatabaseHandle, products: BasketProductCache) {
  const finders = preparedBasketFinders(handle);
  return {
    find(owner: BasketOwner, storeCode: string, now: number): Promise<BasketRow | undefined> {
      if (owner.kind === 'client') return finders.client(owner.clientAccountId, storeCode);
      if (owner.token === undefined) return Promise.resolve(undefined);
      return finders.guest(hashToken(owner.token), storeCode, now - GUEST_BASKET_TTL_MS);
    },
    lines: products.lines,
    refresh: products.refresh,
    cards: preparedBasketCards(handle),
  };
}

/** The write path's statements, compiled once, for use inside the write's transaction. */
export interface BasketWriteQueries extends LineQueries {
  writes: BasketWrites;
  cards: BasketCardsReader;
  /** basket-pricing.ts's PricingReads.refresh, where the lines' products are kept ones. */
  refresh?: ProductsReader;
}

export function basketWriteQueries(handle: DatabaseHandle): BasketWriteQueries {
  return { ...preparedLineQueries(handle), writes: preparedBasketWrites(handle), cards: preparedBasketCards(handle) };
}

export interface OpenedBasket {
  basket: BasketRow;
  /** A guest's token: the one sent, or a new one when the basket is new (the only time it is known). */
  token: string | null;
}

/**
 * The owner's basket for a write, locked until the transaction ends. A client's is created on
 * first use, under the client account's lock taken first (as the erasure takes it: a client erased
 * since the token was read is a 401, and no basket outlives the erasure); a guest without a valid token gets a new basket and a new token (never one of the
 * client's choosing, so nobody can plant a token on somebody else).
 */
export async function openBasket(trx: Db, owner: BasketOwner, storeCode: string, now: number, limit: RateLimit): Promise<OpenedBasket> {
  if (owner.kind === 'client') {
    await lockLiveClientAccount(trx, owner.clientAccountId);
    return { basket: await ensureClientBasket(trx, owner.clientAccountId, storeCode, now), token: null };
  }
  if (owner.token !== undefined) {
    const found = await findGuestBasket(trx, hashToken(owner.token), storeCode, now - GUEST_BASKET_TTL_MS, true);
    if (found) return { basket: found, token: owner.token };
  }
  return newGuestBasket(trx, owner.address, limit, now, (hash) => createGuestBasket(trx, hash, storeCode, now));
}

/**
 * A new guest basket and its token, counted per client address first: every write without a
 * basket-token makes one, kept 30 days, so an unlimited client could fill the table.
 */
async function newGuestBasket(
  trx: Db,
  address: string,
  limit: RateLimit,
  now: number,
  create: (tokenHash: string) => Promise<BasketRow>,
): Promise<OpenedBasket> {
  await consumeRateLimit(trx, `basket:new:ip:${address}`, limit, now);
  const { token, hash } = newToken();
  return { basket: await create(hash), token };
}

/**
 * The owner's basket for a write that always changes it, as openBasket but with its version moved
 * on and its time of change set by the same statement that finds and locks it.
 */
export async function openBasketForWrite(
  trx: Db,
  writes: BasketWrites,
  owner: BasketOwner,
  storeCode: string,
  now: number,
  limit: RateLimit,
): Promise<OpenedBasket> {
  if (owner.kind === 'client') {
    await lockLiveClientAccount(trx, owner.clientAccountId);
    return { basket: await writes.bumpClient(trx, owner.clientAccountId, storeCode, now), token: null };
  }
  if (owner.token !== undefined) {
    const found = await writes.bumpGuest(trx, hashToken(owner.token), storeCode, now - GUEST_BASKET_TTL_MS, now);
    if (found) return { basket: found, token: owner.token };
  }
  return newGuestBasket(trx, owner.address, limit, now, (hash) => writes.createGuest(trx, hash, storeCode, now));
}

/** The product (as read in the write's transaction) as the caller may order it, and its price for them now; a 422 on productId otherwise. */
async function orderableProduct(
  trx: Db,
  context: BasketContext,
  productId: number,
  product: BasketProduct | undefined,
): Promise<{ product: BasketProduct; priceCents: number }> {
  if (!product || !isVisibleTo(product, context.caller)) throw invalidField('productId', 'basket.unknownProduct', { id: productId });
  if (maxOrderable(product) === 0) throw invalidField('productId', 'basket.unavailable');
  const { caller } = context;
  const companyPrice =
    caller.kind === 'WHOLESALE' ? (await readCompanyPrices(trx, caller.companyId, [productId])).get(productId) : undefined;
  const price = priceFor(product, pricingCustomer(caller, companyPrice), context.store, context.now);
  return { product, priceCents: price.priceCents };
}

/**
 * Adds a quantity of a product to a basket opened by openBasketForWrite (locked, its version
 * already moved on). One read of the lines and one of the product, the rules checked on what it
 * read, one write of the line. Returns the lines as they are now, for the answer, so nothing is
 * read twice.
 */
export async function addProduct(
  trx: Db,
  queries: BasketWriteQueries,
  context: BasketContext,
  basket: BasketRow,
  input: { productId: number; quantity: number; giftCard?: VirtualGiftCardInput },
): Promise<{ lines: BasketLine[]; product: BasketProduct }> {
  const storeCode = context.store.code;
  const lines = await queries.lines(trx, basket.id, storeCode);
  const existing = lines.find((entry) => entry.product.id === input.productId);
  // Read in this transaction even when it has a line: the lines' products may be kept ones (basket-product-cache.ts).
  const known = await queries.product(trx, input.productId, storeCode);
  const orderable = await orderableProduct(trx, context, input.productId, known);
  const { product } = orderable;
  let { priceCents } = orderable;
  // A virtual gift card's line is one card: its amount is its price; adding it again replaces its details.
  const card = virtualCard(product, input.giftCard, context);
  if (card) priceCents = card.amountCents;
  const quantity = card ? 1 : (existing?.line.quantity ?? 0) + input.quantity;
  checkQuantity(product, card ? input.quantity : quantity);
  if (!existing && lines.length >= MAX_LINES) throw invalidField('productId', 'basket.tooManyLines', { max: MAX_LINES });
  const line = existing
    ? { ...existing.line, quantity, seen_price_cents: priceCents }
    : { basket_id: basket.id, product_id: input.productId, quantity, seen_price_cents: priceCents, added_at: context.now };
  await queries.writes.upsertLine(trx, line);
  if (card) await saveVirtualCardLine(trx, basket.id, product.id, card);
  if (existing) Object.assign(existing, { line, product });
  else lines.push({ line, product });
  // In the order a read would give: when they were added, then by product.
  lines.sort((a, b) => a.line.added_at - b.line.added_at || a.line.product_id - b.line.product_id);
  return { lines, product };
}

/** The card details a VIRTUAL_GIFT_CARD product needs (a 422 without them), refused for any other product. */
function virtualCard(product: BasketProduct, input: VirtualGiftCardInput | undefined, context: BasketContext) {
  if (product.type !== 'VIRTUAL_GIFT_CARD') {
    if (input !== undefined) throw invalidField('giftCard', 'giftCards.detailsNotWanted');
    return undefined;
  }
  if (input === undefined) throw invalidField('giftCard', 'giftCards.detailsRequired');
  return checkVirtualCard(input, { storeCode: context.store.code, language: context.language }, context.now);
}

/** A product addProducts could not add, and why (the basket rule's message). */
export interface RefusedProduct {
  productId: number;
  reason: InvalidField;
}

/**
 * Puts products in the basket so that each has at least the given quantity, with addProduct's
 * rules, each on its own: one the rules refuse (unknown, hidden, unavailable, over a quantity
 * limit, too many lines) is left out and reported, and the others are added. A product the basket
 * holds enough of already is left as it is, so the same products put again (a double click, a
 * retry after a timeout) change nothing. For putting an earlier order back in the basket.
 */
export async function topUpProducts(
  trx: Db,
  queries: BasketWriteQueries,
  context: BasketContext,
  basket: BasketRow,
  items: ReadonlyArray<{ productId: number; quantity: number }>,
): Promise<{ lines: BasketLine[]; refused: RefusedProduct[] }> {
  const refused: RefusedProduct[] = [];
  let lines = await queries.lines(trx, basket.id, context.store.code);
  for (const item of items) {
    const held = lines.find((entry) => entry.product.id === item.productId)?.line.quantity ?? 0;
    if (held >= item.quantity) continue;
    try {
      lines = (await addProduct(trx, queries, context, basket, { productId: item.productId, quantity: item.quantity - held })).lines;
    } catch (error) {
      // The rules are checked before anything is written, so a refusal leaves the basket as it was.
      if (!(error instanceof InvalidInputError) || error.fields[0] === undefined) throw error;
      refused.push({ productId: item.productId, reason: error.fields[0] });
    }
  }
  return { lines, refused };
}

/** Sets a line's quantity; 0 removes the line. */
export async function changeQuantity(
  trx: Db,
  queries: LineQueries,
  context: BasketContext,
  basket: BasketRow,
  input: { productId: number; quantity: number },
): Promise<BasketRow> {
  const lines = await basketLines(trx, basket.id);
  if (!lines.some((line) => line.product_id === input.productId)) throw notFound('basket.notInBasket', { id: input.productId });
  if (input.quantity === 0) {
    await deleteLine(trx, basket.id, input.productId);
    await clearVirtualCardLines(trx, basket.id, input.productId);
  } else {
    const known = await queries.product(trx, input.productId, context.store.code);
    const { product, priceCents } = await orderableProduct(trx, context, input.productId, known);
    checkQuantity(product, input.quantity);
    // A virtual gift card's price is its card's amount (addProduct), not the product's: the line is
    // seen at that amount, or every read after this write would say its price changed.
    const card = product.type === 'VIRTUAL_GIFT_CARD' ? (await virtualCardLines(trx, basket.id)).get(product.id) : undefined;
    await updateLine(trx, basket.id, input.productId, input.quantity, card?.amountCents ?? priceCents);
  }
  return touchBasket(trx, basket, context.now);
}

export async function removeProduct(trx: Db, basket: BasketRow, productId: number, now: number): Promise<BasketRow> {
  const lines = await basketLines(trx, basket.id);
  if (!lines.some((line) => line.product_id === productId)) throw notFound('basket.notInBasket', { id: productId });
  await deleteLine(trx, basket.id, productId);
  // A virtual gift card's details go with its line: left behind, a guest's line of the same card
  // merged in at login took their amount and recipient instead of its own.
  await clearVirtualCardLines(trx, basket.id, productId);
  return touchBasket(trx, basket, now);
}

/** Empties the basket: its lines, its gift cards, its discount code and its delivery choice. */
export async function clearBasket(trx: Db, basket: BasketRow, now: number): Promise<BasketRow> {
  await deleteAllLines(trx, basket.id);
  await clearBasketCards(trx, basket.id);
  await clearVirtualCardLines(trx, basket.id);
  return touchBasket(trx, basket, now, {
    discount_code_id: null,
    delivery_method_id: null,
    parcel_machine_id: null,
    delivery_shop_id: null,
    delivery_country_code: null,
  });
}
