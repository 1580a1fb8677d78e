import { sql, type Selectable } from 'kysely';
import type { Db } from '../../../db/database.js';
import type { OrderRefundTable, RefundState } from '../orders.tables.js';

// The operators' refunds of a payment (order_refund): each recorded before the gateway is asked.

export type RefundRow = Selectable<OrderRefundTable>;

/** The payment's refund that is at the gateway or whose answer was lost, if any (one at most). */
export function unresolvedRefundOf(db: Db, paymentId: number): Promise<RefundRow | undefined> {
  return db
    .selectFrom('order_refund')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('state', 'in', ['sending', 'unknown'])
    .executeTakeFirst();
}

/** The payment's refund an operator sent under this Idempotency-Key, if any. */
export function refundByRequestKey(db: Db, paymentId: number, requestKey: string): Promise<RefundRow | undefined> {
  return db
    .selectFrom('order_refund')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('request_key', '=', requestKey)
    .executeTakeFirst();
}

/** The payment's last refund made since `since` of this sum (null: all), whether or not it was asked under a key. */
export function refundedSince(db: Db, paymentId: number, requestedCents: number | null, since: number): Promise<RefundRow | undefined> {
  return db
    .selectFrom('order_refund')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('requested_cents', requestedCents === null ? 'is' : '=', requestedCents)
    .where('state', '=', 'refunded')
    .where('created_at', '>', since)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertRefund(trx: Db, refund: Omit<RefundRow, 'id' | 'updated_at'>): Promise<RefundRow> {
  return trx
    .insertInto('order_refund')
    .values({ ...refund, updated_at: refund.created_at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Moves a refund from the state (and last change) it was read in; false when someone else moved it
 * meanwhile. Taking an `unknown` refund back to `sending` is how one retry claims its resolution.
 */
export async function moveRefund(
  db: Db,
  refund: Pick<RefundRow, 'id' | 'state' | 'updated_at'>,
  to: RefundState,
  now: number,
): Promise<boolean> {
  const moved = await db
    .updateTable('order_refund')
    .set({ state: to, updated_at: now })
    .where('id', '=', refund.id)
    .where('state', '=', refund.state)
    .where('updated_at', '=', refund.updated_at)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) > 0;
}

/**
 * What the shop's refunds of a payment took off the gift cards the order bought, of those the gateway
 * made between two of its refunded sums: a refund records the sum refunded before it was asked. A
 * refund the gateway refused took nothing (what it took was given back to the cards).
 */
export async function cardShareOfRefunds(db: Db, paymentId: number, refundedFrom: number, refundedTo: number): Promise<number> {
  const row = await db
    .selectFrom('order_refund')
    .select(sql<number | string | null>`sum(card_cents)`.as('cents'))
    .where('payment_id', '=', paymentId)
    .where('state', '<>', 'refused')
    .where('refunded_before_cents', '>=', refundedFrom)
    .where('refunded_before_cents', '<', refundedTo)
    .executeTakeFirst();
  return Number(row?.cents ?? 0);
}
