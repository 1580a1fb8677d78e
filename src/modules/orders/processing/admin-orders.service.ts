import type { Db } from '../../../db/database.js';
import { underSavepoint } from '../../../db/savepoint.js';
import { conflict, DomainError, notFound } from '../../../infra/domain-error.js';
import type { Logger } from '../../../infra/logger.js';
import { setSaleCreatedNavByOrder } from '../../data-export/index.js';
import { hasReleasedHolds, voidedBoughtCards } from '../../gift-cards/index.js';
import { moveOrder, PAID } from '../order-states.js';
import type { RevivalRefusalReason } from '../orders.tables.js';
import { mainPayment, orderDocument, type OrderDocument } from './order-document.js';
import { recordRevivalRefusal } from './revival-refusals.repository.js';
import {
  feedPage,
  findOrderByCode,
  type FeedCursor,
  linesOf,
  paymentsOf,
  setHandedOff,
  setNavStatus,
  type OrderRow,
} from './processing.repository.js';

// The operators' side of orders: the pull feed, the back office's report of its own order time and
// status (refunds: order-refunds.ts).

/**
 * One page of orders updated at or after `since`, oldest change first, each as the hand-off sends it: from
 * `offset`, or after `cursor`; `next` is where a full page's walk goes on.
 */
export async function orderFeed(
  db: Db,
  since: number,
  page: { offset: number; limit: number; cursor?: FeedCursor; until?: number },
): Promise<{ orders: OrderDocument[]; total: number; next: FeedCursor | undefined }> {
  const { rows, total } = await feedPage(db, since, page);
  const last = rows.length === page.limit ? rows[rows.length - 1] : undefined;
  const next = last && { updatedAt: Number(last.updated_at), id: Number(last.id) };
  const ids = rows.map((row) => Number(row.id));
  const [lines, payments] = await Promise.all([linesOf(db, ids), paymentsOf(db, ids)]);
  const orders = rows.map((row) =>
    orderDocument(
      row,
      lines.filter((line) => Number(line.order_id) === Number(row.id)),
      mainPayment(payments.filter((payment) => Number(payment.order_id) === Number(row.id))),
    ),
  );
  return { orders, total, next };
}

export async function orderOf(db: Db, code: string): Promise<OrderRow> {
  const order = await findOrderByCode(db, code);
  if (!order) throw notFound('orders.notFound', { code: code.slice(0, 40) });
  return order;
}

/** The 409 of a report that cannot revive a FAILED order, with what its record needs. */
class RevivalRefused extends DomainError {
  constructor(
    readonly orderId: number,
    readonly reason: RevivalRefusalReason,
    code: string,
  ) {
    super('conflict', `orders.${reason}`, { code });
  }
}

/**
 * reportNavStatus in a transaction of its own. A refused revival rolls that transaction back, so it is
 * recorded after it, in a write of its own (order_revival_refusal: `order revivals --refused`, /metrics):
 * the back office may have shipped the order, and a 409 to it and a line in the log were all that was left.
 */
export async function reportNavStatusOf(
  db: Db,
  code: string,
  input: { status: string; createdAt: number },
  now: number,
  log?: Pick<Logger, 'warn'>,
): Promise<OrderDocument> {
  try {
    return await db.transaction().execute((trx) => reportNavStatus(trx, code, input, now, log));
  } catch (error) {
    // The 409 says "do not ship" whether or not the record is written: a failed write must not turn it
    // into a 500, which a back office may take for "try again".
    if (error instanceof RevivalRefused)
      await recordRevivalRefusal(db, { orderId: error.orderId, reason: error.reason, reportedStatus: input.status, at: now }).catch(
        (err: unknown) => log?.warn({ err, orderId: error.orderId }, 'orders: a refused revival was not recorded'),
      );
    throw error;
  }
}

/**
 * The back office's own order time and status. It has the order, so an order still waiting for
 * the hand-off (PROCESSING, PENDING_NAV_PROCESSING) is COMPLETED; the data export's row gets the
 * back office's time as createdNav. An unpaid order is refused: the back office cannot have it. The
 * same status and time reported again write nothing.
 *
 * A processed order the sweep failed (stuck in processing: the hand-off reached the back office, only
 * its answer was lost) had its effects given back: its gift cards' shares, its discount code's use,
 * its downloads. The report revives it, COMPLETED, taking them all again (order-states.ts); when they
 * cannot all be (its cards were spent since, or the cards it bought were voided) nothing changes, the
 * order stays FAILED, and the report is a 409 that says why (logged, and recorded for the operators by reportNavStatusOf): the
 * back office must not ship what the shop gave back.
 */
