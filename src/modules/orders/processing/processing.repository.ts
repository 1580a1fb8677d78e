import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Db } from '../../../db/database.js';
import { lockedOnPostgres } from '../../../db/row-lock.js';
import type { Database } from '../../../db/schema.js';
import { updatedAtFrom } from '../orders.repository.js';
import type { CustomerOrderTable, OrderLineTable, OrderPaymentTable, OrderStatus } from '../orders.tables.js';

// The SQL of order processing, the sweep and the operators' order endpoints.

export type OrderRow = Selectable<CustomerOrderTable> & { client_code: string | null };
export type LineRow = Selectable<OrderLineTable>;
export type PaymentRow = Selectable<OrderPaymentTable>;

const orderWithClient = (db: Db) =>
  db
    .selectFrom('customer_order')
    .leftJoin('client_account', 'client_account.id', 'customer_order.client_account_id')
    .selectAll('customer_order')
    .select('client_account.code as client_code');

export function findOrder(db: Db, orderId: number): Promise<OrderRow | undefined> {
  return orderWithClient(db).where('customer_order.id', '=', orderId).executeTakeFirst();
}

export function findOrderByCode(db: Db, code: string): Promise<OrderRow | undefined> {
  return orderWithClient(db).where('customer_order.code', '=', code).executeTakeFirst();
}

export function linesOf(db: Db, orderIds: readonly number[]): Promise<LineRow[]> {
  if (orderIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('order_line').selectAll().where('order_id', 'in', orderIds).orderBy('order_id').orderBy('position').execute();
}

/**
 * The order's status, when it last changed and when it was placed, read under the order's row lock on
 * PostgreSQL (taken until the transaction ends, as lockOrder's), so that they stay true until commit.
 */
export function lockedStatusOf(trx: Db, orderId: number) {
  return lockedOnPostgres(
    trx,
    trx
      .selectFrom('customer_order')
      .select(['status', 'status_changed_at', 'created_at', 'payment_method', 'total_cents'])
      .where('id', '=', orderId),
  )
    .executeTakeFirst()
    .then(
      (row) =>
        row && {
          ...row,
          status_changed_at: Number(row.status_changed_at),
          created_at: Number(row.created_at),
          total_cents: Number(row.total_cents),
        },
    );
}

/** The order's payments, newest first. */
export function paymentsOf(db: Db, orderIds: readonly number[]): Promise<PaymentRow[]> {
  if (orderIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('order_payment').selectAll().where('order_id', 'in', orderIds).orderBy('id', 'desc').execute();
}

export async function setHandedOff(trx: Db, orderId: number, now: number): Promise<void> {
  await trx
    .updateTable('customer_order')
    .set({ handed_off_at: now, updated_at: updatedAtFrom(now) })
    .where('id', '=', orderId)
    .execute();
}

export async function setNavStatus(trx: Db, orderId: number, status: string, createdAt: number, now: number): Promise<void> {
  await trx
    .updateTable('customer_order')
    .set({ nav_status: status, nav_created_at: createdAt, updated_at: updatedAtFrom(now) })
    .where('id', '=', orderId)
    .execute();
}

/**
 * Orders after (`at`, `id`) in (`column`, id) order. The cursor's own lower bound comes first, so the
 * index range starts at the cursor: with the OR alone it began at the oldest order, and each batch or
 * page read again what the ones before had.
 */
function after(
  eb: ExpressionBuilder<Database, 'customer_order'>,
  column: 'customer_order.status_changed_at' | 'customer_order.created_at' | 'customer_order.updated_at',
  at: number,
  id: number,
) {
  return eb.and([eb(column, '>=', at), eb.or([eb(column, '>', at), eb('customer_order.id', '>', id)])]);
}

/** Where a sweep's walk goes on: after the order last read, by (its time, id). */
export interface SweepCursor {
  at: number;
  id: number;
}

/** The time a sweep ages orders of a status by: their last status change, or their checkout. */
export type SweepClock = 'status_changed_at' | 'created_at';

/**
 * A batch of orders in `status` whose `clock` is before `before`, after `cursor` in (`clock`, id)
 * order: served by customer_order_status_idx (status, status_changed_at) or
 * customer_order_status_created_idx (status, created_at), never the whole table.
 */
export async function ordersInStatusSince(
  db: Db,
  status: OrderStatus,
  clock: SweepClock,
  before: number,
  cursor: SweepCursor | undefined,
  limit: number,
): Promise<Array<{ id: number; at: number }>> {
  let query = db
    .selectFrom('customer_order')
    .select(['id', `${clock} as at`])
    .where('status', '=', status)
    .where(clock, '<', before)
    .orderBy(clock)
    .orderBy('id')
    .limit(limit);
  if (cursor) query = query.where((eb) => after(eb, `customer_order.${clock}`, cursor.at, cursor.id));
  const rows = await query.execute();
  return rows.map((row) => ({ id: Number(row.id), at: Number(row.at) }));
}

/**
 * A batch of CANCELLED orders given up at or after `since` that have a payment the gateway made still
 * open ('pending') in the shop's rows, last asked about (its updated_at) before `askedBefore`, after
 * `cursor` in (status_changed_at, id) order: a range of customer_order_status_idx (status,
 * status_changed_at) from `since`, each order's payments by order_payment_order_idx.
 */
export async function givenUpWithOpenPayment(
  db: Db,
  since: number,
  askedBefore: number,
  cursor: SweepCursor | undefined,
  limit: number,
): Promise<Array<{ id: number; at: number }>> {
  let query = db
    .selectFrom('customer_order')
    .select(['customer_order.id', 'customer_order.status_changed_at as at'])
    .where('customer_order.status', '=', 'CANCELLED')
    .where('customer_order.status_changed_at', '>=', since)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('order_payment')
          .select('order_payment.id')
          .whereRef('order_payment.order_id', '=', 'customer_order.id')
          .where('order_payment.state', '=', 'pending')
          .where('order_payment.reference', 'is not', null)
          .where('order_payment.updated_at', '<', askedBefore),
      ),
    )
    .orderBy('customer_order.status_changed_at')
    .orderBy('customer_order.id')
    .limit(limit);
  if (cursor) query = query.where((eb) => after(eb, 'customer_order.status_changed_at', cursor.at, cursor.id));
  const rows = await query.execute();
  return rows.map((row) => ({ id: Number(row.id), at: Number(row.at) }));
}

