import { sql } from 'kysely';
import type { Db } from '../../../db/database.js';
import { toRfc3339 } from '../../../db/time.js';
import { isPostgres } from '../../../db/row-lock.js';
import { accountIdsOf, type PersonalDataPart } from '../../../infra/personal-data.js';
import { PICKUP_KINDS } from './pickup.repository.js';

// The feedback requests' SQL (feedback-request.ts): the scan's keyset walk over completed client
// orders not yet asked about, and the claim of one order and of its person's monthly ask.

/** A completed order the scan may ask about, and whose it is. */
export interface DueOrder {
  id: number;
  clientAccountId: number;
  userId: number;
  completedAt: number;
}

/** Where the last page ended: the walk's order is (status_changed_at, id). */
export interface DueCursor {
  completedAt: number;
  id: number;
}

/** Whether the person (user) was asked about any order of any of their accounts after `since`. */
const askedSince = (userId: ReturnType<typeof sql.ref> | number, since: number) => sql<boolean>`exists (
  select 1 from client_account ra join order_feedback_request r on r.client_account_id = ra.id
  where ra.user_id = ${userId} and r.requested_at > ${since})`;

/**
 * Client orders COMPLETED in (`completedAfter`, `completedBy`] and not asked about, after `cursor` in
 * the walk's order: a range of customer_order_status_idx (status, status_changed_at). Left out with
 * the same look-ups, so that an hourly scan does not claim them again and again: accounts not ACTIVE,
 * users without the newsletter flag (the first half of the EMAIL consent; profile's rule decides at the
 * claim), people asked since `askedAfter`, and pickup orders not collected yet.
 */
export async function dueOrders(
  db: Db,
  window: { completedAfter: number; completedBy: number; askedAfter: number },
  cursor: DueCursor | undefined,
  limit: number,
): Promise<DueOrder[]> {
  // Cross joins: SQLite then walks the orders first, in the index's order; PostgreSQL plans them as inner joins.
  let query = db
    .selectFrom('customer_order as o')
    .crossJoin('client_account as ca')
    .crossJoin('app_user as u')
    .select(['o.id', 'o.client_account_id', 'o.status_changed_at', 'ca.user_id'])
    .whereRef('ca.id', '=', 'o.client_account_id')
    .whereRef('u.id', '=', 'ca.user_id')
    .where('o.status', '=', 'COMPLETED')
    .where('o.status_changed_at', '>', window.completedAfter)
    .where('o.status_changed_at', '<=', window.completedBy)
    .where('ca.status', '=', 'ACTIVE')
    .where('u.newsletter', '=', sql.lit(true))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('order_feedback_request as r').select(sql.lit(1).as('one')).whereRef('r.order_id', '=', 'o.id'))),
    )
    .where(sql<boolean>`not ${askedSince(sql.ref('ca.user_id'), window.askedAfter)}`)
    .where(({ or, eb, exists, selectFrom }) =>
      or([
        eb('o.delivery_kind', 'not in', PICKUP_KINDS),
        exists(
          selectFrom('order_pickup as pk')
            .select(sql.lit(1).as('one'))
            .whereRef('pk.order_id', '=', 'o.id')
            .where('pk.collected_at', 'is not', null),
        ),
      ]),
    );
  if (cursor) query = query.where((eb) => eb(eb.refTuple('o.status_changed_at', 'o.id'), '>', eb.tuple(cursor.completedAt, cursor.id)));
  const rows = await query.orderBy('o.status_changed_at').orderBy('o.id').limit(limit).execute();
  return rows.map((row) => ({
    id: Number(row.id),
    clientAccountId: Number(row.client_account_id),
    userId: Number(row.user_id),
    completedAt: Number(row.status_changed_at),
  }));
}

/**
 * Claims the order's ask, in the caller's transaction: false when the client's account is not active,
 * the person (any of their accounts) was asked since `askedAfter`, or the order was claimed already.
 * The person's row is locked first on PostgreSQL (SQLite's write lock does the same), so two scans at
 * once ask a person once, whichever of their orders each reached.
 */
export async function claimFeedbackRequest(trx: Db, order: DueOrder, now: number, askedAfter: number): Promise<boolean> {
  const person = trx.selectFrom('app_user').select('id').where('id', '=', order.userId);
  await (isPostgres(trx) ? person.forNoKeyUpdate() : person).execute();
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
