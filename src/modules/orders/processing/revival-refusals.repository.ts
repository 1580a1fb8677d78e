import type { Kysely } from 'kysely';
import type { Db } from '../../../db/database.js';
import { rowsByIdPages } from '../../../db/id-pages.js';
import type { Database } from '../../../db/schema.js';
import { toIsoTimestamp } from '../../../db/time.js';
import type { RevivalRefusalReason } from '../orders.tables.js';

// The order_revival_refusal table's SQL: the durable record of a back-office report that could not
// revive a FAILED order (admin-orders.service.ts). A 409 to the back office and a warning in the log
// were all there was, and the back office may have shipped the order: the operators list these to
// settle them (`order revivals --refused`), and /metrics counts them.

const PAGE = 500;

/** Records a refused report in a write of its own: the report's transaction was rolled back. */
export async function recordRevivalRefusal(
  db: Db,
  refusal: { orderId: number; reason: RevivalRefusalReason; reportedStatus: string; at: number },
): Promise<void> {
  const { orderId, reason, reportedStatus, at } = refusal;
  await db
    .insertInto('order_revival_refusal')
    .values({ order_id: orderId, reason, reported_status: reportedStatus, reports: 1, first_at: at, last_at: at })
    .onConflict((conflict) =>
      conflict.column('order_id').doUpdateSet((eb) => ({
        reason,
        reported_status: reportedStatus,
        reports: eb('order_revival_refusal.reports', '+', 1),
        last_at: at,
      })),
    )
    .execute();
}

/** An order `order revivals --refused` prints: still FAILED, its revival refused. */
export interface RevivalRefusalLine {
  orderId: number;
  orderCode: string | null;
  /** The 409's message key: reviveCardsShort or reviveBoughtCardsVoided. */
  reason: RevivalRefusalReason;
  /** The back office's status in the last refused report (Shipped: it has sent the goods). */
  reportedStatus: string;
  reports: number;
  firstRefusedAt: string;
  lastRefusedAt: string;
}

const stillFailed = (db: Db) =>
  db
    .selectFrom('order_revival_refusal')
    .innerJoin('customer_order', 'customer_order.id', 'order_revival_refusal.order_id')
    .where('customer_order.status', '=', 'FAILED');

/** Every order still FAILED whose revival was refused, in order id order (oldest first), a page at a time. */
export async function* revivalRefusals(db: Kysely<Database>): AsyncGenerator<RevivalRefusalLine> {
  const pageAfter = (afterId: number) =>
    stillFailed(db)
      .select([
        'order_revival_refusal.order_id as id',
        'customer_order.code',
        'order_revival_refusal.reason',
        'order_revival_refusal.reported_status',
        'order_revival_refusal.reports',
        'order_revival_refusal.first_at',
        'order_revival_refusal.last_at',
      ])
      .where('order_revival_refusal.order_id', '>', afterId)
      .orderBy('order_revival_refusal.order_id')
      .limit(PAGE)
      .execute();
  for await (const row of rowsByIdPages(pageAfter, PAGE)) {
    yield {
      orderId: Number(row.id),
      orderCode: row.code,
      reason: row.reason,
      reportedStatus: row.reported_status,
      reports: Number(row.reports),
      firstRefusedAt: toIsoTimestamp(Number(row.first_at)),
      lastRefusedAt: toIsoTimestamp(Number(row.last_at)),
    };
  }
}

/** How many orders are still FAILED after a refused revival: the /metrics gauge. */
export async function revivalRefusalCount(db: Db): Promise<number> {
  const row = await stillFailed(db)
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
