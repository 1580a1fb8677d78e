import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { addressKey } from '../../infra/address-key.js';
import { conflict, invalidField, InvalidInputError, notFound } from '../../infra/domain-error.js';
import { consumeRateLimit, refundHit, type RateLimit } from '../../infra/rate-limit.js';
import { reserve } from './gift-card-ledger.js';
import { checkCharacterHolds, codeKey, normaliseCode } from './gift-card-code.js';
import {
  attachCard,
  basketCards,
  countBasketCards,
  detachAllCards,
  detachCard,
  findCardByHmac,
  type BasketCard,
} from './gift-cards.repository.js';

// Gift cards as a way to pay: look a code up (every attempt counted per address first, a usable
// card takes its count back), put it on a basket, share the basket's payable sum over its cards,
// hold the shares at checkout and take or give them back as the order moves.

/**
 * Codes one address may try (balance checks and baskets together) before it waits. With 80-bit
 * codes and a million live cards a guess hits with p = 10^6 / 2^80 ≈ 8·10^-19; at 10 guesses per
 * 10 minutes an address makes 1,440 a day, so even a million addresses (IPv6 /64s) guessing
 * together need about 2·10^6 years for an even chance. A code of the generated shape with a wrong
 * check character counts as a wrong code.
 */
export const WRONG_GIFT_CARD_CODE_LIMIT: RateLimit = { max: 10, windowMs: 10 * 60_000 };
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
 * otherwise. Counted against the caller's address before the look-up (a 429 past the limit); a
 * usable card takes its count back. Runs outside any transaction, so the count stays when the
 * request fails.
 */
export async function lookUpCard(db: Kysely<Database>, typed: string, ip: string, now: number): Promise<FoundCard | undefined> {
  await consumeRateLimit(db, limitKey(ip), WRONG_GIFT_CARD_CODE_LIMIT, now);
  const code = normaliseCode(typed);
  if (!checkCharacterHolds(code)) return undefined;
  const card = await findCardByHmac(db, (await codeKey(db, now)).hmac(code));
  if (!card || Number(card.expires_at) <= now) return undefined;
  await refundHit(db, limitKey(ip), WRONG_GIFT_CARD_CODE_LIMIT, now);
  return {
    id: Number(card.id),
    hint: card.code_hint,
    initialCents: Number(card.initial_cents),
    balanceCents: Number(card.balance_cents),
    expiresAt: Number(card.expires_at),
  };
}

/** Puts a usable card on the basket (a 422 for a code that is not one). */
export async function addCardToBasket(trx: Db, basketId: number, card: FoundCard | undefined, now: number): Promise<void> {
  if (!card) throw invalidField('code', 'giftCards.unknownCode');
  if ((await countBasketCards(trx, basketId)) >= MAX_BASKET_CARDS)
    throw invalidField('code', 'giftCards.tooMany', { max: MAX_BASKET_CARDS });
  await attachCard(trx, basketId, card.id, now);
}

/** Takes the card of `typed` off the basket; a 404 when it is not on it. Not rate-limited: it only finds cards on the caller's own basket. */
export async function removeCardFromBasket(db: Kysely<Database>, trx: Db, basketId: number, typed: string, now: number): Promise<void> {
  const card = await findCardByHmac(trx, (await codeKey(db, now)).hmac(normaliseCode(typed)));
  if (!card || !(await detachCard(trx, basketId, Number(card.id)))) throw notFound('giftCards.notInBasket');
}

export const clearBasketCards = detachAllCards;

export interface CardShare {
  cardId: number;
  hint: string;
  balanceCents: number;
  /** What this card pays of the basket. */
  amountCents: number;
  usable: boolean;
}

/** The basket's cards and what each pays of `payableCents`, in the order they were added. */
export async function shareOverCards(db: Db, basketId: number, payableCents: number, now: number): Promise<CardShare[]> {
  return share(await basketCards(db, basketId), payableCents, now);
}

export function share(cards: readonly BasketCard[], payableCents: number, now: number): CardShare[] {
  let left = Math.max(0, payableCents);
  return cards.map((card) => {
    const usable = card.expiresAt > now && card.balanceCents > 0;
    const amountCents = usable ? Math.min(card.balanceCents, left) : 0;
    left -= amountCents;
    return { cardId: card.cardId, hint: card.hint, balanceCents: usable ? card.balanceCents : 0, amountCents, usable };
  });
}

/**
 * Holds each card's share for the new order, in checkout's transaction. A card that can pay
 * nothing any more (spent or expired) is a 422 (the shopper takes it off); a balance spent
 * by another order since the basket was priced is a 409 and the whole checkout rolls back.
 */
export async function holdForOrder(trx: Db, orderId: number, shares: readonly CardShare[], now: number): Promise<void> {
  const idle = shares.filter((card) => !card.usable);
  if (idle.length > 0)
    throw new InvalidInputError(
      idle.map((card) => ({ field: `giftCards.${card.hint}`, messageKey: 'giftCards.nothingLeft', params: { hint: card.hint } })),
    );
  for (const card of shares) {
    if (card.amountCents === 0) continue;
    if (!(await reserve(trx, card.cardId, orderId, card.amountCents, now))) throw conflict('giftCards.balanceChanged', { hint: card.hint });
  }
}
