import type { Db } from '../../db/database.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { grantEntitlementsAgain, revokeEntitlements } from './entitlements.repository.js';
import type { OrderStatus } from './orders.tables.js';
import { discountCodeOf, lockOrder, updatedAtFrom } from './orders.repository.js';
import { PAID_STATUSES } from './order-history.repository.js';
import { holdStockAgain, releaseStock } from './stock.repository.js';
import { orderEvent } from './order-events.js';
import { queueCancellationMail } from './processing/cancellation-mail.js';
import { onOrderGivenUp, onOrderPaid } from '../gift-cards/index.js';
import { basketCheckout } from '../basket/index.js';

// The order state machine: the one place an order's status changes. A transition is a
// conditional update (from the states it may leave, to one it may enter), so two actors racing
// for the same order (a callback and the shopper's return, two workers) move it once: the loser
// sees false and does nothing. Every change is recorded with its time and cause, and the effects
// of entering a state commit with it in the caller's transaction: stock held for an order that
// will not be paid goes back (and its discount code's use), a paid order is queued for processing,
// one given up (failed or cancelled) gives nothing more to download, and a cancelled one's buyer is
// mailed (cancellation-mail.ts). One given up and paid after all (a late settle, the back office's
// report of a FAILED order it has) takes again what giving it up gave back.
// The client's bought products follow the status by triggers (migration 2026_11_28_0610), in the
// same transaction.
//
// Locks, in one order. A transition and checkout (checkout.service.ts) take the rows they share in
// this order, so neither ever holds a row the other waits for (on PostgreSQL a deadlock, and one of
// them failed: a checkout a 500): the order's own row (lockOrder); the buyer's event stream (its
// sequence row, orderEvent); the products' stock, in product id order (stock.repository.ts); the
// discount code; the gift cards, in card id order (gift-card-ledger.ts). So a transition writes its
// event before its effects, and a late settle learns whether the cards still cover the order it
// revives only when it reaches them (payment-status.service.ts undoes the move then).

/** Where each state may go. */
const NEXT: Record<OrderStatus, readonly OrderStatus[]> = {
  // Paid online, nothing to pay online, or released unpaid.
  NEW: ['PENDING_PAYMENT', 'PENDING_PROCESSING', 'CANCELLED'],
  // Settled; declined or abandoned; unpaid past the limit; back to NEW when the gateway could not
  // even create the payment (nothing was started, so the shopper may try again).
  PENDING_PAYMENT: ['PENDING_PROCESSING', 'PAYMENT_FAILED', 'CANCELLED', 'NEW'],
  // A payment that settles after the order was given up (the money is ours: the order goes on).
  PAYMENT_FAILED: ['PENDING_PROCESSING'],
  CANCELLED: ['PENDING_PROCESSING'],
  PENDING_PROCESSING: ['PROCESSING', 'FAILED', 'CANCELLED'],
  PROCESSING: ['COMPLETED', 'PENDING_NAV_PROCESSING', 'FAILED', 'CANCELLED'],
  // The back-office hand-off failed; the sweep tries again.
  PENDING_NAV_PROCESSING: ['COMPLETED', 'FAILED', 'CANCELLED'],
  COMPLETED: ['CANCELLED'],
  // Refunded; or the back office reports it has the order after all (its hand-off reached it, only
  // the answer was lost): revived when everything FAILED gave back can be taken again (the status report).
  FAILED: ['CANCELLED', 'COMPLETED'],
};

/** States whose order still holds its stock (reserved at checkout, not yet sold or released). */
export const HOLDING_STOCK: readonly OrderStatus[] = [
  'NEW',
  'PENDING_PAYMENT',
  'PENDING_PROCESSING',
  'PROCESSING',
  'PENDING_NAV_PROCESSING',
];
/** States in which the order waits for its online payment (started or not). */
export const AWAITING_PAYMENT: readonly OrderStatus[] = ['NEW', 'PENDING_PAYMENT'];
/** States in which the order was paid or needs no online payment: the purchase history's list (one list). */
export const PAID: readonly OrderStatus[] = PAID_STATUSES;

/** States in which the order will not be (or no longer is) paid for: its gift cards get their money back. */
const GIVEN_UP: readonly OrderStatus[] = ['PAYMENT_FAILED', 'CANCELLED', 'FAILED'];

export const ORDER_PROCESSING_JOB = 'order.process';

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return NEXT[from].includes(to);
}

export interface Transition {
  orderId: number;
  /** The states the caller expects the order to be in; it moves only from one of them. */
  from: OrderStatus | readonly OrderStatus[];
  to: OrderStatus;
  /** Why, in a few words an operator reads in the status history ("payment settled (everypay)"). */
  cause: string;
  now: number;
}

