import type { Kysely, Updateable } from 'kysely';
import { inTransaction } from '../../../db/after-commit.js';
import type { Db } from '../../../db/database.js';
import { rowsByIdPages } from '../../../db/id-pages.js';
import type { Database } from '../../../db/schema.js';
import { toIsoTimestamp } from '../../../db/time.js';
import { toWireMoney } from '../../pricing/index.js';
import type { OrderPaymentTable } from '../orders.tables.js';
import { lockOrder, touchOrder } from '../orders.repository.js';
import { queueRefundMail } from './refund-mail.js';

// The operators' way out for a payment due back whose refund its gateway refused for good
// (unmatched-refunds.ts: refund_refused_at; no sweep sends it again): `order payments --refund-refused`
// lists them, `mark-refunded` records one paid back by hand (in the merchant portal, whose callback may
// be lost, or by a bank transfer where the gateway will not refund the payment) and mails the buyer as
// a refund through the gateway is mailed, and `retry-refund` hands one back to the sweep once the
// gateway's side is put right. Neither asks the gateway anything: a refund made outside it is only
// the operator's to know.

const PAGE = 500;

/** A payment whose refund was refused, as `order payments --refund-refused` prints it. */
export interface RefundRefusedPaymentLine {
  /** What `mark-refunded` and `retry-refund` take. */
  paymentId: number;
  orderId: number;
  orderCode: string | null;
  gateway: string;
  /** The gateway's payment reference: what the merchant portal finds the payment by. */
  reference: string | null;
  orderReference: string | null;
  amount: number;
  /** What the shop's rows show refunded of it already. */
  refunded: number;
  currency: 'EUR';
  refusedAt: string;
  createdAt: string;
}

const paymentColumns = [
  'order_payment.id',
  'order_payment.order_id',
  'customer_order.code',
  'order_payment.gateway',
  'order_payment.reference',
  'order_payment.order_reference',
  'order_payment.amount_cents',
  'order_payment.refunded_cents',
  'order_payment.refund_refused_at',
  'order_payment.created_at',
] as const;

const payments = (db: Db) =>
  db.selectFrom('order_payment').innerJoin('customer_order', 'customer_order.id', 'order_payment.order_id').select(paymentColumns);

type PaymentRow = Awaited<ReturnType<ReturnType<typeof payments>['executeTakeFirstOrThrow']>>;

/** Every payment whose refund was refused, oldest first, a page at a time. */
export async function* refundRefusedPayments(db: Kysely<Database>): AsyncGenerator<RefundRefusedPaymentLine> {
  const pageAfter = (afterId: number) =>
    payments(db)
      .where('order_payment.refund_refused_at', 'is not', null)
      .where('order_payment.id', '>', afterId)
      .orderBy('order_payment.id')
      .limit(PAGE)
      .execute();
  for await (const payment of rowsByIdPages(pageAfter, PAGE)) yield lineOf(payment);
}

function lineOf(payment: PaymentRow): RefundRefusedPaymentLine {
  return {
    paymentId: Number(payment.id),
    orderId: Number(payment.order_id),
    orderCode: payment.code,
    gateway: payment.gateway,
    reference: payment.reference,
    orderReference: payment.order_reference,
    amount: toWireMoney(Number(payment.amount_cents)),
    refunded: toWireMoney(Number(payment.refunded_cents)),
    currency: 'EUR',
    refusedAt: toIsoTimestamp(Number(payment.refund_refused_at)),
    createdAt: toIsoTimestamp(Number(payment.created_at)),
  };
}

/** What an action on a refused refund printed: the payment and what it is now. */
export interface RefusedRefundResult {
  paymentId: number;
  orderCode: string | null;
  state: 'refunded' | 'refund_due';
}

/**
 * Records a refused payment refunded by hand, whole: the payment refunded, the order touched (its
 * document shows the payment) and the buyer's refund mail queued, in one transaction. Refused (an Error
 * naming why; the command exits 1), changing nothing: an unknown id, a payment not refused (never, or
 * marked or retried already, by a second call or one at the same time).
 */
export function markPaymentRefundedByHand(db: Kysely<Database>, paymentId: number, now: number): Promise<RefusedRefundResult> {
  return inTransaction(db, async (trx) => {
    const payment = await refusedPayment(trx, paymentId);
    const orderId = Number(payment.order_id);
    // The order first, as every applier of a payment's status locks it (payment-status.service.ts).
    await lockOrder(trx, orderId);
    const amountCents = Number(payment.amount_cents);
    await moveOutOfRefused(trx, paymentId, { state: 'refunded', refunded_cents: amountCents, updated_at: now });
    await touchOrder(trx, orderId, now);
    const refundedCents = amountCents - Number(payment.refunded_cents);
    const refund = { orderId, refundedCents, totalRefundedCents: amountCents, paidCents: amountCents, cardCents: 0 };
    if (refundedCents > 0) await queueRefundMail(trx, refund, now);
    return { paymentId, orderCode: payment.code, state: 'refunded' };
  });
}

/**
 * Hands a refused payment back to the sweep (refund_due_at now), which sends its refund through the
 * gateway under a key of its own (unmatched-refunds.ts). Refused, changing nothing, as markPaymentRefundedByHand is.
 */
export function retryPaymentRefund(db: Kysely<Database>, paymentId: number, now: number): Promise<RefusedRefundResult> {
  return inTransaction(db, async (trx) => {
    const payment = await refusedPayment(trx, paymentId);
    await moveOutOfRefused(trx, paymentId, { refund_due_at: now, updated_at: now });
    return { paymentId, orderCode: payment.code, state: 'refund_due' };
  });
}

/** The payment, when its refund is refused as read; otherwise the reason why nothing changes. */
async function refusedPayment(trx: Db, paymentId: number): Promise<PaymentRow> {
  const payment = await payments(trx).where('order_payment.id', '=', paymentId).executeTakeFirst();
  if (!payment) throw new Error(`no order payment has the id ${paymentId}; nothing changed`);
  if (payment.refund_refused_at === null) throw notRefusedError(payment);
  return payment;
}

/**
 * Clears the payment's refusal with `change`, only while it is refused: one command at a time moves it,
 * and the one that finds it moved since it was read (by another command) is refused, changing nothing.
 */
async function moveOutOfRefused(trx: Db, paymentId: number, change: Updateable<OrderPaymentTable>): Promise<void> {
  const moved = await trx
    .updateTable('order_payment')
    .set({ ...change, refund_refused_at: null })
    .where('id', '=', paymentId)
    .where('refund_refused_at', 'is not', null)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) === 0)
    throw notRefusedError((await payments(trx).where('order_payment.id', '=', paymentId).executeTakeFirst())!);
}

const notRefusedError = (payment: PaymentRow) =>
  new Error(`payment ${payment.id} (order ${payment.code}) has no refused refund: nothing changed`);
