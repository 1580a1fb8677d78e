import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { restoreVoided } from './gift-card-ledger.js';

// What a refund of an order may give back of the gift cards the order bought. Money spent from them
// (held or taken by other orders, net of what those gave back) was the buyer's to use and is never
// paid back; what is left on them goes back only by being taken off the cards first, so it cannot be
// refunded and spent as well.

export interface BoughtCardsValue {
  /** Spent from the cards: reserved or captured by orders, less what was released or refunded to them. */
  spentCents: number;
  /** Still on the cards, spendable. */
  unspentCents: number;
}

const boughtCards = (trx: Db, orderId: number) =>
  trx.selectFrom('virtual_gift_card_purchase').select('gift_card_id').where('order_id', '=', orderId).where('gift_card_id', 'is not', null);

/** The spent and unspent value of the cards the order bought (issued ones; none issued: both 0). */
export async function boughtCardsValue(trx: Db, orderId: number): Promise<BoughtCardsValue> {
  const [spent, unspent] = await Promise.all([
    trx
      .selectFrom('gift_card_entry')
      .select(sql<number | string | null>`sum(amount_cents)`.as('cents'))
      .where('gift_card_id', 'in', boughtCards(trx, orderId))
      .where('kind', 'in', ['RESERVE', 'RELEASE', 'REFUND'])
      .executeTakeFirst(),
    trx
      .selectFrom('gift_card')
      .select(sql<number | string | null>`sum(balance_cents)`.as('cents'))
      .where('id', 'in', boughtCards(trx, orderId))
      .executeTakeFirst(),
  ]);
  return { spentCents: -Number(spent?.cents ?? 0), unspentCents: Number(unspent?.cents ?? 0) };
}

/** What refunds of the order took off the cards it bought, net of what refused refunds gave back. */
export async function takenOffBoughtCards(db: Db, orderId: number): Promise<number> {
  const row = await db
    .selectFrom('gift_card_entry')
    .select(sql<number | string | null>`sum(amount_cents)`.as('cents'))
    .where('gift_card_id', 'in', boughtCards(db, orderId))
    .where('kind', '=', 'VOID')
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  return -Number(row?.cents ?? 0);
}

/**
 * Takes `cents` off the balances of the cards the order bought (VOID entries), in the caller's
 * transaction, before a refund pays that value back. Each take is a conditional update of the
 * balance read, so a card spent meanwhile is read again. Answers what could not be taken (the cards
 * were spent meanwhile): the caller refuses the refund and rolls this back.
 */
export async function takeOffBoughtCards(trx: Db, orderId: number, cents: number, now: number): Promise<number> {
  let left = cents;
  for (let round = 0; left > 0 && round < 3; round += 1) {
    const cards = await trx
      .selectFrom('gift_card')
      .select(['id', 'balance_cents'])
      .where('id', 'in', boughtCards(trx, orderId))
      .where('balance_cents', '>', 0)
      .orderBy('id')
      .execute();
    if (cards.length === 0) break;
    for (const card of cards) {
      const take = Math.min(left, Number(card.balance_cents));
      if (take === 0) break;
      const done = await trx
        .updateTable('gift_card')
        .set({ balance_cents: sql<number>`balance_cents - ${take}`, updated_at: now })
        .where('id', '=', card.id)
        .where('balance_cents', '>=', take)
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) === 0) continue;
      await trx
        .insertInto('gift_card_entry')
        .values({ gift_card_id: Number(card.id), kind: 'VOID', amount_cents: -take, held_cents: 0, order_id: orderId, created_at: now })
        .execute();
      left -= take;
    }
  }
  return left;
}

/**
 * Gives back to the cards the order bought what takeOffBoughtCards took off them for a refund the
 * gateway refused (VOID entries of the opposite sign), in the caller's transaction: nothing was paid
 * back. Each card gets back its own part of the take (its VOID entries written at `takenAt`, the
 * refund's time): an order may buy cards for several people, and the whole sum put back on its first
 * card gave that one more than it was bought for and left the others short.
 */
export async function restoreBoughtCards(trx: Db, orderId: number, cents: number, takenAt: number, now: number): Promise<void> {
  if (cents <= 0) return;
  const taken = await trx
    .selectFrom('gift_card_entry')
    .select(['gift_card_id', 'amount_cents'])
    .where('order_id', '=', orderId)
    .where('kind', '=', 'VOID')
    .where('amount_cents', '<', 0)
    .where('created_at', '=', takenAt)
    .where('gift_card_id', 'in', boughtCards(trx, orderId))
    .orderBy('gift_card_id')
    .execute();
  let left = cents;
  for (const entry of taken) {
    const back = Math.min(left, -Number(entry.amount_cents));
    if (back <= 0) break;
    await restoreVoided(trx, Number(entry.gift_card_id), orderId, back, now);
    left -= back;
  }
  if (left <= 0) return;
  // A take this cannot find by its time: the rest goes back to the first card the order's refunds took from.
  const card = await trx
    .selectFrom('gift_card_entry')
    .select('gift_card_id')
    .where('order_id', '=', orderId)
    .where('kind', '=', 'VOID')
    .where('gift_card_id', 'in', boughtCards(trx, orderId))
    .orderBy('id')
    .executeTakeFirst();
  if (card) await restoreVoided(trx, Number(card.gift_card_id), orderId, left, now);
}
