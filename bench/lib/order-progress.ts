import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import type { OrderStatus } from '../../src/modules/orders/orders.tables.js';

// Where the benchmark's orders are: read from the service's database as an operator would, so the
// time an order reached a status is the one the service recorded (order_status_change).

const CHUNK = 500;

function chunks<T>(values: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += CHUNK) out.push(values.slice(i, i + CHUNK));
  return out;
}

/** How many of `orderIds` are in one of `statuses` now. */
export async function countInStatus(db: Kysely<Database>, orderIds: readonly number[], statuses: OrderStatus[]): Promise<number> {
  let count = 0;
  for (const ids of chunks(orderIds)) {
    const row = await db
      .selectFrom('customer_order')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('id', 'in', ids)
      .where('status', 'in', statuses)
      .executeTakeFirstOrThrow();
    count += Number(row.n);
  }
  return count;
}

/** Polls until all of `orderIds` are in one of `statuses` or `timeoutMs` passes; answers how many got there. */
export async function waitForStatus(
  db: Kysely<Database>,
  orderIds: readonly number[],
  statuses: OrderStatus[],
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const count = await countInStatus(db, orderIds, statuses);
    if (count === orderIds.length || Date.now() > deadline) return count;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The earliest and latest time (ms) any of `orderIds` moved to `status`. */
export async function statusTimes(
  db: Kysely<Database>,
  orderIds: readonly number[],
  status: OrderStatus,
): Promise<{ first: number; last: number }> {
  let first = Infinity;
  let last = -Infinity;
  for (const ids of chunks(orderIds)) {
    const row = await db
      .selectFrom('order_status_change')
      .select((eb) => [eb.fn.min('created_at').as('first'), eb.fn.max('created_at').as('last')])
      .where('order_id', 'in', ids)
      .where('to_status', '=', status)
      .executeTakeFirstOrThrow();
    if (row.first !== null) first = Math.min(first, Number(row.first));
    if (row.last !== null) last = Math.max(last, Number(row.last));
  }
  return { first, last };
}
