import type { Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { translate, type Language } from '../../i18n/index.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import { clientAccountCaller } from '../catalogue/index.js';
import { MAX_BASKET_CARDS, moveBasketGiftCards } from '../gift-cards/index.js';
import { getStore } from '../store/index.js';
import { readBasketProducts, type ProductsReader } from './basket-lines.repository.js';
import type { BasketProduct } from './basket-products.repository.js';
import { priceBasket } from './basket-pricing.js';
import {
  basketLines,
  deleteBasket,
  deleteLine,
  ensureClientBasket,
  findClientBasket,
  findGuestBasket,
  insertLine,
  touchBasket,
  updateLine,
  type BasketRow,
} from './basket.repository.js';
import { isDigitalProduct, MAX_LINES, MAX_QUANTITY } from './basket-rules.js';
import { GUEST_BASKET_TTL_MS } from './basket.service.js';
import type { BasketWire } from './basket.schemas.js';
import type { BasketTable } from './basket.tables.js';
import { toBasketWire } from './basket.wire.js';

/** What a merge did: the client basket after it, and what it could not take as the guest basket had it. */
export interface MergeOutcome {
  basket: BasketRow;
  news: MergeNews;
}

/** What the shopper is told after a merge (mergeMessages): each count is of products. */
export interface MergeNews {
  /** Guest lines left in the guest basket because the client's basket holds MAX_LINES products. */
  linesLeftOut: number;
  /** Products in both baskets whose quantities added up to more than MAX_QUANTITY: cut to it. */
  cutToMax: number;
  /** Digital products in both baskets: kept once. */
  digitalKeptOnce: number;
  /** Gift cards left in the guest basket because the client's basket holds the most it may. */
  cardsLeftOut: number;
}

const NO_NEWS: MergeNews = { linesLeftOut: 0, cutToMax: 0, digitalKeptOnce: 0, cardsLeftOut: 0 };

/**
 * Moves the guest basket of `guestToken` (in the client basket's store) into the client's basket,
 * which the caller has opened (locked). Quantities of a product in both are added, then capped by
 * the line rules (999; 1 for a digital product), and the outcome counts those cuts for the answer's
 * messages; one beyond the web stock of an item that ships only from stock is kept, and the basket
 * shows it cut with QUANTITY_CUT; an unavailable line stays as it is. The 100-line rule holds too,
 * and a merge never loses a line:
 * the client's lines stay, the guest's lines of products the client has are added to them, and new
 * guest lines are added in the guest basket's order while fewer than MAX_LINES; the ones that do
 * not fit stay in the guest basket (under the same token, so a later merge with room takes them)
 * and the answer says how many. Only then is the guest basket kept; otherwise it is deleted. Either
 * way each moved line leaves the guest basket in the same transaction, so a retried login never
 * doubles one, and a second merge running at once waits for the client basket's lock and then
 * finds the moved lines gone. The guest's code and delivery choice are taken when the client's
 * basket has none; its gift cards and virtual gift card details move too (gift-cards' basket-merge.ts),
 * and cards beyond the most a basket takes stay in the guest basket, which is then kept, as lines are.
 * Each basket gets one new version when the merge changed anything of it (a card included) and
 * keeps its version otherwise, so a write based on the version before the merge is a 412.
 */
export async function mergeGuestInto(
  trx: Db,
  client: BasketRow,
  guestToken: string,
  now: number,
  readProducts: ProductsReader = readBasketProducts,
): Promise<MergeOutcome> {
  const guest = await findGuestBasket(trx, hashToken(guestToken), client.store_code, now - GUEST_BASKET_TTL_MS, true);
  if (!guest) return { basket: client, news: NO_NEWS };
  const [guestRows, clientRows] = await Promise.all([basketLines(trx, guest.id), basketLines(trx, client.id)]);
  const products = await readProducts(
    trx,
    client.store_code,
    guestRows.map((row) => row.product_id),
  );
  let lineCount = clientRows.length;
  const leftOut: number[] = [];
  let cutToMax = 0;
  let digitalKeptOnce = 0;
  let linesChanged = false;
  for (const row of guestRows) {
    const existing = clientRows.find((line) => line.product_id === row.product_id);
    if (!existing && lineCount >= MAX_LINES) {
      leftOut.push(row.product_id);
      continue;
    }
    const product = products.get(row.product_id);
    const wanted = (existing?.quantity ?? 0) + row.quantity;
    // A product not read here (no longer in the store) has no rules to cap by: the sum stays.
    const quantity = product ? Math.min(wanted, lineLimit(product)) : wanted;
    if (quantity < wanted) {
      if (isDigitalProduct(product!)) digitalKeptOnce += 1;
      else cutToMax += 1;
    }
    if (!existing) {
      await insertLine(trx, { ...row, basket_id: client.id, quantity });
      lineCount += 1;
      linesChanged = true;
    } else if (quantity !== existing.quantity) {
      await updateLine(trx, client.id, row.product_id, quantity, existing.seen_price_cents);
      linesChanged = true;
    }
  }
  // The guest's gift cards and virtual gift card details come along (before the guest basket goes),
  // even when none of its lines fit: the cards pay for whatever the client's basket holds.
  const moved = guestRows.map((row) => row.product_id).filter((id) => !leftOut.includes(id));
  const cards = await moveBasketGiftCards(trx, guest.id, client.id, moved);
  const noneMoved = leftOut.length > 0 && leftOut.length === guestRows.length;
  // Kept while it holds a line or a card that did not fit (under the same token, for a later merge).
  if (leftOut.length === 0 && cards.cardsLeftOut === 0) await deleteBasket(trx, guest.id);
  else if (!noneMoved || cards.offGuest > 0) {
    for (const id of moved) await deleteLine(trx, guest.id, id);
    await touchBasket(trx, guest, now);
  }
  // A guest basket none of whose lines fit keeps its code and delivery for the merge that has room.
  const choices = noneMoved ? {} : choicesTaken(client, guest);
  // One new version when anything of the client's basket changed (a write based on the version
  // before the merge must be refused), none when nothing did (a retried login changes nothing).
  const changed = linesChanged || cards.toClient > 0 || Object.keys(choices).length > 0;
  const basket = changed ? await touchBasket(trx, client, now, choices) : client;
  return { basket, news: { linesLeftOut: leftOut.length, cutToMax, digitalKeptOnce, cardsLeftOut: cards.cardsLeftOut } };
}

/** The guest's discount code and delivery choice, each where the client's basket has none. */
function choicesTaken(client: BasketRow, guest: BasketRow): Updateable<BasketTable> {
  const choices: Updateable<BasketTable> = {};
  if (client.discount_code_id === null && guest.discount_code_id !== null) choices.discount_code_id = guest.discount_code_id;
  if (client.delivery_method_id === null && guest.delivery_method_id !== null) {
    choices.delivery_method_id = guest.delivery_method_id;
    choices.parcel_machine_id = guest.parcel_machine_id;
    choices.delivery_shop_id = guest.delivery_shop_id;
    choices.delivery_country_code = guest.delivery_country_code;
  }
  return choices;
}

/**
 * The answer's messages about what a merge could not do as the baskets had it (see mergeGuestInto):
 * guest lines left out, and sums cut by the line rules. A cut by the rules is told here, once: the
 * stored line holds the capped quantity, which no later read can tell apart.
 */
export function mergeMessages(news: MergeNews, language: Language): BasketWire['messages'] {
  const messages: NonNullable<BasketWire['messages']> = [];
  if (news.linesLeftOut > 0)
    messages.push({
      code: 'MERGE_LINES_LEFT_OUT',
      message: translate(language, 'basket.mergeLinesLeftOut', { count: news.linesLeftOut, max: MAX_LINES }),
    });
  if (news.cutToMax > 0)
    messages.push({
      code: 'MERGE_QUANTITY_CAPPED',
      message: translate(language, 'basket.mergeQuantityCapped', { count: news.cutToMax, max: MAX_QUANTITY }),
    });
  if (news.digitalKeptOnce > 0)
    messages.push({ code: 'MERGE_DIGITAL_ONCE', message: translate(language, 'basket.mergeDigitalOnce', { count: news.digitalKeptOnce }) });
  if (news.cardsLeftOut > 0)
    messages.push({
      code: 'MERGE_GIFT_CARDS_LEFT_OUT',
      message: translate(language, 'basket.mergeGiftCardsLeftOut', { count: news.cardsLeftOut, max: MAX_BASKET_CARDS }),
    });
  return messages.length > 0 ? messages : undefined;
}

/**
 * The most of the product a line holds by the line rules (999; 1 of a digital product). A merged sum
 * is not cut to the stock here: pricing cuts what counts to the stock and the line says
 * QUANTITY_CUT, as for any line whose stock fell, so the shopper is told (a stored cut said nothing).
 */
function lineLimit(product: Pick<BasketProduct, 'type' | 'deliveryTime'>): number {
  return isDigitalProduct(product) ? 1 : MAX_QUANTITY;
}

export interface LoginBasketInput {
  clientAccountId: number;
  /** The store the login is for (the token's store). */
  storeCode: string;
  /** The request's `basket-token` header, as sent; a missing or malformed one merges nothing. */
  guestToken: string | undefined;
  language: Language;
  now: number;
}

/**
 * For the login answers (/auth/login, social-login, verify-email, switch-web-store): inside the
 * caller's transaction, merges the guest basket of `guestToken` into the client's basket for the
 * store (see mergeGuestInto: idempotent under a retried login, safe when two run at once) and
 * returns the client's basket answer, priced for the client. Without a guest basket to merge, the
 * client's basket is read and nothing is written (a client without one gets the empty answer).
 */
export async function loginBasket(trx: Db, input: LoginBasketInput): Promise<BasketWire> {
  const store = await getStore(trx, input.storeCode);
  const caller = await clientAccountCaller(trx, input.clientAccountId);
  if (!store || !caller) throw new Error(`loginBasket: no client account ${input.clientAccountId} in store ${input.storeCode}`);
  const token = input.guestToken !== undefined && isTokenShaped(input.guestToken) ? input.guestToken : undefined;
  let basket: BasketRow | undefined;
  let news = NO_NEWS;
  if (token !== undefined && (await findGuestBasket(trx, hashToken(token), store.code, input.now - GUEST_BASKET_TTL_MS, false))) {
    const client = await ensureClientBasket(trx, input.clientAccountId, store.code, input.now);
    ({ basket, news } = await mergeGuestInto(trx, client, token, input.now));
  } else {
    basket = await findClientBasket(trx, input.clientAccountId, store.code, false);
  }
  const priced = await priceBasket(trx, { caller, store, language: input.language, now: input.now }, basket);
  const messages = mergeMessages(news, input.language);
  return { ...toBasketWire(priced, null, input.language), ...(messages ? { messages } : {}) };
}