/** Where a walk of the feed goes on: after the order last read, by (updated_at, id). */
export interface FeedCursor {
  updatedAt: number;
  id: number;
}

/**
 * One page of the operators' feed: orders with a code updated at or after `since`, by (updated_at, id),
 * from `offset`, or after `cursor` (a range of customer_order_updated_idx from the cursor on), changed
 * no later than `until` (the settled changes: ORDER_FEED_SETTLE_MS). The total counts what the filter
 * finds from the same place.
 */
export async function feedPage(
  db: Db,
  since: number,
  page: { offset: number; limit: number; cursor?: FeedCursor; until?: number },
): Promise<{ rows: OrderRow[]; total: number }> {
  const { cursor } = page;
  const inFeed = (eb: ExpressionBuilder<Database, 'customer_order'>) =>
    eb.and([
      eb('customer_order.updated_at', '>=', since),
      ...(page.until === undefined ? [] : [eb('customer_order.updated_at', '<=', page.until)]),
      eb('customer_order.code', 'is not', null),
      ...(cursor ? [after(eb, 'customer_order.updated_at', cursor.updatedAt, cursor.id)] : []),
    ]);
  const [rows, count] = await Promise.all([
    orderWithClient(db)
      .where(inFeed)
      .orderBy('customer_order.updated_at')
      .orderBy('customer_order.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('customer_order')
      .where(inFeed)
      .select((eb) => eb.fn.countAll().as('count'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.count) };
}
