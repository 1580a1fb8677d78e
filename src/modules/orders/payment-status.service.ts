import { afterCommit } from '../../db/after-commit.js';
import type { Db } from '../../db/database.js';
import { paymentsTotal } from '../../infra/metrics/process-metrics.js';
import { paysInEuros, type GatewayName, type PaymentStatus } from '../payments/index.js';
import { underSavepoint } from '../../db/savepoint.js';
import { boughtCardsValue, hasReleasedHolds, takeOffBoughtCards } from '../gift-cards/index.js';
import { moveOrder, PAID } from './order-states.js';
import { codeOfReference } from './payment-reference.js';
import { lockOrder, touchOrder } from './orders.repository.js';
import { queueRefundMail } from './processing/refund-mail.js';
import { cardShareOfRefunds } from './processing/refunds.repository.js';
import type { OrderStatus, PaymentState } from './orders.tables.js';

// What a gateway's word on a payment does to its order. The callback, the shopper's return, the
// unpaid-order sweep and operators' refunds all come through here, with a status the service
// fetched from the gateway itself (never what a callback claimed). Each (gateway, reference,
// state) is written to the callback inbox first: the one transaction that inserts it applies it,
// every other (a repeat, a racing return) finds it there and changes nothing.

export type ApplyOutcome = 'applied' | 'duplicate' | 'stale' | 'mismatch' | 'unknown';

export interface AppliedStatus {
  outcome: ApplyOutcome;
  orderId: number | null;
  orderStatus: OrderStatus | null;
}

type StatusSource = 'callback' | 'return' | 'sweep' | 'refund';

/**
 * Applies the gateway's status of a payment once; `source` names who reported it, for the history.
 * Each outcome is counted for /metrics (storefront_payments_total) once the caller's transaction
 * committed: one that rolls back counts nothing. So every transaction that reaches this is opened
 * by inTransaction (db/after-commit.ts); afterCommit throws on any other.
 */
export async function applyPaymentStatus(
  trx: Db,
  gateway: GatewayName,
  status: PaymentStatus,
  source: StatusSource,
  now: number,
): Promise<AppliedStatus> {
  const applied = await applyOnce(trx, gateway, status, source, now);
  // Orders are asked last (after subscriptions' charges and cards), so a payment they do not know is nobody's.
  const appliedTo = applied.outcome === 'unknown' ? 'none' : 'order';
  afterCommit(trx, () => paymentsTotal.inc({ gateway, state: status.state, applied_to: appliedTo, outcome: applied.outcome }));
  return applied;
}