export async function reportNavStatus(
  trx: Db,
  code: string,
  input: { status: string; createdAt: number },
  now: number,
  log?: Pick<Logger, 'warn'>,
) {
  const order = await orderOf(trx, code);
  if (!PAID.includes(order.status) && order.status !== 'FAILED' && order.status !== 'CANCELLED')
    throw conflict('orders.notPaid', { code, status: order.status });
  if (order.status === 'CANCELLED' && order.handed_off_at === null && order.nav_status === null) {
    // A cancelled order that was never paid either (released unpaid) is refused the same way.
    const payments = await paymentsOf(trx, [order.id]);
    if (!payments.some((payment) => payment.state === 'settled' || payment.state === 'refunded'))
      throw conflict('orders.notPaid', { code, status: order.status });
  }
  // The same report again (a retry of one whose answer was lost) changes nothing: the order keeps
  // its updated_at, so it answers as the first did and the feed does not hand it over again.
  const sameReport = order.nav_status === input.status && order.nav_created_at !== null && Number(order.nav_created_at) === input.createdAt;
  const cause = `back office reported its status ${input.status}`.slice(0, 200);
  let revived = false;
  if (order.status === 'FAILED' && (await failedAfterProcessing(trx, order.id))) {
    const outcome = await reviveFailed(trx, order.id, cause, now);
    if (outcome !== 'revived' && outcome !== 'moved meanwhile') {
      log?.warn(
        { orderId: order.id, code, reported: input.status, reason: outcome },
        'back office reported a FAILED order that cannot be revived',
      );
      throw new RevivalRefused(order.id, outcome, code);
    }
    revived = outcome === 'revived';
  }
  if (!sameReport) await setNavStatus(trx, order.id, input.status, input.createdAt, now);
  const completed = await moveOrder(trx, {
    orderId: order.id,
    from: ['PROCESSING', 'PENDING_NAV_PROCESSING'],
    to: 'COMPLETED',
    cause,
    now,
  });
  if ((completed || revived) && order.handed_off_at === null) await setHandedOff(trx, order.id, now);
  await setSaleCreatedNavByOrder(trx, code, input.createdAt, now);
  return documentOf(trx, code);
}

/** Whether the FAILED order was processed first: failed from PROCESSING or PENDING_NAV_PROCESSING, its stock sold. */
async function failedAfterProcessing(trx: Db, orderId: number): Promise<boolean> {
  const failed = await trx
    .selectFrom('order_status_change')
    .select('from_status')
    .where('order_id', '=', orderId)
    .where('to_status', '=', 'FAILED')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return failed?.from_status === 'PROCESSING' || failed?.from_status === 'PENDING_NAV_PROCESSING';
}

/**
 * FAILED -> COMPLETED with everything FAILED gave back taken again: 'revived', 'moved meanwhile' (no
 * longer FAILED under its lock: refunded since), otherwise the message key of why not, and nothing
 * changed. As a late settle's revival (payment-status.service.ts), the move learns whether the gift
 * cards still cover their shares only when it reaches them, last in the lock order, so it runs under
 * a savepoint and is undone when they do not.
 */
async function reviveFailed(
  trx: Db,
  orderId: number,
  cause: string,
  now: number,
): Promise<'revived' | 'moved meanwhile' | RevivalRefusalReason> {
  // Read before the move: nothing takes a voided card back.
  if ((await voidedBoughtCards(trx, orderId)) > 0) return 'reviveBoughtCardsVoided';
  return underSavepoint(trx, async () => {
    if (!(await moveOrder(trx, { orderId, from: 'FAILED', to: 'COMPLETED', cause, now })))
      return { keep: true, result: 'moved meanwhile' as const };
    if (await hasReleasedHolds(trx, orderId)) return { keep: false, result: 'reviveCardsShort' as const };
    return { keep: true, result: 'revived' as const };
  });
}

export async function documentOf(db: Db, code: string): Promise<OrderDocument> {
  const order = await orderOf(db, code);
  const [lines, payments] = await Promise.all([linesOf(db, [order.id]), paymentsOf(db, [order.id])]);
  return orderDocument(order, lines, mainPayment(payments));
}
