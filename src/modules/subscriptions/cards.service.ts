import { randomBytes } from 'node:crypto';
import { lockLiveClientAccount } from '../client-account-lock/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/after-commit.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { DomainError, notFound } from '../../infra/domain-error.js';
import { RESUBMIT_WINDOW_MS } from '../../infra/resubmit.js';
import {
  GatewayRefusedError,
  GatewayUnavailableError,
  lookUpOnReturn,
  paysInEuros,
  type GatewayName,
  type Gateways,
  type LookUpPauses,
  type PaymentGateway,
  type PaymentStatus,
  type RedirectForm,
} from '../payments/index.js';
import {
  activeCardsOf,
  activeCardsPageOf,
  cardExpired,
  cardsToPrune,
  confirmCard,
  deleteCards,
  declinePendingCard,
  findCard,
  giveCardToWaiting,
  insertCard,
  lockCardOwner,
  lockCardOwners,
  makeDefault,
  ownCard,
  recentPendingCard,
  setPaymentStarted,
  setSubscriptionsCard,
  subscriptionsOfCards,
  type CardRow,
} from './cards.repository.js';
import type { CardTokens } from './card-tokens.js';
import { countPaymentStatus } from './payments-metric.js';
import { DAY_MS, nextChargeAt } from './periods.js';

// Saved cards. POST starts the gateway's card-saving payment (nothing is taken: amount 0 with a
// token requested under an unscheduled agreement) and answers its redirect form; asked again while
// that card is pending and recent, it answers the same form (startCardSaving). The card row is
// PENDING until the gateway, asked by the shop itself (the shopper's return or a callback), says
// the payment settled and names the token; then only the token, brand, last four digits and expiry
// are kept. A decline makes it DECLINED, listed nowhere: the bank may still approve the payment
// (EveryPay then settles it, saves the card at its end and calls back), and the shopper asked for
// that card to be saved, so a settle the gateway reports later confirms it like a pending one. A
// card never confirmed within a day (pending or declined), and a card past its expiry, is pruned.

export interface CardUrls {
  /** Where the gateway sends the shopper back after saving card `cardId`. */
  returnUrl(cardId: number): string;
  callbackUrl(gateway: GatewayName): string;
}

export interface CardOwner {
  clientAccountId: number;
  storeCode: string;
  email: string;
  language: 'et' | 'en' | 'ru';
}

/** A never-confirmed card is given up after this long. */
export const PENDING_CARD_LIFETIME_MS = DAY_MS;

/** What a card-saving payment takes: nothing (a card check with a token requested). */
const CARD_CHECK_CENTS = 0;

/** The order reference of a card-saving payment (startCardSaving): no order's code and no charge's looks like it. */
export const CARD_SAVING_REFERENCE = /^SC[0-9A-F]{16}$/;

/** The gateway new cards are saved with: EveryPay when configured, else the test gateway. */
export function cardGateway(gateways: Gateways): PaymentGateway {
  const gateway = gateways.everypay ?? gateways.test;
  if (!gateway) throw new DomainError('unavailable', 'subscriptions.gatewayUnavailable', {}, 60);
  return gateway;
}

export function cardWire(card: CardRow) {
  return {
    id: Number(card.id),
    brand: card.brand ?? '',
    lastFour: card.last_four ?? '',
    expiryMonth: Number(card.expiry_month),
    expiryYear: Number(card.expiry_year),
    isDefault: Boolean(card.is_default),
    createdAt: new Date(Number(card.created_at)).toISOString(),
  };
}

/** One page of the client's saved cards, oldest first, and how many there are. */
export async function listCards(db: Db, clientAccountId: number, page: { offset: number; perPage: number }) {
  const { rows, total } = await activeCardsPageOf(db, clientAccountId, page);
  return { items: rows.map(cardWire), total };
}

/** A card whose gateway call started this long ago without giving its form is taken as lost (its process died). */
export const LOST_START_MS = 60_000;
/** How long a repeat waits for the gateway call of the request it repeats, and how often it looks. */
const REPEAT_WAIT_MS = 10_000;
const REPEAT_LOOK_MS = 50;

/**
 * Starts saving a card: a PENDING card row, committed, then the gateway's card-saving payment, whose
 * redirect form is kept on the row and answered. The same client in the same store asking again
 * within the resubmit window while that card is still pending (a double click, a retry after a
 * timeout) is answered the same form: no second card, no second payment at the gateway. Two at once
 * take turns on the client's lock, and the second waits for the first one's form (or its failure).
 * A card saved or declined, or started before the window, does not count: a new one is started (a
 * second card, or another try after a decline).
 */