async function applyOnce(trx: Db, gateway: GatewayName, status: PaymentStatus, source: StatusSource, now: number): Promise<AppliedStatus> {
  const found = await trx
    .selectFrom('order_payment')
    .select(['id', 'order_id'])
    .where('gateway', '=', gateway)
    .where('reference', '=', status.reference)
    .executeTakeFirst();
  if (!found) return applyUnknownPayment(trx, gateway, status, now);
  const orderId = Number(found.order_id);
  // The order's status decides what this status does to it: locked before it is read, so that a
  // transition committed meanwhile (processing, the unpaid sweep) is seen, not moved over.
  const current = (await lockOrder(trx, orderId))!;
  // The payment's state too is read under the order's lock, which every status applied to it holds:
  // read before it, on PostgreSQL, it is the state before another applier's commit (the callback's
  // settle, while a return that read "still with the bank" or a decline waited for the order), that
  // older status is not seen as older, and it overwrites the settle under the paid order.
  const payment = await trx
    .selectFrom('order_payment')
    .innerJoin('customer_order', 'customer_order.id', 'order_payment.order_id')
    .select([
      'order_payment.id',
      'order_payment.amount_cents',
      'order_payment.state',
      'order_payment.refunded_cents',
      'customer_order.code',
      'order_payment.order_reference',
    ])
    .where('order_payment.id', '=', found.id)
    .executeTakeFirstOrThrow();
  const inbox = await recordInInbox(trx, gateway, status, orderId, now);
  // A repeat may have waited for the first one's commit: the order's status is read after it.
  if (!inbox.first) return { outcome: 'duplicate', orderId, orderStatus: await orderStatus(trx, orderId) };
  // The gateway's record must be of this order and this sum, in euros on the shop's own account (a
  // payment in another currency, or another account's, pays no euro order whatever its amount says);
  // anything else moves nothing.
  if (!paysInEuros(status, payment.order_reference ?? payment.code, payment.amount_cents)) {
    await setInboxOutcome(trx, gateway, status, 'mismatch', now);
    return { outcome: 'mismatch', orderId, orderStatus: current };
  }
  if (olderThan(status, payment)) {
    // Read before a later state was applied (the return read "still processing", the callback then
    // applied the settle): nothing goes back, neither the payment's state nor the order.
    await setInboxOutcome(trx, gateway, status, 'stale', now);
    return { outcome: 'stale', orderId, orderStatus: current };
  }
  await trx
    .updateTable('order_payment')
    .set({ state: status.state as PaymentState, refunded_cents: status.refundedCents, updated_at: now })
    .where('id', '=', payment.id)
    .execute();
  // The payment is part of the order's document (the back office's feed): a part refund, which moves
  // no status, must still show the order changed, or a feed read by updatedSince never has it again.
  await touchOrder(trx, orderId, now);
  // What this status adds to the refunded sum.
  const refundedBefore = Number(payment.refunded_cents);
  const refundedCents = status.refundedCents - refundedBefore;
  const settledBefore = PROGRESS[payment.state] >= PROGRESS.settled;
  const moved = await moveForState(trx, orderId, current, status, `payment ${status.state} (${gateway} ${source})`, now, settledBefore);
  if (moved === 'cards-short') {
    // Settled after the order was given up, and its gift cards no longer cover their share: the
    // order stays given up, operators see the mismatch in the inbox, and the sweep refunds the payment.
    await trx.updateTable('order_payment').set({ refund_due_at: now }).where('id', '=', payment.id).execute();
    await setInboxOutcome(trx, gateway, status, 'mismatch', now);
    return { outcome: 'mismatch', orderId, orderStatus: current };
  }
  // After the move: the gift cards come last in order-states.ts's lock order. Taken off before it, a
  // refund that cancels the order held the card while its move waited for the buyer's event stream,
  // which a checkout spending that card held while it waited for the card (on PostgreSQL a deadlock,
  // the checkout a 500). A cancelled order's cards were voided by the move: nothing more comes off.
  const cardsTakenOffNow =
    status.state === 'refunded' && refundedCents > 0
      ? await takeOffCardsForRefund(trx, orderId, Number(payment.amount_cents), status.refundedCents, refundedCents, now)
      : 0;
  await setInboxOutcome(trx, gateway, status, moved ? 'applied' : 'stale', now);
  const after = await orderStatus(trx, orderId);
  // A refund that cancelled the order is told by the cancellation mail (order-states.ts); any other is
  // told by its own, even where the order had nothing to move (given up before the payment came).
  if (status.state === 'refunded' && refundedCents > 0 && !(after === 'CANCELLED' && current !== 'CANCELLED')) {
    const cardCents = cardsTakenOffNow + (await cardShareOfRefunds(trx, payment.id, refundedBefore, status.refundedCents));
    const refund = { orderId, refundedCents, totalRefundedCents: status.refundedCents, paidCents: Number(payment.amount_cents), cardCents };
    await queueRefundMail(trx, refund, now);
  }
  return { outcome: moved ? 'applied' : 'stale', orderId, orderStatus: after };
}

/**
 * The shop's own refunds take their share of the unspent value of the gift cards the order bought off
 * the cards before the gateway is asked (processing/order-refunds.ts). A refund made at the gateway
 * itself (its portal) reaches the shop only as a larger refunded sum, so its share is taken off here,
 * by the same rule: a refund gives back the order's other things first and the cards' value past them.
 * In total: with P paid, S spent from the cards and U left on them, refunds of R in all need
 * R - (P - S - U) taken off the cards (what was taken before is already out of U). Zero when the
 * shop's own refunds took their share, so a status applied again, or after them, takes nothing more;
 * at most what this status adds to the refunded sum (`added`), and at most what is on the cards.
 */
async function takeOffCardsForRefund(
  trx: Db,
  orderId: number,
  paidCents: number,
  totalRefundedCents: number,
  added: number,
  now: number,
): Promise<number> {
  const cards = await boughtCardsValue(trx, orderId);
  const owed = totalRefundedCents - (paidCents - cards.spentCents - cards.unspentCents);
  const share = Math.min(added, cards.unspentCents, owed);
  // What the cards no longer hold (spent meanwhile) is money already gone back: nothing to undo.
  return share > 0 ? share - (await takeOffBoughtCards(trx, orderId, share, now)) : 0;
}

/**
 * A payment the shop never made. When the gateway holds it for one of the shop's orders (another
 * sum, made outside this shop's create-form), money may have moved for the order: it is recorded
 * as a mismatch of that order for an operator, and the order does not move.
 */
async function applyUnknownPayment(trx: Db, gateway: GatewayName, status: PaymentStatus, now: number): Promise<AppliedStatus> {
  const order = await trx
    .selectFrom('customer_order')
    .select(['id', 'status'])
    .where('code', '=', codeOfReference(status.orderReference))
    .executeTakeFirst();
  const orderId = order ? Number(order.id) : null;
  const inbox = await recordInInbox(trx, gateway, status, orderId, now);
  if (!order) {
    await setInboxOutcome(trx, gateway, status, 'unknown', now);
    return { outcome: 'unknown', orderId: null, orderStatus: null };
  }
  if (!inbox.first) return { outcome: 'duplicate', orderId, orderStatus: order.status };
  await setInboxOutcome(trx, gateway, status, 'mismatch', now);
  return { outcome: 'mismatch', orderId, orderStatus: order.status };
}

