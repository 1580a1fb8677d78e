import type { Kysely } from 'kysely';
import { inTransaction } from '../../../db/after-commit.js';
import type { Db } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';
import { conflict, DomainError, invalidField, notFound } from '../../../infra/domain-error.js';
import { setSaleCreatedNavByOrder } from '../../data-export/index.js';
import { capturedCents } from '../../gift-cards/index.js';
import { GatewayRefusedError, GatewayUnavailableError, type GatewayName } from '../../payments/index.js';
import { moveOrder, PAID } from '../order-states.js';
import { applyPaymentStatus } from '../payment-status.service.js';
import { mainPayment, orderDocument, type OrderDocument } from './order-document.js';
import type { Gateways } from '../../payments/index.js';
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
// status, and refunds through the order's gateway.

/**
 * One page of orders updated at or after `since`, oldest change first, each as the hand-off sends it: from
 * `offset`, or after `cursor`; `next` is where a full page's walk goes on.
 */
export async function orderFeed(
  db: Db,
  since: number,
  page: { offset: number; limit: number; cursor?: FeedCursor },
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

async function orderOf(db: Db, code: string): Promise<OrderRow> {
  const order = await findOrderByCode(db, code);
  if (!order) throw notFound('orders.notFound', { code: code.slice(0, 40) });
  return order;
}

/**
 * The back office's own order time and status. It has the order, so an order still waiting for
 * the hand-off (PROCESSING, PENDING_NAV_PROCESSING) is COMPLETED; the data export's row gets the
 * back office's time as createdNav. An unpaid order is refused: the back office cannot have it.
 */
export async function reportNavStatus(trx: Db, code: string, input: { status: string; createdAt: number }, now: number) {
  const order = await orderOf(trx, code);
  if (!PAID.includes(order.status) && order.status !== 'FAILED' && order.status !== 'CANCELLED')
    throw conflict('orders.notPaid', { code, status: order.status });
  if (order.status === 'CANCELLED' && order.handed_off_at === null && order.nav_status === null) {
    // A cancelled order that was never paid either (released unpaid) is refused the same way.
    const payments = await paymentsOf(trx, [order.id]);
    if (!payments.some((payment) => payment.state === 'settled' || payment.state === 'refunded'))
      throw conflict('orders.notPaid', { code, status: order.status });
  }
  await setNavStatus(trx, order.id, input.status, input.createdAt, now);
  const completed = await moveOrder(trx, {
    orderId: order.id,
    from: ['PROCESSING', 'PENDING_NAV_PROCESSING'],
    to: 'COMPLETED',
    cause: `back office reported its status ${input.status}`.slice(0, 200),
    now,
  });
  if (completed && order.handed_off_at === null) await setHandedOff(trx, order.id, now);
  await setSaleCreatedNavByOrder(trx, code, input.createdAt);
  return documentOf(trx, code);
}

export async function documentOf(db: Db, code: string): Promise<OrderDocument> {
  const order = await orderOf(db, code);
  const [lines, payments] = await Promise.all([linesOf(db, [order.id]), paymentsOf(db, [order.id])]);
  return orderDocument(order, lines, mainPayment(payments));
}

/**
 * Refunds `amountCents` (all that is left when undefined) of the order's settled payment through
 * its gateway, and applies the status the gateway answers like any other. The idempotency key
 * names the payment, what was refunded before and the sum, so an operator's retry of a refund
 * whose answer was lost refunds once.
 */
export async function refundOrder(db: Kysely<Database>, gateways: Gateways, code: string, amountCents: number | undefined, now: number) {
  const order = await orderOf(db, code);
  const payment = (await paymentsOf(db, [order.id])).find(
    (p) => p.reference !== null && (p.state === 'settled' || (p.state === 'refunded' && p.refunded_cents < p.amount_cents)),
  );
  if (!payment) return refundToGiftCards(db, order, code, amountCents, now);
  const left = payment.amount_cents - payment.refunded_cents;
  const cents = amountCents ?? left;
  if (cents > left) throw conflict('orders.refundTooLarge', { amount: (cents / 100).toFixed(2), left: (left / 100).toFixed(2) });
  if (cents <= 0) throw invalidField('amount', 'orders.cents');
  const name = payment.gateway as GatewayName;
  const gateway = gateways[name];
  if (gateway === undefined) throw new DomainError('unavailable', 'orders.gatewayOff', { code, gateway: payment.gateway });
  let status;
  try {
    status = await gateway.refund(payment.reference!, cents, `${payment.idempotency_key}-r${payment.refunded_cents}-${cents}`);
  } catch (error) {
    if (error instanceof GatewayUnavailableError) throw new DomainError('unavailable', 'orders.gatewayUnavailable', { gateway: name });
    if (error instanceof GatewayRefusedError) throw conflict('orders.gatewayRefused', { gateway: name });
    throw error;
  }
  await inTransaction(db, (trx) => applyPaymentStatus(trx, name, status, 'refund', now));
  return documentOf(db, code);
}

/**
 * An order no gateway payment settled for, paid by its gift cards alone: the refund is what the
 * cards paid, back on their ledgers (the CANCELLED transition refunds each CAPTURED hold once).
 * A card's share goes back whole, so a part refund is refused; an order whose cards have nothing
 * left to get back (never paid, refunded already, or FAILED, which gave it back) is a 409.
 *
 * A paid order with a payment made at a gateway (it has the gateway's reference) that is neither
 * settled nor refunded in the shop's rows is a 409 too: it was paid through that payment, whose row
 * is behind (a status read before the settle was applied over it, which earlier builds did), and
 * cancelling it would keep the card's money while the order is off.
 */
async function refundToGiftCards(db: Kysely<Database>, order: OrderRow, code: string, amountCents: number | undefined, now: number) {
  await db.transaction().execute(async (trx) => {
    const left = await capturedCents(trx, order.id);
    if (left === 0 || !PAID.includes(order.status)) throw conflict('orders.noSettledPayment', { code });
    const online = (await paymentsOf(trx, [order.id])).find((payment) => payment.reference !== null && payment.state !== 'refunded');
    if (online) throw conflict('orders.paymentNotSettled', { code, gateway: online.gateway });
    const cents = amountCents ?? left;
    if (cents > left) throw conflict('orders.refundTooLarge', { amount: (cents / 100).toFixed(2), left: (left / 100).toFixed(2) });
    if (cents !== left) throw conflict('orders.giftCardRefundWhole', { left: (left / 100).toFixed(2) });
    const moved = await moveOrder(trx, {
      orderId: order.id,
      from: PAID,
      to: 'CANCELLED',
      cause: `refunded ${(cents / 100).toFixed(2)} EUR to its gift cards`,
      now,
    });
    if (!moved) throw conflict('orders.noSettledPayment', { code });
  });
  return documentOf(db, code);
}
