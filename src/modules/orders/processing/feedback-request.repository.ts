import { sql } from 'kysely';
import type { Db } from '../../../db/database.js';
import { toRfc3339 } from '../../../db/time.js';
import { accountIdsOf, type PersonalDataPart } from '../../../infra/personal-data.js';
import { lockClientAccountsOfUser } from '../../client-account-lock/index.js';
import { PICKUP_KINDS } from './pickup.repository.js';

// The feedback requests' SQL (feedback-request.ts): the scan's two keyset walks (delivered orders by
// completion, pickup orders by collection) over client orders not yet asked about, and the claim of
// one order and of its person's monthly ask.

/** An order the scan may ask about, whose it is, and its walk's key (completed, or for a pickup collected). */
export interface DueOrder {
  id: number;
  clientAccountId: number;
  userId: number;
  dueFrom: number;
}

/** Where the last page of a walk ended: its order is (its time, the order's id). */
export interface DueCursor {
  dueFrom: number;
  id: number;
}

export interface DueWindow {
  /** The walk's time in (after, by]. */
  after: number;
  by: number;
  /** A person asked after this is not asked again. */
  askedAfter: number;
}

/** Whether the person (user) was asked about any order of any of their accounts after `since`. */
const askedSince = (userId: ReturnType<typeof sql.ref> | number, since: number) => sql<boolean>`exists (
  select 1 from client_account ra join order_feedback_request r on r.client_account_id = ra.id
  where ra.user_id = ${userId} and r.requested_at > ${since})`;

/**
 * What both walks leave out with the same look-ups (orders `o`, accounts `ca`, users `u`), so that an
 * hourly scan does not claim them again and again: orders asked about already, accounts
 * not ACTIVE, users without the newsletter flag (the first half of the EMAIL consent; profile's rule
 * decides at the claim) and people asked since the window's `askedAfter`.
 */
const askable = (window: DueWindow) => sql<boolean>`ca.id = o.client_account_id
  and u.id = ca.user_id and ca.status = 'ACTIVE' and u.newsletter = ${sql.lit(true)}
  and not exists (select 1 from order_feedback_request r where r.order_id = o.id)
  and not ${askedSince(sql.ref('ca.user_id'), window.askedAfter)}`;

/**
 * Orders delivered (not collected in a shop) COMPLETED in the window, after `cursor` in the walk's order:
 * a range of customer_order_status_idx (status, status_changed_at).
 */
export async function dueShippedOrders(db: Db, window: DueWindow, cursor: DueCursor | undefined, limit: number): Promise<DueOrder[]> {
  // Cross joins: SQLite then walks the orders first, in the index's order; PostgreSQL plans them as inner joins.
  let query = db
    .selectFrom('customer_order as o')
    .crossJoin('client_account as ca')
    .crossJoin('app_user as u')
    .select(['o.id', 'o.client_account_id', 'ca.user_id', 'o.status_changed_at as due_from'])
    .where('o.status', '=', 'COMPLETED')
    .where('o.status_changed_at', '>', window.after)
    .where('o.status_changed_at', '<=', window.by)
    .where('o.delivery_kind', 'not in', PICKUP_KINDS)
    .where(askable(window));
  if (cursor) query = query.where((eb) => eb(eb.refTuple('o.status_changed_at', 'o.id'), '>', eb.tuple(cursor.dueFrom, cursor.id)));
  return dueRows(await query.orderBy('o.status_changed_at').orderBy('o.id').limit(limit).execute());
}

/** Pickup orders collected in the window, after `cursor` in the walk's order: a range of order_pickup_collected_idx. */
export async function dueCollectedOrders(db: Db, window: DueWindow, cursor: DueCursor | undefined, limit: number): Promise<DueOrder[]> {
  let query = db
    .selectFrom('order_pickup as pk')
    .crossJoin('customer_order as o')
    .crossJoin('client_account as ca')
    .crossJoin('app_user as u')
    .select(['o.id', 'o.client_account_id', 'ca.user_id', 'pk.collected_at as due_from'])
    .whereRef('o.id', '=', 'pk.order_id')
    .where('o.status', '=', 'COMPLETED')
    .where('pk.collected_at', '>', window.after)
    .where('pk.collected_at', '<=', window.by)
    .where(askable(window));
  if (cursor) query = query.where((eb) => eb(eb.refTuple('pk.collected_at', 'pk.order_id'), '>', eb.tuple(cursor.dueFrom, cursor.id)));
  return dueRows(await query.orderBy('pk.collected_at').orderBy('pk.order_id').limit(limit).execute());
}

function dueRows(rows: Array<{ id: number; client_account_id: number | null; user_id: number; due_from: number | null }>): DueOrder[] {
  return rows.map((row) => ({
    id: Number(row.id),
    clientAccountId: Number(row.client_account_id),
    userId: Number(row.user_id),
    dueFrom: Number(row.due_from),
  }));
}

/**
 * Claims the order's ask, in the caller's transaction: false when the client's account is not active,
 * the person (any of their accounts) was asked since `askedAfter`, or the order was claimed already.
 * The person's accounts are locked first on PostgreSQL, as every writer of a client's data locks them
 * (client-account-lock; SQLite's write lock does the same): two scans at once ask a person once,
 * whichever of their orders each reached, and an erasure either deletes the ask or is waited for.
 */
export async function claimFeedbackRequest(trx: Db, order: DueOrder, now: number, askedAfter: number): Promise<boolean> {
  await lockClientAccountsOfUser(trx, order.userId);
  if (!(await isActiveClientAccount(trx, order.clientAccountId))) return false;
  const asked = await sql<{ asked: unknown }>`select ${askedSince(order.userId, askedAfter)} as asked`.execute(trx);
  if (isTrue(asked.rows[0]?.asked)) return false;
  const claimed = await trx
    .insertInto('order_feedback_request')
    .values({ order_id: order.id, client_account_id: order.clientAccountId, requested_at: now })
    .onConflict((oc) => oc.column('order_id').doNothing())
    .returning('order_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** A boolean as either engine answers it (SQLite 0/1, PostgreSQL true/false). */
const isTrue = (value: unknown) => value === true || value === 1;

/** Whether the client's account is active (the mail job's check when it sends). */
export async function isActiveClientAccount(db: Db, clientAccountId: number): Promise<boolean> {
  const account = await db.selectFrom('client_account').select('status').where('id', '=', clientAccountId).executeTakeFirst();
  return account?.status === 'ACTIVE';
}

/** The orders a person was asked to rate, and when (export); the rows go with the person (erasure). */
export const feedbackRequestPersonalData: PersonalDataPart = {
  name: 'feedbackRequests',
  async export(db, subject) {
    const ids = accountIdsOf(subject);
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('order_feedback_request as r')
      .innerJoin('customer_order as o', 'o.id', 'r.order_id')
      .select(['o.code', 'r.requested_at'])
      .where('r.client_account_id', 'in', ids)
      .orderBy('r.requested_at')
      .execute();
    return rows.map((row) => ({ order: row.code, requestedAt: toRfc3339(Number(row.requested_at)) }));
  },
  async erase(trx, subject) {
    const ids = accountIdsOf(subject);
    if (ids.length > 0) await trx.deleteFrom('order_feedback_request').where('client_account_id', 'in', ids).execute();
  },
};