export async function startCardSaving(
  db: Kysely<Database>,
  deps: { gateways: Gateways; urls: CardUrls },
  owner: CardOwner,
  customerIp: string | null,
  now: number,
): Promise<RedirectForm> {
  const gateway = cardGateway(deps.gateways);
  const orderReference = `SC${randomBytes(8).toString('hex').toUpperCase()}`;
  // Committed before the gateway is called: the callback may come before this request ends, and a
  // repeat finds it.
  const claim = await db.transaction().execute(async (trx): Promise<{ repeat: CardRow } | { cardId: number }> => {
    await lockLiveClientAccount(trx, owner.clientAccountId);
    const recent = await recentPendingCard(trx, owner.clientAccountId, owner.storeCode, now - RESUBMIT_WINDOW_MS);
    // One whose gateway call never gave a form within LOST_START_MS is nobody's to pay: a new one is started.
    if (recent && (recent.redirect !== null || now - Number(recent.created_at) < LOST_START_MS)) return { repeat: recent };
    const cardId = await insertCard(trx, {
      client_account_id: owner.clientAccountId,
      store_code: owner.storeCode,
      gateway: gateway.name,
      state: 'PENDING',
      order_reference: orderReference,
      payment_reference: null,
      redirect: null,
      token: null,
      brand: null,
      last_four: null,
      expiry_month: null,
      expiry_year: null,
      is_default: false,
      created_at: now,
      updated_at: now,
    });
    return { cardId };
  });
  if ('repeat' in claim) return firstForm(db, claim.repeat);
  const { cardId } = claim;
  try {
    const created = await gateway.createPayment({
      orderReference,
      amountCents: CARD_CHECK_CENTS,
      currency: 'EUR',
      customerEmail: owner.email,
      customerIp,
      locale: owner.language,
      returnUrl: deps.urls.returnUrl(cardId),
      callbackUrl: deps.urls.callbackUrl(gateway.name),
      idempotencyKey: orderReference,
      requestToken: true,
    });
    await setPaymentStarted(db, cardId, created.reference, created.redirect, now);
    return created.redirect;
  } catch (error) {
    if (!(error instanceof GatewayUnavailableError || error instanceof GatewayRefusedError)) throw error;
    await deleteCards(db, [cardId], now);
    throw gatewayUnavailable();
  }
}

const gatewayUnavailable = () => new DomainError('unavailable', 'subscriptions.gatewayUnavailable', {}, 30);

/**
 * The form of the card a repeat found: at once when its gateway call is done, else once it is (the
 * first request is still waiting for the gateway). The first request's failure removed the card:
 * the repeat is answered the same 503. Still no form after REPEAT_WAIT_MS: a 409 to try again shortly.
 */
async function firstForm(db: Kysely<Database>, found: CardRow): Promise<RedirectForm> {
  let card: CardRow | undefined = found;
  // A deadline, not a count of looks: on a busy server each look takes longer than REPEAT_LOOK_MS.
  const deadline = performance.now() + REPEAT_WAIT_MS;
  for (;;) {
    if (!card) throw gatewayUnavailable();
    if (card.redirect !== null) return JSON.parse(card.redirect) as RedirectForm;
    if (performance.now() >= deadline) throw new DomainError('conflict', 'subscriptions.cardBeingStarted', {}, 2);
    await sleep(REPEAT_LOOK_MS);
    card = await findCard(db, Number(found.id));
  }
}

export type CardOutcome = 'saved' | 'failed' | 'pending' | 'done-already' | 'mismatch';

/**
 * Applies the gateway's word on a card-saving payment (fetched by the shop, never taken from a request).
 * Only the card's own payment saves it: its order reference, nothing taken (the amount it was started
 * with), in euros on the shop's own processing account, as an order's or a charge's payment must be
 * (paysInEuros). A card saved on another account (another currency's, another shop's) holds a token
 * this shop's account cannot charge: anything else is a mismatch, and nothing is saved. Counted in
 * storefront_payments_total once `trx` commits (payments-metric.ts): callers open it with inTransaction.
 */
export async function applyCardStatus(
  trx: Db,
  cardTokens: CardTokens,
  card: CardRow,
  status: PaymentStatus,
  now: number,
): Promise<CardOutcome> {
  const outcome = await cardStatusApplied(trx, cardTokens, card, status, now);
  countPaymentStatus(trx, card.gateway, status, 'saved_card', outcome);
  return outcome;
}

