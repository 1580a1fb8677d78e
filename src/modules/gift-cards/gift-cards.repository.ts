import type { Kysely } from 'kysely';
import type { DatabaseHandle, Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';

// The gift cards' reads and the basket's list of cards (SQL only; the ledger's writes are in
// gift-card-ledger.ts).

export async function findCardByHmac(db: Db, codeHmac: string) {
  return db
    .selectFrom('gift_card')
    .select(['id', 'code_hint', 'kind', 'initial_cents', 'balance_cents', 'expires_at'])
    .where('code_hmac', '=', codeHmac)
    .executeTakeFirst();
}

export interface BasketCard {
  cardId: number;
  hint: string;
  balanceCents: number;
  expiresAt: number;
  /** The balance the shopper saw (basket_gift_card.seen_balance_cents); null: none recorded. */
  seenBalanceCents: number | null;
}

/** Reads the cards on a basket, in the order they were added, on `db` (a transaction or the database). */
export type BasketCardsReader = (db: Db, basketId: number) => Promise<BasketCard[]>;

const basketCardRows = (db: Kysely<Database>, basketId: number) =>
  db
    .selectFrom('basket_gift_card')
    .innerJoin('gift_card', 'gift_card.id', 'basket_gift_card.gift_card_id')
    .select([
      'gift_card.id',
      'gift_card.code_hint',
      'gift_card.balance_cents',
      'gift_card.expires_at',
      'basket_gift_card.seen_balance_cents',
    ])
    .where('basket_gift_card.basket_id', '=', basketId)
    .orderBy('basket_gift_card.added_at')
    .orderBy('gift_card.id');

type BasketCardRow = Awaited<ReturnType<ReturnType<typeof basketCardRows>['execute']>>[number];

const toBasketCards = (rows: readonly BasketCardRow[]): BasketCard[] =>
  rows.map((row) => ({
    cardId: Number(row.id),
    hint: row.code_hint,
    balanceCents: Number(row.balance_cents),
    expiresAt: Number(row.expires_at),
    seenBalanceCents: row.seen_balance_cents === null ? null : Number(row.seen_balance_cents),
  }));

/** The cards on a basket, built by Kysely per call (where no database handle is at hand). */
export const basketCards: BasketCardsReader = async (db, basketId) => toBasketCards(await basketCardRows(db, basketId).execute());

/**
 * The same read compiled once: every basket answer asks it (most baskets hold no card), and
 * building and compiling the query cost several times what running it does.
 */
export function preparedBasketCards(handle: DatabaseHandle): BasketCardsReader {
  const rows = preparedQuery(handle, (db, basketId: number) => basketCardRows(db, basketId));
  return async (db, basketId) => toBasketCards(await rows.on(db, basketId));
}

/** Puts the card on the basket with the balance the answer shows; again, it records that balance as seen. */
export async function attachCard(trx: Db, basketId: number, cardId: number, balanceCents: number, now: number): Promise<void> {
  await trx
    .insertInto('basket_gift_card')
    .values({ basket_id: basketId, gift_card_id: cardId, added_at: now, seen_balance_cents: balanceCents })
    .onConflict((oc) => oc.columns(['basket_id', 'gift_card_id']).doUpdateSet({ seen_balance_cents: balanceCents }))
    .execute();
}

/** Records the balances the basket's cards have now as the ones its shopper has seen. */
export async function recordSeenBalances(db: Db, basketId: number): Promise<void> {
  await db
    .updateTable('basket_gift_card')
    .set((eb) => ({
      seen_balance_cents: eb
        .selectFrom('gift_card')
        .select('gift_card.balance_cents')
        .whereRef('gift_card.id', '=', 'basket_gift_card.gift_card_id'),
    }))
    .where('basket_id', '=', basketId)
    .execute();
}

export async function detachCard(trx: Db, basketId: number, cardId: number): Promise<boolean> {
  const result = await trx
    .deleteFrom('basket_gift_card')
    .where('basket_id', '=', basketId)
    .where('gift_card_id', '=', cardId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function detachAllCards(trx: Db, basketId: number): Promise<void> {
  await trx.deleteFrom('basket_gift_card').where('basket_id', '=', basketId).execute();
}

/** How many cards are on the basket, `otherThan` left out. */
export async function countBasketCards(trx: Db, basketId: number, otherThan: number): Promise<number> {
  const row = await trx
    .selectFrom('basket_gift_card')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('basket_id', '=', basketId)
    .where('gift_card_id', '!=', otherThan)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * One page of the virtual cards a client bought (any store) or received (sent to its login email
 * and mailed), newest first, with how many there are in all. The email comes from the profile module
 * and is null while the user has not confirmed it: the cards sent to an unconfirmed address are its
 * owner's.
 */
export async function cardsOfClientPage(db: Db, clientAccountId: number, email: string | null, slice: { offset: number; perPage: number }) {
  const base = db
    .selectFrom('gift_card')
    .where('kind', '=', 'VIRTUAL')
    .where((eb) =>
      eb.or([
        eb('buyer_client_account_id', '=', clientAccountId),
        ...(email === null ? [] : [eb.and([eb('recipient_email', '=', email), eb('mailed_at', 'is not', null)])]),
      ]),
    );
  const [rows, count] = await Promise.all([
    base
      .select([
        'id',
        'code_hint',
        'initial_cents',
        'balance_cents',
        'expires_at',
        'buyer_client_account_id',
        'recipient_name',
        'recipient_email',
        'message',
        'deliver_at',
        'mailed_at',
        'undeliverable_at',
        'created_at',
      ])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(slice.perPage)
      .offset(slice.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}
