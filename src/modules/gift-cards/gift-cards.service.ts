import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { addressKey } from '../../infra/address-key.js';
import { DomainError, invalidField, InvalidInputError, notFound } from '../../infra/domain-error.js';
import { consumeRateLimit, countedHits, rateLimited, type RateLimit } from '../../infra/rate-limit.js';
import { reserve } from './gift-card-ledger.js';
import { checkCharacterHolds, codeKey, HINT_LENGTH, normaliseCode } from './gift-card-code.js';
import {
  attachCard,
  basketCards,
  cardsOfClientPage,
  countBasketCards,
  detachAllCards,
  detachCard,
  findCardByHmac,
  type BasketCard,
  type BasketCardsReader,
} from './gift-cards.repository.js';

// Gift cards as a way to pay: look a code up (wrong codes counted per address, a right one
// answered only while the address has guesses left), put it on a basket, share the basket's payable sum over its cards,
// hold the shares at checkout and take or give them back as the order moves.

/** How many cards one basket may be paid with. */
export const MAX_BASKET_CARDS = 5;

const limitKey = (ip: string) => `gift-card:code:${addressKey(ip)}`;

export interface FoundCard {
  id: number;
  hint: string;
  initialCents: number;
  balanceCents: number;
  expiresAt: number;
}

/**
 * The card of a typed code, when it can be used now (known and not expired); undefined
 * otherwise. Only wrong codes (unknown, expired, a wrong check character) are counted against the
 * caller's address, and a right one is answered only while that count is under the limit (a 429
 * otherwise, the same as for a wrong one), so a right code costs two reads and no write.
 *
 * The cap stays exact across processes and parallel requests: misses are counted atomically in
 * the database, and a right code is answered only when fewer than `max` misses were counted before
 * its read. Of any number of guesses sent at once, only those evaluated before the max-th miss
 * can be answered at all, so an address still gets at most `max` guesses per window with a chance
 * of a hit (with the count taken first and given back, as before, the same `max` held). Runs
 * outside any transaction, so a miss stays counted when the request fails. `limit` is the wrong
 * codes one address may try, balance checks and baskets together (GIFT_CARD_GUESS_RATE_LIMIT_PER_IP,
 * GiftCardsSection.wrongCodesPerIp); a code of the generated shape with a wrong check character is a
 * wrong code.
 */
export async function lookUpCard(
  db: Kysely<Database>,
  typed: string,
  ip: string,
  limit: RateLimit,
  now: number,
): Promise<FoundCard | undefined> {
  const code = normaliseCode(typed);
  const card = checkCharacterHolds(code) ? await findCardByHmac(db, (await codeKey(db, now)).hmac(code)) : undefined;
  if (!card || Number(card.expires_at) <= now) {
    await consumeRateLimit(db, limitKey(ip), limit, now);
    return undefined;
  }
  const { hits, secondsLeft } = await countedHits(db, limitKey(ip), limit, now);
  if (hits >= limit.max) throw rateLimited(secondsLeft);
  return {
    id: Number(card.id),
    hint: card.code_hint,
    initialCents: Number(card.initial_cents),
    balanceCents: Number(card.balance_cents),
    expiresAt: Number(card.expires_at),
  };
}

/** Puts a usable card on the basket (a 422 for a code that is not one). */
/**
 * The client account's login email while its user has confirmed it, else null: the profile module's
 * confirmedLoginEmailOf, handed in by the app (profile reaches the gift cards through accounts and
 * the basket, so importing it here would close a cycle).
 */
export type ConfirmedEmailOf = (db: Db, clientAccountId: number) => Promise<string | null>;

/**
 * One page of the virtual cards a client bought or received. Received means sent to its login email,
 * and only while the user has confirmed that address: until then the cards sent to it are the
 * address owner's.
 */
export async function clientCardsPage(
  db: Db,
  confirmedEmailOf: ConfirmedEmailOf,
  clientAccountId: number,
  slice: { offset: number; perPage: number },
) {
  return cardsOfClientPage(db, clientAccountId, await confirmedEmailOf(db, clientAccountId), slice);
}

export async function addCardToBasket(trx: Db, basketId: number, card: FoundCard | undefined, now: number): Promise<void> {
  if (!card) throw invalidField('code', 'giftCards.unknownCode');
  // A card on the basket already is put on again (its balance shown afresh): only the others count.
  if ((await countBasketCards(trx, basketId, card.id)) >= MAX_BASKET_CARDS)
    throw invalidField('code', 'giftCards.tooMany', { max: MAX_BASKET_CARDS });
  await attachCard(trx, basketId, card.id, card.balanceCents, now);
}

/**
 * What a typed code is looked up by. Read before any transaction: the first call of a process reads
 * (or makes) the server key on `db`, and on SQLite a read from outside an open transaction waits
 * for it to end, so inside the basket's transaction it would wait for itself.
 */
