// The SQL of saved cards.
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';
import type { RedirectForm, SavedCard } from '../payments/index.js';
import type { CardTokens } from './card-tokens.js';
import { LIVE } from './subscriptions.repository.js';
import type { SubscriptionCardTable } from './subscriptions.tables.js';

export type CardRow = Selectable<SubscriptionCardTable>;

export function activeCardsOf(db: Db, clientAccountId: number): Promise<CardRow[]> {
  return db
    .selectFrom('subscription_card')
    .selectAll()
    .where('client_account_id', '=', clientAccountId)
    .where('state', '=', 'ACTIVE')
    .orderBy('id')
    .execute();
}

/** One page of the client's saved cards, in the order activeCardsOf reads them (oldest first), and how many there are. */
export async function activeCardsPageOf(
  db: Db,
  clientAccountId: number,
  page: { offset: number; perPage: number },
): Promise<{ rows: CardRow[]; total: number }> {
  const saved = db.selectFrom('subscription_card').where('client_account_id', '=', clientAccountId).where('state', '=', 'ACTIVE');
  const [rows, count] = await Promise.all([
    saved.selectAll().orderBy('id').limit(page.perPage).offset(page.offset).execute(),
    saved.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export function findCard(db: Db, id: number): Promise<CardRow | undefined> {
  return db.selectFrom('subscription_card').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The caller's card; undefined also when it is another client's. */
export async function ownCard(db: Db, clientAccountId: number, id: number): Promise<CardRow | undefined> {
  const card = await findCard(db, id);
  return card && Number(card.client_account_id) === clientAccountId ? card : undefined;
}

export function findCardByPayment(db: Db, gateway: string, reference: string, orderReference: string) {
  return db
    .selectFrom('subscription_card')
    .selectAll()
    .where('gateway', '=', gateway)
    .where((eb) => eb.or([eb('payment_reference', '=', reference), eb('order_reference', '=', orderReference)]))
    .executeTakeFirst();
}

/**
 * Serialises the writers of a client's cards: on PostgreSQL the client account's row is locked for
 * the transaction (`no key update`: rows referencing the account are inserted meanwhile without
 * waiting); SQLite runs one write transaction at a time. Of two starts at once the second sees the
 * card the first committed; a card confirmed, removed or made the default sees the others' default
 * as it is, so a client has one default card. Taken before any of the client's card rows. The
 * client's own requests take the same lock by lockLiveClientAccount (modules/client-account-lock),
 * which refuses an account erased meanwhile; this one is for the gateway's word on a card.
 */
export async function lockCardOwner(trx: Db, clientAccountId: number): Promise<void> {
  await lockCardOwners(trx, [clientAccountId]);
}

/** lockCardOwner for several accounts (a person's, erased at once), in id order. */
export async function lockCardOwners(trx: Db, clientAccountIds: number[]): Promise<void> {
  const query = trx.selectFrom('client_account').select('id').where('id', 'in', clientAccountIds).orderBy('id');
  await lockRowsOnPostgres(trx, query, 'no key update');
}

/** The client's newest card of the store still waiting for its gateway, started at `since` or later. */
export function recentPendingCard(db: Db, clientAccountId: number, storeCode: string, since: number): Promise<CardRow | undefined> {
  return db
    .selectFrom('subscription_card')
    .selectAll()
    .where('client_account_id', '=', clientAccountId)
    .where('store_code', '=', storeCode)
    .where('state', '=', 'PENDING')
    .where('created_at', '>=', since)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertCard(db: Db, row: Insertable<SubscriptionCardTable>): Promise<number> {
  const inserted = await db.insertInto('subscription_card').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/** The card-saving payment its gateway made: its reference, and the redirect form a repeat is answered. */
export async function setPaymentStarted(db: Db, id: number, reference: string, redirect: RedirectForm, now: number): Promise<void> {
  await db
    .updateTable('subscription_card')
    .set({ payment_reference: reference, redirect: JSON.stringify(redirect), updated_at: now })
    .where('id', '=', id)
    .execute();
}

/**
 * Confirms a pending or declined card with what the gateway says of it, its token sealed
 * (card-tokens.ts); false when it was confirmed (or removed) already.
 */
export async function confirmCard(
  db: Db,
  cardTokens: CardTokens,
  id: number,
  card: SavedCard,
  isDefault: boolean,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('subscription_card')
    .set({
      state: 'ACTIVE',
      token: cardTokens.seal(card.token),
      brand: card.brand,
      last_four: card.lastFour,
      expiry_month: card.expiryMonth,
      expiry_year: card.expiryYear,
      is_default: isDefault,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('state', 'in', ['PENDING', 'DECLINED'])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The stored (sealed) token of a card that may be charged: an active card's; null for any other card, or none. */
export function storedTokenToCharge(card: CardRow | undefined): string | null {
  return card?.state === 'ACTIVE' ? card.token : null;
}

/** The gateway's token to charge an active card with; null for a card without one, or whose token does not open (logged). */
export function chargeableToken(cardTokens: CardTokens, card: CardRow | undefined): string | null {
  const stored = storedTokenToCharge(card);
  return stored === null ? null : cardTokens.open(stored, Number(card!.id));
}

/** Up to `limit` cards after `afterId`, in id order, whose token is not sealed under the key that seals now. */
export function cardsWithOtherTokens(db: Db, currentPrefix: string, afterId: number, limit: number) {
  return db
    .selectFrom('subscription_card')
    .select(['id', 'token'])
    .where('id', '>', afterId)
    .where('token', 'is not', null)
    .where(sql<boolean>`substr(token, 1, ${currentPrefix.length}) <> ${currentPrefix}`)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Replaces a card's stored token, unless it changed since it was read (false then). */
export async function replaceToken(db: Db, id: number, read: string, stored: string): Promise<boolean> {
  const result = await db
    .updateTable('subscription_card')
    .set({ token: stored })
    .where('id', '=', id)
    .where('token', '=', read)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function makeDefault(db: Db, clientAccountId: number, id: number | null, now: number): Promise<void> {
  await db
    .updateTable('subscription_card')
    .set({ is_default: false, updated_at: now })
    .where('client_account_id', '=', clientAccountId)
    .where('is_default', '=', true)
    .execute();
  if (id !== null) await db.updateTable('subscription_card').set({ is_default: true, updated_at: now }).where('id', '=', id).execute();
}

/** The subscriptions naming one of the cards `ids` (whatever their status), with what tells when each is charged next. */
export function subscriptionsOfCards(db: Db, ids: number[]) {
  return db
    .selectFrom('subscription')
    .select(['id', 'status', 'period_end', 'next_attempt_at'])
    .where('card_id', 'in', ids.length > 0 ? ids : [-1])
    .orderBy('id')
    .execute();
}

/** Points the subscriptions `subscriptionIds` at card `cardId`, or at none. */
export async function setSubscriptionsCard(db: Db, subscriptionIds: number[], cardId: number | null, now: number): Promise<void> {
  if (subscriptionIds.length === 0) return;
  await db.updateTable('subscription').set({ card_id: cardId, updated_at: now }).where('id', 'in', subscriptionIds).execute();
}

/**
 * Removes cards; a subscription still naming one is left with none (a removal moves them first: dropCards in
 * cards.service.ts).
 */
export async function deleteCards(db: Db, ids: number[], now: number): Promise<number> {
  if (ids.length === 0) return 0;
  await db.updateTable('subscription').set({ card_id: null, updated_at: now }).where('card_id', 'in', ids).execute();
  const result = await db.deleteFrom('subscription_card').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Gives the card `cardId`, just saved or made the default, to the client's live subscriptions that have no card (theirs
 * went while no other was left: a removal, a prune) and to those whose renewal failed (FAILED,
 * retrying): their renewal or its retry charges it. The billing-failed mail asks the customer to save
 * a new card; without this a subscription without one failed every retry and lapsed, and one whose
 * card was declined was retried on the declined card, whatever the customer saved.
 */
export async function giveCardToWaiting(db: Db, clientAccountId: number, cardId: number, now: number): Promise<void> {
  await db
    .updateTable('subscription')
    .set({ card_id: cardId, updated_at: now })
    .where('client_account_id', '=', clientAccountId)
    .where('status', 'in', LIVE)
    .where((eb) => eb.or([eb('card_id', 'is', null), eb('status', '=', 'FAILED')]))
    .execute();
}

/** Marks a card still waiting for its gateway DECLINED; false when it was confirmed, declined (or removed) meanwhile. */
export async function declinePendingCard(db: Db, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('subscription_card')
    .set({ state: 'DECLINED', updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'PENDING')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

// When a saved card has expired, said once for JavaScript (cardExpired) and once for SQL
// (expiredCardSql), beside each other on one cut-off: a card's expiry as a month number
// (year * 12 + month - 1) below the month of `now` (UTC), i.e. its expiry month ended before now.
// test/subscriptions/card-expiry.test.ts pins the two to each other around month and year ends.

/** The month of `now` (UTC) as a month number: the first expiry month a card is still usable in. */
function firstUsableMonth(now: number): number {
  const date = new Date(now);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

/** Whether a saved card's expiry month ended before `now` (UTC). */
export function cardExpired(card: Pick<CardRow, 'expiry_year' | 'expiry_month'>, now: number): boolean {
  return Number(card.expiry_year) * 12 + Number(card.expiry_month) - 1 < firstUsableMonth(now);
}

/** cardExpired in SQL, for a subscription_card row. */
export function expiredCardSql(now: number) {
  return sql<boolean>`subscription_card.expiry_year * 12 + subscription_card.expiry_month - 1 < ${firstUsableMonth(now)}`;
}

export interface PrunableCard {
  id: number;
  clientAccountId: number;
}

/**
 * Cards never confirmed since `pendingBefore` (pending or declined), and confirmed cards whose
 * expiry month ended before `now`; only among `ids` when given (the same cards read again under
 * their owners' locks: one confirmed meanwhile is no longer prunable).
 */
export async function cardsToPrune(db: Db, pendingBefore: number, now: number, ids?: number[]): Promise<PrunableCard[]> {
  let query = db
    .selectFrom('subscription_card')
    .select(['id', 'client_account_id'])
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'PENDING'), eb('created_at', '<', pendingBefore)]),
        eb.and([eb('state', '=', 'DECLINED'), eb('created_at', '<', pendingBefore)]),
        eb.and([eb('state', '=', 'ACTIVE'), expiredCardSql(now)]),
      ]),
    );
  if (ids !== undefined) query = query.where('id', 'in', ids.length > 0 ? ids : [-1]);
  const rows = await query.limit(1000).execute();
  return rows.map((row) => ({ id: Number(row.id), clientAccountId: Number(row.client_account_id) }));
}
