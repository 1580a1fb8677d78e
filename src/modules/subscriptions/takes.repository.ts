// The SQL of what subscriptions give (subscription_take), and the one definition of "a take gives
// access now" that the downloads module reads through index.ts.
import { sql, type Expression, type ExpressionBuilder, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { visibleProduct, type Caller } from '../catalogue/index.js';
import { lockingSubscriptions, type SubscriptionRow } from './subscriptions.repository.js';
import type { SubscriptionTable, SubscriptionTakeTable, TakeKind } from './subscriptions.tables.js';

export type TakeRow = Selectable<SubscriptionTakeTable>;

/** The key that keeps a product held once per subscription. */
export const heldKey = (subscriptionId: number, productId: number) => `${subscriptionId}:${productId}`;

/**
 * The caller's subscription, locked for the rest of the transaction, so two takes of one
 * subscription count its credits and shelf one after the other. Undefined for another client's.
 */
export async function lockOwnSubscription(trx: Db, clientAccountId: number, id: number): Promise<SubscriptionRow | undefined> {
  return lockingSubscriptions(trx).where('id', '=', id).where('client_account_id', '=', clientAccountId).returningAll().executeTakeFirst();
}

export interface TakeableProduct {
  id: number;
  type: string;
  download: boolean;
}

/**
 * A product the caller sees in the store and the store sells now (not coming soon, not out of
 * print), with its type and whether it is delivered as a download; undefined otherwise.
 */
export async function takeableProduct(db: Db, storeCode: string, caller: Caller, productId: number): Promise<TakeableProduct | undefined> {
  const row = await db
    .selectFrom('product as p')
    .select(['p.id', 'p.type', 'p.delivery_time'])
    .where('p.id', '=', productId)
    .where(visibleProduct(storeCode, caller))
    .where('p.availability', 'not in', ['PERMANENTLY_OUT_OF_STOCK', 'COMING_SOON'])
    .executeTakeFirst();
  return row && { id: Number(row.id), type: row.type, download: row.delivery_time === 'INSTANT_DOWNLOAD' };
}

export function heldTake(db: Db, subscriptionId: number, productId: number): Promise<TakeRow | undefined> {
  return db.selectFrom('subscription_take').selectAll().where('held_key', '=', heldKey(subscriptionId, productId)).executeTakeFirst();
}

/** Credits used in one period of the subscription: its takes of that period that used one. */
export async function creditsUsed(db: Db, subscriptionId: number, periodNumber: number): Promise<number> {
  const row = await db
    .selectFrom('subscription_take')
    .select((eb) => eb.fn.countAll<number | string>().as('used'))
    .where('subscription_id', '=', subscriptionId)
    .where('period_number', '=', periodNumber)
    .where('used_credit', '=', true)
    .executeTakeFirstOrThrow();
  return Number(row.used);
}

/**
 * How many products the subscription holds now (an e-book shelf's books; the total of its list): a
 * count over subscription_take_held_idx, which holds only held takes.
 */
export async function heldCount(db: Db, subscriptionId: number): Promise<number> {
  const row = await db
    .selectFrom('subscription_take')
    .select((eb) => eb.fn.countAll<number | string>().as('held'))
    .where('subscription_id', '=', subscriptionId)
    .where('held_key', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.held);
}

/**
 * One page of what the subscription holds now (audiobooks stay for good, so this grows every
 * month; e-books until taken off the shelf), newest first, with the product's code and name: a
 * range of subscription_take_held_idx, in its order.
 */
export function heldItemsPage(db: Db, subscriptionId: number, slice: { offset: number; perPage: number }) {
  return db
    .selectFrom('subscription_take as t')
    .innerJoin('product as p', 'p.id', 't.product_id')
    .select(['t.id', 't.product_id', 'p.code', 'p.name', 't.kind', 't.used_credit', 't.period_number', 't.created_at'])
    .where('t.subscription_id', '=', subscriptionId)
    .where('t.held_key', 'is not', null)
    .orderBy('t.created_at', 'desc')
    .orderBy('t.id', 'desc')
    .limit(slice.perPage)
    .offset(slice.offset)
    .execute();
}

export async function insertTake(
  trx: Db,
  sub: SubscriptionRow,
  take: { productId: number; kind: TakeKind; usedCredit: boolean },
  now: number,
): Promise<number> {
  const row = await trx
    .insertInto('subscription_take')
    .values({
      subscription_id: Number(sub.id),
      client_account_id: Number(sub.client_account_id),
      store_code: sub.store_code,
      product_id: take.productId,
      kind: take.kind,
      period_number: sub.period_number,
      used_credit: take.usedCredit,
      held_key: heldKey(Number(sub.id), take.productId),
      created_at: now,
      returned_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Takes a held product back (an e-book off the shelf); false when it was not held. */
export async function returnTake(trx: Db, subscriptionId: number, productId: number, now: number): Promise<boolean> {
  const result = await trx
    .updateTable('subscription_take')
    .set({ held_key: null, returned_at: now })
    .where('held_key', '=', heldKey(subscriptionId, productId))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The takes that give access now, as a query other modules compose (downloads lists and checks
 * them): `take_id`, `product_id`, `taken_at`. A take gives access while it is held (an e-book not
 * taken off the shelf; an audiobook always) and its subscription lasts: TRIAL or ACTIVE, and a
 * cancelled one only until its period's end; FAILED too (a renewal is being retried: access goes
 * on); never PENDING, LAPSED or ENDED.
 */
export function accessibleTakes(db: Db, owner: { clientAccountId: number; storeCode?: string; takeId?: number }, now: number) {
  let query = db
    .selectFrom('subscription_take as t')
    .innerJoin('subscription as s', 's.id', 't.subscription_id')
    .select(['t.id as take_id', 't.product_id as product_id', 't.created_at as taken_at'])
    .where('t.client_account_id', '=', owner.clientAccountId)
    .where('t.held_key', 'is not', null)
    .where((eb) => lasting(eb, now));
  if (owner.storeCode !== undefined) query = query.where('t.store_code', '=', owner.storeCode);
  if (owner.takeId !== undefined) query = query.where('t.id', '=', owner.takeId);
  return query;
}

/**
 * The subscription `subscriptionId` (an expression of the caller's query, such as a column), when
 * it gives access now to what was taken with it (the rule of accessibleTakes): a query to wrap in
 * EXISTS, one look-up by primary key. The downloads list keeps its held takes and asks this as it reads.
 */
export function subscriptionGivingAccess(db: Db, subscriptionId: Expression<number | null>, now: number) {
  return db
    .selectFrom('subscription as s')
    .select(sql.lit(1).as('one'))
    .where('s.id', '=', subscriptionId)
    .where((eb) => lasting(eb, now));
}

/** The subscription `s` lasts now: TRIAL or ACTIVE (a cancelled one until its period's end), or FAILED. */
function lasting(eb: ExpressionBuilder<{ s: SubscriptionTable }, 's'>, now: number) {
  return eb.or([
    eb('s.status', '=', 'FAILED'),
    eb.and([eb('s.status', 'in', ['TRIAL', 'ACTIVE']), eb.or([eb('s.cancel_at_period_end', '=', false), eb('s.period_end', '>', now)])]),
  ]);
}
