import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockedOnPostgres } from '../../db/row-lock.js';
import type { CustomerOrderTable, OrderLineTable, OrderStatus } from './orders.tables.js';

// The orders module's SQL for orders, their lines and history (stock: stock.repository.ts).

export type OrderRow = Selectable<CustomerOrderTable>;
export type OrderLineRow = Selectable<OrderLineTable>;

export async function insertOrder(trx: Db, row: Insertable<CustomerOrderTable>): Promise<number> {
  const inserted = await trx.insertInto('customer_order').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

export async function setOrderCode(trx: Db, orderId: number, code: string): Promise<void> {
  await trx.updateTable('customer_order').set({ code }).where('id', '=', orderId).execute();
}

export async function insertOrderLines(trx: Db, lines: Array<Insertable<OrderLineTable>>): Promise<void> {
  if (lines.length > 0) await trx.insertInto('order_line').values(lines).execute();
}

export function findOrderByIdempotencyKey(db: Db, scope: string, key: string) {
  return db
    .selectFrom('customer_order')
    .select(['id', 'request_hash'])
    .where('idempotency_scope', '=', scope)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** The id of the discount code the order counted a use of; null when it has none (or the code was deleted). */
export async function discountCodeOf(db: Db, orderId: number): Promise<number | null> {
  const row = await db.selectFrom('customer_order').select('discount_code_id').where('id', '=', orderId).executeTakeFirst();
  const codeId = row?.discount_code_id;
  return codeId === null || codeId === undefined ? null : Number(codeId);
}

export function findOrderByBasketVersion(db: Db, basketId: number, version: number) {
  return db
    .selectFrom('customer_order')
    .select(['id', 'code', 'created_at', 'request_hash'])
    .where('basket_id', '=', basketId)
    .where('basket_version_after', '=', version)
    .executeTakeFirst();
}

/**
 * Locks the order's row until the transaction ends on PostgreSQL and answers its status (undefined
 * for no such order), read under the lock, so that it stays true until commit: two transactions
 * that each read it and then moved it took turns only at the update, and the second went on from
 * what it had read before.
 */
export async function lockOrder(trx: Db, orderId: number): Promise<OrderStatus | undefined> {
  const row = await lockedOnPostgres(trx, trx.selectFrom('customer_order').select('status').where('id', '=', orderId)).executeTakeFirst();
  return row?.status;
}

/**
 * The order's updated_at for a change stamped `now`: `now`, or the row's own when that is later. A
 * change's stamp is taken when its writer starts (a job, a request), so one may commit after another
 * change of the order that was stamped later; taking its earlier stamp moved the order back in the
 * operators' feed (by updated_at), and its document's updatedAt went back past a copy already shown.
 */
export const updatedAtFrom = (now: number) => sql<number>`case when updated_at > ${now} then updated_at else ${now} end`;

/**
 * Marks the order changed now without a status change: what its document shows changed (its payment's
 * state or refunded sum), so the operators' feed of orders changed since a time (updated_at) has it.
 */
export async function touchOrder(trx: Db, orderId: number, now: number): Promise<void> {
  await trx
    .updateTable('customer_order')
    .set({ updated_at: updatedAtFrom(now) })
    .where('id', '=', orderId)
    .execute();
}

export async function findOrder(db: Db, orderId: number): Promise<OrderRow | undefined> {
  const row = await db.selectFrom('customer_order').selectAll().where('id', '=', orderId).executeTakeFirst();
  return row && normaliseOrder(row);
}

export async function findOrderByCode(db: Db, code: string): Promise<OrderRow | undefined> {
  const row = await db.selectFrom('customer_order').selectAll().where('code', '=', code).executeTakeFirst();
  return row && normaliseOrder(row);
}

export async function orderLines(db: Db, orderId: number): Promise<OrderLineRow[]> {
  const rows = await db.selectFrom('order_line').selectAll().where('order_id', '=', orderId).orderBy('position').execute();
  return rows.map((row) => ({ ...row, order_id: Number(row.order_id), product_id: Number(row.product_id) }));
}

/**
 * The order's newest `limit` status changes, oldest first, and whether it has older ones. Read newest
 * first along order_status_change_order_idx (order_id, id), one more than asked: an order costs at
 * most `limit + 1` entries however many changes it has.
 */
export async function latestStatusChanges(db: Db, orderId: number, limit: number) {
  const rows = await db
    .selectFrom('order_status_change')
    .select(['from_status', 'to_status', 'cause', 'created_at'])
    .where('order_id', '=', orderId)
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return { changes: rows.slice(0, limit).reverse(), olderOmitted: rows.length > limit };
}

/** The order's latest payment attempt. */
export function latestPayment(db: Db, orderId: number) {
  return db.selectFrom('order_payment').selectAll().where('order_id', '=', orderId).orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** The order's payment attempts started since `since`: how many, and when the first of them started. */
export async function paymentAttemptsSince(db: Db, orderId: number, since: number): Promise<{ count: number; firstAt: number | null }> {
  const row = await db
    .selectFrom('order_payment')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('created_at').as('first_at')])
    .where('order_id', '=', orderId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), firstAt: row.first_at === null ? null : Number(row.first_at) };
}

/** PostgreSQL gives int8 columns as strings; every id and time here is a number. */
export function normaliseOrder(row: OrderRow): OrderRow {
  const num = (value: number | null) => (value === null ? null : Number(value));
  return {
    ...row,
    id: Number(row.id),
    client_account_id: num(row.client_account_id),
    status_changed_at: Number(row.status_changed_at),
    basket_id: num(row.basket_id),
    delivery_method_id: Number(row.delivery_method_id),
    parcel_machine_id: num(row.parcel_machine_id),
    discount_code_id: num(row.discount_code_id),
    handed_off_at: num(row.handed_off_at),
    nav_created_at: num(row.nav_created_at),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

/** A client's contact data as their account has it (a business client's address is the company's). */
export async function savedContact(db: Db, clientAccountId: number) {
  const row = await db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .leftJoin('company', 'company.id', 'client_account.company_id')
    .select([
      'app_user.first_name',
      'app_user.last_name',
      'app_user.email',
      'app_user.phone',
      'company.street',
      'company.city',
      'company.postcode',
      'company.country_code',
    ])
    .where('client_account.id', '=', clientAccountId)
    .executeTakeFirst();
  if (!row) return undefined;
  const name = [row.first_name, row.last_name].filter((part) => part).join(' ');
  return {
    name: name === '' ? null : name,
    email: row.email,
    phone: row.phone,
    address: row.street,
    city: row.city,
    postcode: row.postcode,
    countryNavCode: row.country_code,
  };
}
