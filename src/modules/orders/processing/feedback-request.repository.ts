import { sql } from 'kysely';
import type { Db } from '../../../db/database.js';
import { isPostgres } from '../../../db/row-lock.js';

// The feedback requests' SQL (feedback-request.ts): the scan's keyset walk over completed client
// orders not yet asked about, and the claim of one order and of its client's monthly ask.

/** A completed order the scan may ask about, and whose it is. */
export interface DueOrder {
  id: number;
  clientAccountId: number;
  completedAt: number;
}

/** Where the last page ended: the walk's order is (status_changed_at, id). */
export interface DueCursor {
  completedAt: number;
  id: number;
}

/**
 * Client orders COMPLETED in (`completedAfter`, `completedBy`] and not asked about, after `cursor`
 * in the walk's order: a range of customer_order_status_idx (status, status_changed_at).
 */
export async function dueOrders(
  db: Db,
  window: { completedAfter: number; completedBy: number },
  cursor: DueCursor | undefined,
  limit: number,
): Promise<DueOrder[]> {
  let query = db
    .selectFrom('customer_order as o')
    .select(['o.id', 'o.client_account_id', 'o.status_changed_at'])
    .where('o.status', '=', 'COMPLETED')
    .where('o.status_changed_at', '>', window.completedAfter)
    .where('o.status_changed_at', '<=', window.completedBy)
    .where('o.client_account_id', 'is not', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('order_feedback_request as r').select(sql.lit(1).as('one')).whereRef('r.order_id', '=', 'o.id'))),
    );
  if (cursor) query = query.where((eb) => eb(eb.refTuple('o.status_changed_at', 'o.id'), '>', eb.tuple(cursor.completedAt, cursor.id)));
  const rows = await query.orderBy('o.status_changed_at').orderBy('o.id').limit(limit).execute();
  return rows.map((row) => ({
    id: Number(row.id),
    clientAccountId: Number(row.client_account_id),
    completedAt: Number(row.status_changed_at),
  }));
}

/**
 * Claims the order's ask, in the caller's transaction: false when the client's account is not active,
 * the client was asked since `askedSince`, or the order was claimed already. The account's row is
 * locked first on PostgreSQL (SQLite's write lock does the same), so two scans at once ask a person once.
 */
export async function claimFeedbackRequest(trx: Db, order: DueOrder, now: number, askedSince: number): Promise<boolean> {
  const query = trx.selectFrom('client_account').select('status').where('id', '=', order.clientAccountId);
  const account = await (isPostgres(trx) ? query.forNoKeyUpdate() : query).executeTakeFirst();
  if (account?.status !== 'ACTIVE') return false;
  const recent = await trx
    .selectFrom('order_feedback_request')
    .select('order_id')
    .where('client_account_id', '=', order.clientAccountId)
    .where('requested_at', '>', askedSince)
    .limit(1)
    .executeTakeFirst();
  if (recent) return false;
  const claimed = await trx
    .insertInto('order_feedback_request')
    .values({ order_id: order.id, client_account_id: order.clientAccountId, requested_at: now })
    .onConflict((oc) => oc.column('order_id').doNothing())
    .returning('order_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** Whether the client's account is active (the mail job's check when it sends). */
export async function isActiveClientAccount(db: Db, clientAccountId: number): Promise<boolean> {
  const account = await db.selectFrom('client_account').select('status').where('id', '=', clientAccountId).executeTakeFirst();
  return account?.status === 'ACTIVE';
}