async function cardStatusApplied(trx: Db, cardTokens: CardTokens, card: CardRow, status: PaymentStatus, now: number): Promise<CardOutcome> {
  if (!paysInEuros(status, card.order_reference, CARD_CHECK_CENTS)) {
    // The card's own payment, finished, but not one that saves it: declined, so that the customer's next
    // try starts a payment of its own. Left pending, a try within the resubmit window was answered this
    // finished payment's form. A payment of another order reference says nothing of this card.
    if (status.orderReference === card.order_reference && status.state !== 'pending') await declinePendingCard(trx, Number(card.id), now);
    return 'mismatch';
  }
  if (card.state === 'ACTIVE') return 'done-already';
  if (status.state === 'settled' && status.card) {
    // Pending, or declined before the bank approved it after all (a late settle): the card is saved,
    // and is the default when no other saved card is. The client's lock first (then its cards, as
    // every writer of them takes them): two of its cards confirmed at once both saw no default and
    // both became one, and a removal or a new default committed meanwhile went unseen.
    await lockCardOwner(trx, Number(card.client_account_id));
    const hasDefault = (await activeCardsOf(trx, Number(card.client_account_id))).some((other) => other.is_default);
    if (!(await confirmCard(trx, cardTokens, Number(card.id), status.card, !hasDefault, now))) return 'done-already';
    // A subscription left without a card (its card went while no other was left), or retrying a
    // declined renewal, is paid with the card saved next, as the billing-failed mail tells the customer.
    await giveCardToWaiting(trx, Number(card.client_account_id), Number(card.id), now);
    return 'saved';
  }
  if (status.state === 'pending') return 'pending';
  // Declined, cancelled, or settled without a token: nothing to keep but the decline. Only while still
  // pending: `card` may have been read before a callback confirmed it (the shopper's return read a
  // decline, the payment then settled and its callback was applied first), and a saved card is never
  // undone by an older status; a declined one is declined already.
  return (await declinePendingCard(trx, Number(card.id), now)) ? 'failed' : 'done-already';
}

/**
 * The shopper is back: the card's payment is looked up at its gateway and applied. Answers whether the
 * card is saved. The look-up goes through the gateway's pause (payments' look-up-pauses.ts): while the
 * gateway is known to be down it is not asked, and the card stays pending for its callback; before,
 * every return during an outage was a call to the failing gateway, limited only per address.
 */
export async function settleCardReturn(
  db: Kysely<Database>,
  deps: { gateways: Gateways; cardTokens: CardTokens; lookUpPauses: LookUpPauses },
  cardId: number,
  now: number,
): Promise<CardRow | null> {
  const card = await findCard(db, cardId);
  if (!card) return null;
  const gateway = deps.gateways[card.gateway as GatewayName];
  if (card.state === 'PENDING' && card.payment_reference && gateway) {
    const status = await lookUpOnReturn(deps.lookUpPauses, gateway, card.payment_reference);
    // inTransaction: the status applied is counted once it commits (payments-metric.ts).
    if (status) await inTransaction(db, (trx) => applyCardStatus(trx, deps.cardTokens, card, status, now));
  }
  return (await findCard(db, cardId)) ?? null;
}

/**
 * Under the client's lock, as a card's confirmation and removal: one default card, whatever runs at once.
 * A subscription retrying a declined renewal (FAILED), or left without a card, is paid with the card the
 * customer chose, as with one they save (giveCardToWaiting): its retries charged the declined card until it
 * lapsed. The others keep their cards: the default is what new subscriptions are paid with.
 */
export async function setDefaultCard(db: Kysely<Database>, clientAccountId: number, id: number, now: number) {
  return db.transaction().execute(async (trx) => {
    await lockLiveClientAccount(trx, clientAccountId);
    const card = await ownCard(trx, clientAccountId, id);
    if (!card || card.state !== 'ACTIVE') throw notFound('subscriptions.cardNotFound', { id });
    await makeDefault(trx, clientAccountId, id, now);
    await giveCardToWaiting(trx, clientAccountId, id, now);
    return cardWire((await findCard(trx, id))!);
  });
}