async function moveForState(
  trx: Db,
  orderId: number,
  current: OrderStatus,
  status: PaymentStatus,
  cause: string,
  now: number,
  settledBefore: boolean,
): Promise<boolean | 'cards-short'> {
  const { refundedCents, amountCents } = status;
  switch (status.state) {
    case 'settled': {
      const paid = {
        orderId,
        from: ['PENDING_PAYMENT', 'PAYMENT_FAILED', 'CANCELLED'] as const,
        to: 'PENDING_PROCESSING' as const,
        cause,
        now,
      };
      if (current !== 'PAYMENT_FAILED' && current !== 'CANCELLED') return moveOrder(trx, paid);
      // A late settle revives an order given up on (PAYMENT_FAILED, CANCELLED by the sweep) only when
      // its gift cards can take their shares again, all of them; otherwise it is not paid in full. The
      // move finds that out when it reaches the cards, last in the lock order (order-states.ts): taken
      // before the buyer's stream and the stock, a checkout taking them in that order deadlocked with
      // it on PostgreSQL. So the revival runs under a savepoint and is undone when the cards come up short.
      return underSavepoint<boolean | 'cards-short'>(trx, async () => {
        const moved = await moveOrder(trx, paid);
        if (moved && (await hasReleasedHolds(trx, orderId))) return { keep: false, result: 'cards-short' as const };
        return { keep: true, result: moved };
      });
    }
    case 'failed':
    case 'abandoned':
    case 'voided':
      return moveOrder(trx, { orderId, from: 'PENDING_PAYMENT', to: 'PAYMENT_FAILED', cause, now });
    case 'refunded':
      // Refunded in full (all but what was spent of the gift cards the order bought, which is never
      // paid back): the order is off. A part refund changes the payment's sum only.
      if (refundedCents < amountCents && refundedCents < amountCents - (await boughtCardsValue(trx, orderId)).spentCents) {
        // A payment refunded in part settled first, and the rest is ours. Never seen settled here (its
        // callback lost, the part refunded at the gateway meanwhile), its order learns of the settle
        // only now: paid, as the settle would have made it. Left waiting, the sweep gave the order up
        // and kept the rest of the money.
        if (settledBefore) return true;
        return moveForState(trx, orderId, current, { ...status, state: 'settled' }, cause, now, settledBefore);
      }
      return PAID.includes(current) || current === 'FAILED'
        ? moveOrder(trx, { orderId, from: [...PAID, 'FAILED'], to: 'CANCELLED', cause, now })
        : false;
    case 'pending':
      return false;
  }
}

async function recordInInbox(trx: Db, gateway: string, status: PaymentStatus, orderId: number | null, now: number) {
  const inserted = await trx
    .insertInto('payment_callback')
    .values({
      gateway,
      reference: status.reference,
      state: inboxState(status),
      order_id: orderId,
      outcome: 'received',
      received_count: 1,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['gateway', 'reference', 'state']).doNothing())
    .executeTakeFirst();
  const first = Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  if (!first)
    await trx
      .updateTable('payment_callback')
      .set((eb) => ({ received_count: eb('received_count', '+', 1), updated_at: now }))
      .where('gateway', '=', gateway)
      .where('reference', '=', status.reference)
      .where('state', '=', inboxState(status))
      .execute();
  return { first };
}

function setInboxOutcome(trx: Db, gateway: string, status: PaymentStatus, outcome: ApplyOutcome, now: number) {
  return trx
    .updateTable('payment_callback')
    .set({ outcome, updated_at: now })
    .where('gateway', '=', gateway)
    .where('reference', '=', status.reference)
    .where('state', '=', inboxState(status))
    .execute();
}

/**
 * How far a payment has come: started, given up (declined, abandoned, voided), settled, refunded. A
 * payment only moves forward (a late settle follows a decline; a refund, a settle), and a larger refund
 * follows a smaller one.
 */
const PROGRESS: Record<PaymentState, number> = { creating: 0, pending: 0, failed: 1, abandoned: 1, voided: 1, settled: 2, refunded: 3 };

/** Whether the gateway's status is behind what the payment already has: read before that was applied. */
function olderThan(status: PaymentStatus, payment: { state: PaymentState; refunded_cents: number }): boolean {
  const behind = PROGRESS[status.state] - PROGRESS[payment.state];
  return behind < 0 || (behind === 0 && status.state === 'refunded' && status.refundedCents < Number(payment.refunded_cents));
}

/** A part refund and a larger one later are two events: the refunded sum is part of the key. */
const inboxState = (status: PaymentStatus) => (status.state === 'refunded' ? `refunded:${status.refundedCents}` : status.state);

async function orderStatus(trx: Db, orderId: number): Promise<OrderStatus> {
  return (await trx.selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status;
}
