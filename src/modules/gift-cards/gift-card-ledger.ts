import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { addDays, endOfLocalDay, localTime } from '../../infra/shop-time.js';
import type { GiftCardEntryKind, GiftCardHoldState, GiftCardTable } from './gift-cards.tables.js';

// The ledger: every change of a card's money is an entry, written in the same transaction as the
// card's `balance_cents` (the sum of the entries' amount_cents). Money leaves the balance only by
// a conditional update (`balance_cents >= amount`), so racing checkouts cannot overspend a card:
// on PostgreSQL the second update waits for the first's row lock and re-checks the condition, on
// SQLite writers run one at a time. An order's part of a card is a hold whose state moves by
// conditional updates (HELD -> CAPTURED -> REFUNDED, HELD -> RELEASED), so an effect repeated by a
// racing actor or a retried job does nothing the second time.
//
// Money given back to a card (an order's refund, a refused refund's take) must be usable: a card past
// its date or ending within RETURN_VALID_DAYS of the return is given until the end of that many days'
// last day (in Tallinn); a released hold (never spent) gives a card whose date passed while it was
// held the time it had left then. In the same transaction as the credit, and the entry that gives the
// money back records the new date (`extended_to`). The hourly expiry then finds the card
// valid; the back office's import keeps the later of its date and this one (gift-cards.import.ts). A
// voided card (voidCard) is not given more time: its buyer was paid back.

/** The days money given back to a card stays usable at least: the card is valid through the last of them. */
export const RETURN_VALID_DAYS = 30;

/** When a card money goes back to at `now` is valid until at least: the end (in Tallinn) of the RETURN_VALID_DAYS-th day after. */
export const returnValidUntil = (now: number): number => endOfLocalDay(addDays(localTime(now).date, RETURN_VALID_DAYS));

async function addEntry(
  trx: Db,
  entry: {
    cardId: number;
    kind: GiftCardEntryKind;
    amountCents: number;
    heldCents: number;
    orderId: number | null;
    now: number;
    extendedTo?: number | null;
  },
) {
  await trx
    .insertInto('gift_card_entry')
    .values({
      gift_card_id: entry.cardId,
      kind: entry.kind,
      amount_cents: entry.amountCents,
      held_cents: entry.heldCents,
      order_id: entry.orderId,
      extended_to: entry.extendedTo ?? null,
      created_at: entry.now,
    })
    .execute();
}

/** Adds to the balance (never refused). */
async function credit(trx: Db, cardId: number, cents: number, now: number) {
  await trx
    .updateTable('gift_card')
    .set({ balance_cents: sql<number>`balance_cents + ${cents}`, updated_at: now })
    .where('id', '=', cardId)
    .execute();
}

/**
 * Gives money back to the card (never refused), and a card past its date or ending before
 * returnValidUntil(now) that date (a released hold's, `heldSince`: timeLeftWhenHeld), unless voided (voidCard: its order's refund paid the buyer back,
 * so a share that comes back to it later is no one's to spend). Answers the date given, null when
 * the card keeps its own. One transaction with the credit, under the card's row lock on PostgreSQL,
 * so the expiry job's conditional update (on the balance and the date it read) cannot take the money
 * given back.
 */
async function creditBack(trx: Db, cardId: number, cents: number, now: number, heldSince?: number): Promise<number | null> {
  await credit(trx, cardId, cents, now);
  const until = heldSince === undefined ? returnValidUntil(now) : await timeLeftWhenHeld(trx, cardId, heldSince, now);
  if (until === null) return null;
  const moved = await trx
    .updateTable('gift_card')
    .set({ expires_at: until })
    .where('id', '=', cardId)
    .where('expires_at', '<', until)
    // A voided card (the order that bought it was given up: its buyer was paid back) stays expired.
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('virtual_gift_card_purchase')
            .select('order_id')
            .whereRef('virtual_gift_card_purchase.gift_card_id', '=', 'gift_card.id')
            .where('cancelled_at', 'is not', null),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0 ? until : null;
}