/**
 * Moves the order when it is in one of `from`; false when it is not (somebody moved it first).
 * A transition the machine does not allow is a programming error, thrown before anything changes.
 */
export async function moveOrder(trx: Db, transition: Transition): Promise<boolean> {
  const from = typeof transition.from === 'string' ? [transition.from] : transition.from;
  for (const state of from)
    if (!canMove(state, transition.to)) throw new Error(`order state machine: ${state} -> ${transition.to} is not a transition`);
  // Read under the lock: a status read without it may be moved by another transaction before this one's update.
  const current = await lockOrder(trx, transition.orderId);
  if (!current || !from.includes(current)) return false;
  const moved = await trx
    .updateTable('customer_order')
    .set({ status: transition.to, status_changed_at: transition.now, updated_at: updatedAtFrom(transition.now) })
    .where('id', '=', transition.orderId)
    .where('status', '=', current)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) === 0) return false;
  await trx
    .insertInto('order_status_change')
    .values({
      order_id: transition.orderId,
      from_status: current,
      to_status: transition.to,
      cause: transition.cause.slice(0, 200),
      created_at: transition.now,
    })
    .execute();
  // Before the effects: the buyer's stream is locked before the products (see above). Written after
  // them, a decline releasing a book's stock and its buyer's new checkout of that book (stream,
  // then stock) each held what the other waited for.
  await orderEvent(trx, transition.orderId, { type: 'order.status-changed', from: current, cause: transition.cause }, transition.now);
  await enter(trx, current, transition);
  return true;
}

/** The effects of entering a state, in the same transaction. */
async function enter(trx: Db, from: OrderStatus, transition: Transition): Promise<void> {
  const wasHolding = HOLDING_STOCK.includes(from);
  const holds = HOLDING_STOCK.includes(transition.to);
  // Stock sold at processing is no longer held, so leaving after it releases nothing.
  if (wasHolding && !holds) await releaseStock(trx, transition.orderId);
  if (!wasHolding && holds) await holdStockAgain(trx, transition.orderId);
  // Given up, it is no longer a paid order (the purchase history drops it, its gift cards get their
  // shares back, the cards it bought are voided): FAILED too, where its e-books stayed downloadable.
  if (GIVEN_UP.includes(transition.to)) await revokeEntitlements(trx, transition.orderId);
  // A FAILED order the back office has after all: it was processed (its stock sold then, which FAILED
  // did not give back, as it released only held stock), so its downloads come back as processing granted them.
  const revived = from === 'FAILED' && transition.to === 'COMPLETED';
  if (revived) await grantEntitlementsAgain(trx, transition.orderId, transition.now);
  if (transition.to === 'CANCELLED') {
    // Unpaid unless it left a state of waiting for its payment: a paid order is cancelled only once its money went back.
    const paid = !AWAITING_PAYMENT.includes(from);
    await queueCancellationMail(trx, { orderId: transition.orderId, paid, cancelledAt: transition.now }, transition.now);
  }
  // The discount code's use (counted by checkout) goes back with the order given up, once: a move
  // between two given-up states (FAILED -> CANCELLED) changes nothing; paid after all takes it again.
  // Before the gift cards (the lock order above): checkout counts the code's use, then holds the cards.
  const givenUp = GIVEN_UP.includes(transition.to);
  if (givenUp !== GIVEN_UP.includes(from)) {
    const codeId = await discountCodeOf(trx, transition.orderId);
    if (codeId !== null && givenUp) await basketCheckout.giveBackDiscountCodeUse(trx, codeId);
    if (codeId !== null && !givenUp) await basketCheckout.retakeDiscountCodeUse(trx, codeId);
  }
  // Gift cards: paid takes the order's holds and queues the cards it bought for issuing; given up
  // (or its money back) returns the holds to the cards and voids the cards it bought. Revived, its
  // cards' shares are taken again, all or none: the reviver asks hasReleasedHolds and undoes the move
  // when they could not be (the cards were spent meanwhile).
  if (transition.to === 'PENDING_PROCESSING' || revived) await onOrderPaid(trx, transition.orderId, transition.now);
  if (GIVEN_UP.includes(transition.to)) await onOrderGivenUp(trx, transition.orderId, transition.now);
  if (transition.to === 'PENDING_PROCESSING')
    await enqueueJob(
      trx,
      { type: ORDER_PROCESSING_JOB, payload: { orderId: transition.orderId } },
      { maxAttempts: 10, now: transition.now },
    );
}

/** Records the first state of a new order (NEW) in its history. */
export async function recordCreated(trx: Db, orderId: number, now: number): Promise<void> {
  await trx
    .insertInto('order_status_change')
    .values({ order_id: orderId, from_status: null, to_status: 'NEW', cause: 'checkout', created_at: now })
    .execute();
  await orderEvent(trx, orderId, { type: 'order.created' }, now);
}