/**
 * Removes a saved card; subscriptions that used it move to a card left that is valid for their next renewal (the
 * default card, else the newest such), or to none until one is saved (dropCards). Only a saved (ACTIVE) card, as for
 * making one the default: a card being saved or
 * declined is listed nowhere and is the same 404 as an unknown one. It is left to its gateway's word
 * (a shopper who pays after all has asked for the card, and gets it saved) and to pruning. Under
 * the client's lock: a card confirmed meanwhile is either seen here (and made the default when the
 * removed one was) or sees the removal (and becomes the default itself).
 */
export async function removeCard(db: Kysely<Database>, clientAccountId: number, id: number, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockLiveClientAccount(trx, clientAccountId);
    if (!(await dropSavedCard(trx, clientAccountId, id, now))) throw notFound('subscriptions.cardNotFound', { id });
  });
}

/**
 * A removal's work, under the client's lock (lockCardOwner or lockLiveClientAccount): the client's saved card `id`
 * goes, as dropCards takes cards. Also what a chargeback of a charge made with the card does (billing.apply.ts). False
 * when the client has no such saved card (unknown, another's, not saved, or gone already).
 */
export async function dropSavedCard(trx: Db, clientAccountId: number, id: number, now: number): Promise<boolean> {
  const card = await ownCard(trx, clientAccountId, id);
  if (!card || card.state !== 'ACTIVE') return false;
  await dropCards(trx, clientAccountId, [id], now);
  return true;
}

/**
 * The client's cards `ids` go, under the client's lock. Each subscription that used one moves to the card left that
 * is valid for its next charge (nextChargeAt: a renewal's period end, a retry's time): the default card if it is,
 * else the newest such (activeCardsOf is in id order); none when no card left is, and the existing "no card" rules
 * follow (its renewal fails without a gateway call, the billingFailed mail asks for a new card, and the card the
 * customer saves next is given to it: giveCardToWaiting). Picking the default or the newest whatever its expiry, a
 * card expired and not pruned yet (or expiring before the renewal) was charged and declined. The default is then
 * the default card if it is valid today, else the newest card that is; none when every card left has expired, so
 * that a subscription made without a card named asks for one rather than paying with an expired card. Answers how
 * many cards went.
 */
async function dropCards(trx: Db, clientAccountId: number, ids: number[], now: number): Promise<number> {
  const left = (await activeCardsOf(trx, clientAccountId)).filter((card) => !ids.includes(Number(card.id)));
  const validAt = (at: number) => {
    const valid = left.filter((card) => !cardExpired(card, at));
    return valid.find((card) => card.is_default) ?? valid.at(-1);
  };
  const moves = new Map<number | null, number[]>();
  for (const sub of await subscriptionsOfCards(trx, ids)) {
    const next = validAt(nextChargeAt(sub, now));
    const to = next ? Number(next.id) : null;
    moves.set(to, [...(moves.get(to) ?? []), Number(sub.id)]);
  }
  for (const [to, subscriptionIds] of moves) await setSubscriptionsCard(trx, subscriptionIds, to, now);
  const removed = await deleteCards(trx, ids, now);
  // Cleared when no card left is valid today: an expired default card kept (a removal of the valid one) was what a
  // subscribe without a card named paid with.
  const byDefault = validAt(now);
  if (!byDefault?.is_default) await makeDefault(trx, clientAccountId, byDefault ? Number(byDefault.id) : null, now);
  return removed;
}

/**
 * Maintenance: never-confirmed cards older than a day and expired cards; answers how many went.
 * Under their owners' locks, as a removal, and moved off as a removal moves them (dropCards): a client whose default
 * card goes gets its newest card still usable as the default, and the subscriptions that used a pruned card move to
 * a card valid for their next renewal, or to none. The cards are read again under the locks, so one confirmed or
 * removed meanwhile is seen as it is now.
 */
export async function pruneCards(db: Kysely<Database>, now: number): Promise<number> {
  const candidates = await cardsToPrune(db, now - PENDING_CARD_LIFETIME_MS, now);
  if (candidates.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    await lockCardOwners(trx, [...new Set(candidates.map((card) => card.clientAccountId))]);
    const pruned = await cardsToPrune(
      trx,
      now - PENDING_CARD_LIFETIME_MS,
      now,
      candidates.map((card) => card.id),
    );
    const byOwner = new Map<number, number[]>();
    for (const card of pruned) byOwner.set(card.clientAccountId, [...(byOwner.get(card.clientAccountId) ?? []), card.id]);
    let removed = 0;
    for (const [clientAccountId, ids] of byOwner) removed += await dropCards(trx, clientAccountId, ids, now);
    return removed;
  });
}