export async function cardLookupKey(db: Kysely<Database>, typed: string, now: number): Promise<string> {
  return (await codeKey(db, now)).hmac(normaliseCode(typed));
}

/**
 * Takes the card of `lookupKey` (cardLookupKey of `typed`) off the basket; a 404 when it is not on
 * it. `typed` may also be the code as the basket shows it (its last four characters, all a
 * front-end knows of a card after a reload or a login's merge) when one card on this basket ends
 * so. Not rate-limited: it only finds cards on the caller's own basket.
 */
export async function removeCardFromBasket(trx: Db, basketId: number, lookupKey: string, typed: string): Promise<void> {
  const card = await findCardByHmac(trx, lookupKey);
  if (card && (await detachCard(trx, basketId, Number(card.id)))) return;
  const shown = normaliseCode(typed);
  const onBasket = shown.length === HINT_LENGTH ? (await basketCards(trx, basketId)).filter((c) => normaliseCode(c.hint) === shown) : [];
  if (onBasket.length === 1 && (await detachCard(trx, basketId, onBasket[0]!.cardId))) return;
  throw notFound('giftCards.notInBasket');
}

export const clearBasketCards = detachAllCards;

export interface CardShare {
  cardId: number;
  hint: string;
  balanceCents: number;
  /** What this card pays of the basket. */
  amountCents: number;
  /**
   * What it paid of the same sum in the basket the shopper saw: worked out from the balance the
   * shopper saw (seenBalanceCents), as a line's price change is told from the price it was added at.
   */
  shownCents: number;
  usable: boolean;
}

/** The basket's cards and what each pays of `payableCents`, in the order they were added. */
export async function shareOverCards(
  db: Db,
  basketId: number,
  payableCents: number,
  now: number,
  readCards: BasketCardsReader = basketCards,
): Promise<CardShare[]> {
  return share(await readCards(db, basketId), payableCents, now);
}

export function share(cards: readonly BasketCard[], payableCents: number, now: number): CardShare[] {
  const usable = cards.map((card) => card.expiresAt > now && card.balanceCents > 0);
  const amounts = payInTurn(
    cards.map((card, index) => (usable[index] ? card.balanceCents : 0)),
    payableCents,
  );
  const shown = payInTurn(
    cards.map((card, index) => (usable[index] ? (card.seenBalanceCents ?? card.balanceCents) : 0)),
    payableCents,
  );
  return cards.map((card, index) => ({
    cardId: card.cardId,
    hint: card.hint,
    balanceCents: usable[index] ? card.balanceCents : 0,
    amountCents: amounts[index]!,
    shownCents: shown[index]!,
    usable: usable[index]!,
  }));
}

/** What each balance pays of `payableCents`, in turn: each what it has, up to what is left. */
function payInTurn(balances: readonly number[], payableCents: number): number[] {
  let left = Math.max(0, payableCents);
  return balances.map((balance) => {
    const paid = Math.min(Math.max(0, balance), left);
    left -= paid;
    return paid;
  });
}

/**
 * Checkout's 409 when a card pays less than the basket showed: another order spent its balance
 * meanwhile. Carries the basket, so the route can record, once the checkout has rolled back, that
 * its shopper has been told (recordSeenBalances): the basket read again shows the new share, and
 * the next checkout goes on with it.
 */
export class CardBalanceChangedError extends DomainError {
  constructor(
    readonly basketId: number,
    hint: string,
  ) {
    super('conflict', 'giftCards.balanceChanged', { hint });
  }
}

/**
 * Holds each card's share for the new order, in checkout's transaction. A card that can pay
 * nothing any more (spent or expired) is a 422 (the shopper takes it off). A card that pays less
 * than the basket showed (another order spent it since the shopper saw its balance), or whose
 * balance another checkout took since this one priced the basket, is a 409 and the whole checkout
 * rolls back: the shopper would otherwise pay more online than the basket said.
 */
export async function holdForOrder(trx: Db, basketId: number, orderId: number, shares: readonly CardShare[], now: number): Promise<void> {
  const idle = shares.filter((card) => !card.usable);
  if (idle.length > 0)
    throw new InvalidInputError(
      idle.map((card) => ({ field: `giftCards.${card.hint}`, messageKey: 'giftCards.nothingLeft', params: { hint: card.hint } })),
    );
  const short = shares.find((card) => card.amountCents < card.shownCents);
  if (short) throw new CardBalanceChangedError(basketId, short.hint);
  // Taken in card id order, not the basket's: two baskets with the same cards added the other way
  // round each took one and waited for the other (on PostgreSQL a deadlock, one checkout a 500).
  // Every writer of several cards' balances (the ledger's holdsOf) takes them in this order.
  for (const card of [...shares].sort((a, b) => a.cardId - b.cardId)) {
    if (card.amountCents === 0) continue;
    if (!(await reserve(trx, card.cardId, orderId, card.amountCents, now))) throw new CardBalanceChangedError(basketId, card.hint);
  }
}