/**
 * When a card its released hold's money goes back to is valid until: the money was never spent (the
 * order held it and was given up unpaid), so a card whose date passed while it was held gets back the
 * time it had left when the order held it, from now; null for a card still valid (it lost nothing).
 * No more than that: RETURN_VALID_DAYS on every release would let a card be kept for ever by an order
 * started just before its date and left unpaid, once a month.
 */
async function timeLeftWhenHeld(trx: Db, cardId: number, heldSince: number, now: number): Promise<number | null> {
  const card = await trx.selectFrom('gift_card').select('expires_at').where('id', '=', cardId).executeTakeFirstOrThrow();
  const expiresAt = Number(card.expires_at);
  return expiresAt > now || expiresAt <= heldSince ? null : now + (expiresAt - heldSince);
}

/** Takes from the balance when it covers the sum and the card has not expired; false otherwise. */
async function debit(trx: Db, cardId: number, cents: number, now: number): Promise<boolean> {
  const result = await trx
    .updateTable('gift_card')
    .set({ balance_cents: sql<number>`balance_cents - ${cents}`, updated_at: now })
    .where('id', '=', cardId)
    .where('balance_cents', '>=', cents)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A card to create: every column but the generated ones; a physical card has no sender. */
export type NewCard = Omit<
  GiftCardTable,
  'id' | 'balance_cents' | 'created_at' | 'updated_at' | 'sender_name' | 'undeliverable_at' | 'delivery'
> & {
  sender_name?: string;
};

/** A new card with its first entry (ISSUE for a bought card, IMPORT for a back-office one). */
export async function createCard(trx: Db, card: NewCard, kind: 'ISSUE' | 'IMPORT', now: number): Promise<number> {
  const row = await trx
    .insertInto('gift_card')
    .values({ ...card, balance_cents: card.initial_cents, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const cardId = Number(row.id);
  await addEntry(trx, { cardId, kind, amountCents: card.initial_cents, heldCents: 0, orderId: card.order_id, now });
  return cardId;
}

/** Moves a back-office card's balance by the change of its loaded value (an IMPORT entry). */
export async function adjustImported(trx: Db, cardId: number, deltaCents: number, now: number): Promise<void> {
  await credit(trx, cardId, deltaCents, now);
  await addEntry(trx, { cardId, kind: 'IMPORT', amountCents: deltaCents, heldCents: 0, orderId: null, now });
}

/**
 * What the expiry took off the card and was not given back for it (EXPIRY entries of either sign): 0 for a
 * card the hourly expiry never reached, or whose every lapse the back office's later dates made good.
 */
export async function expiredNotRestored(trx: Db, cardId: number): Promise<number> {
  const row = await trx
    .selectFrom('gift_card_entry')
    .select(sql<number | string | null>`sum(amount_cents)`.as('cents'))
    .where('gift_card_id', '=', cardId)
    .where('kind', '=', 'EXPIRY')
    .executeTakeFirst();
  return Math.max(0, -Number(row?.cents ?? 0));
}

/**
 * Gives a card the back office gave a later date what the expiry took when it lapsed (an EXPIRY entry
 * of the opposite sign): its line says the value is still on it, and had the import come before the
 * hourly expiry, the card would have kept it.
 */
export async function restoreExpired(trx: Db, cardId: number, cents: number, now: number): Promise<void> {
  await credit(trx, cardId, cents, now);
  await addEntry(trx, { cardId, kind: 'EXPIRY', amountCents: cents, heldCents: 0, orderId: null, now });
}

/** Gives a card back what a refund of `orderId` took off it (a VOID entry of the opposite sign): the gateway refused that refund. */
export async function restoreVoided(trx: Db, cardId: number, orderId: number, cents: number, now: number): Promise<void> {
  const extendedTo = await creditBack(trx, cardId, cents, now);
  await addEntry(trx, { cardId, kind: 'VOID', amountCents: cents, heldCents: 0, orderId, now, extendedTo });
}

/** Holds `cents` of the card for the order; false when the balance does not cover it (or it expired). */
export async function reserve(trx: Db, cardId: number, orderId: number, cents: number, now: number): Promise<boolean> {
  if (!(await debit(trx, cardId, cents, now))) return false;
  await trx
    .insertInto('gift_card_hold')
    .values({ gift_card_id: cardId, order_id: orderId, amount_cents: cents, state: 'HELD', created_at: now, updated_at: now })
    .execute();
  await addEntry(trx, { cardId, kind: 'RESERVE', amountCents: -cents, heldCents: cents, orderId, now });
  return true;
}

async function holdsOf(trx: Db, orderId: number, state: GiftCardHoldState) {
  const rows = await trx
    .selectFrom('gift_card_hold')
    .select(['gift_card_id', 'amount_cents', 'created_at'])
    .where('order_id', '=', orderId)
    .where('state', '=', state)
    .orderBy('gift_card_id')
    .execute();
  return rows.map((row) => ({ cardId: Number(row.gift_card_id), cents: Number(row.amount_cents), heldSince: Number(row.created_at) }));
}

/** What the order's cards paid and still have to give back: the sum of its CAPTURED holds. */
export async function capturedCents(trx: Db, orderId: number): Promise<number> {
  return (await holdsOf(trx, orderId, 'CAPTURED')).reduce((sum, hold) => sum + hold.cents, 0);
}

/** Moves a hold from one state to another; false when somebody moved it first. */
async function moveHold(trx: Db, cardId: number, orderId: number, from: GiftCardHoldState, to: GiftCardHoldState, now: number) {
  const moved = await trx
    .updateTable('gift_card_hold')
    .set({ state: to, updated_at: now })
    .where('gift_card_id', '=', cardId)
    .where('order_id', '=', orderId)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}

/**
 * The order is paid: what it holds is taken. Shares given back earlier (the order was given up, then
 * its payment settled late, or the back office reported a FAILED order it has) are taken again, all or
 * none (retakeGivenBack); the reviver then asks hasReleasedHolds and undoes the revival of an order its
 * cards can no longer pay (orders' payment status, the status report).
 */
export async function captureOrder(trx: Db, orderId: number, now: number): Promise<{ short: boolean }> {
  for (const { cardId, cents } of await holdsOf(trx, orderId, 'HELD')) {
    if (await moveHold(trx, cardId, orderId, 'HELD', 'CAPTURED', now))
      await addEntry(trx, { cardId, kind: 'CAPTURE', amountCents: 0, heldCents: -cents, orderId, now });
  }
  return { short: !(await retakeGivenBack(trx, orderId, now)) };
}

/**
 * Takes again what the order's cards got back when it was given up, all or none: true when every
 * hold given back (RELEASED unpaid, REFUNDED after it was paid: a FAILED order) is CAPTURED again (or
 * there was none), false when one card no longer covers its share (spent or expired since), and then
 * no card changes (the ones debited are credited back in the same transaction, before any entry is written).
 */
async function retakeGivenBack(trx: Db, orderId: number, now: number): Promise<boolean> {
  const released = [
    ...(await holdsOf(trx, orderId, 'RELEASED')).map((hold) => ({ ...hold, state: 'RELEASED' as const })),
    ...(await holdsOf(trx, orderId, 'REFUNDED')).map((hold) => ({ ...hold, state: 'REFUNDED' as const })),
  ].sort((a, b) => a.cardId - b.cardId);
  const taken: typeof released = [];
  for (const hold of released) {
    if (!(await debit(trx, hold.cardId, hold.cents, now))) {
      for (const back of taken) await credit(trx, back.cardId, back.cents, now);
      return false;
    }
    taken.push(hold);
  }
  for (const { cardId, cents, state } of taken) {
    await moveHold(trx, cardId, orderId, state, 'CAPTURED', now);
    await addEntry(trx, { cardId, kind: 'RESERVE', amountCents: -cents, heldCents: cents, orderId, now });
    await addEntry(trx, { cardId, kind: 'CAPTURE', amountCents: 0, heldCents: -cents, orderId, now });
  }
  return true;
}

/** Whether shares the order's cards got back (it was given up) are still theirs: a revival's capture could not take them all again. */
export async function hasReleasedHolds(trx: Db, orderId: number): Promise<boolean> {
  return (await holdsOf(trx, orderId, 'RELEASED')).length > 0 || (await holdsOf(trx, orderId, 'REFUNDED')).length > 0;
}

/**
 * The order will not be paid, or its money goes back: held amounts are released (a card whose date
 * passed while held gets the time it had left then), taken ones refunded to the card (a card past or
 * near its date is given RETURN_VALID_DAYS to spend them): creditBack.
 */
export async function giveBackOrder(trx: Db, orderId: number, now: number): Promise<void> {
  for (const { cardId, cents, heldSince } of await holdsOf(trx, orderId, 'HELD')) {
    if (!(await moveHold(trx, cardId, orderId, 'HELD', 'RELEASED', now))) continue;
    const extendedTo = await creditBack(trx, cardId, cents, now, heldSince);
    await addEntry(trx, { cardId, kind: 'RELEASE', amountCents: cents, heldCents: -cents, orderId, now, extendedTo });
  }
  for (const { cardId, cents } of await holdsOf(trx, orderId, 'CAPTURED')) {
    if (!(await moveHold(trx, cardId, orderId, 'CAPTURED', 'REFUNDED', now))) continue;
    const extendedTo = await creditBack(trx, cardId, cents, now);
    await addEntry(trx, { cardId, kind: 'REFUND', amountCents: cents, heldCents: 0, orderId, now, extendedTo });
  }
}

/**
 * Cards past their expiry keep nothing: each one's balance goes to zero with an EXPIRY entry (a
 * conditional update on the balance read and the date, so a card given money back or a later date
 * meanwhile keeps its value: a return gives a card past its date RETURN_VALID_DAYS more, creditBack).
 * Returns how many cards expired.
 */
export async function expireCards(db: Db, now: number, limit = 500): Promise<number> {
  const due = await db
    .selectFrom('gift_card')
    .select(['id', 'balance_cents'])
    .where('expires_at', '<=', now)
    .where('balance_cents', '>', 0)
    .limit(limit)
    .execute();
  let expired = 0;
  for (const card of due) {
    const cents = Number(card.balance_cents);
    await db.transaction().execute(async (trx) => {
      const done = await trx
        .updateTable('gift_card')
        .set({ balance_cents: 0, updated_at: now })
        .where('id', '=', card.id)
        .where('balance_cents', '=', cents)
        // Still past its date: the back office may have given it a later one since the read.
        .where('expires_at', '<=', now)
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) === 0) return;
      await addEntry(trx, { cardId: Number(card.id), kind: 'EXPIRY', amountCents: -cents, heldCents: 0, orderId: null, now });
      expired += 1;
    });
  }
  return expired;
}

/** A bought card whose order was refunded or cancelled: what is left comes off (VOID) and it expires now. */
export async function voidCard(trx: Db, cardId: number, orderId: number, now: number): Promise<void> {
  // Read under the card's row lock (an update that changes nothing): read unlocked, on PostgreSQL a
  // checkout spending the card between the read and the write below left the card unvoided, and the
  // share it held came back later onto a card that could be spent again.
  const card = await trx
    .updateTable('gift_card')
    .set((eb) => ({ balance_cents: eb.ref('balance_cents') }))
    .where('id', '=', cardId)
    .returning('balance_cents')
    .executeTakeFirst();
  if (!card) return;
  const cents = Number(card.balance_cents);
  const done = await trx
    .updateTable('gift_card')
    .set({ balance_cents: 0, expires_at: now, updated_at: now })
    .where('id', '=', cardId)
    .where('balance_cents', '=', cents)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) > 0 && cents > 0)
    await addEntry(trx, { cardId, kind: 'VOID', amountCents: -cents, heldCents: 0, orderId, now });
}
