import type { Db } from '../../../db/database.js';
import { systemClock } from '../../../infra/clock.js';
import { enqueueJob } from '../../../infra/jobs/queue.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import { isErasedEmail } from '../../../infra/personal-data.js';
import { buyerNoticeMail, ORDER_MAIL_ATTEMPTS, storeOfMail, voiceOf, type OrderMailDeps, type StoreOfMail } from './order-mail.js';
import { boughtCardsValue, takenOffBoughtCards } from '../../gift-cards/index.js';
import { PAYMENT_METHODS } from '../payment-methods.js';
import { findOrder, paymentsOf, type OrderRow } from './processing.repository.js';

// The buyer is told when their order is cancelled: a paid one is cancelled only when its money went
// back (a full refund: the operator's, or one made at the gateway), an unpaid one when the sweep gave
// it up. Queued by the state machine in the transaction that cancels (order-states.ts), so each
// cancellation mails once; rendered when sent, from the order as stored. A cancelled order that a late
// payment revived, or cancelled again since, is not this cancellation's any more: its job sends nothing.

export const ORDER_CANCELLED_MAIL_JOB = 'order.cancelled-mail';

export interface OrderCancelledMailJob {
  orderId: number;
  /** Whether the order had been paid (or needed no online payment) when it was cancelled. */
  paid: boolean;
  /** The cancellation's time (the order's status_changed_at): which cancellation this mail is about. */
  cancelledAt: number;
}

export async function queueCancellationMail(trx: Db, job: OrderCancelledMailJob, now: number): Promise<void> {
  await enqueueJob(trx, { type: ORDER_CANCELLED_MAIL_JOB, payload: { ...job } }, { maxAttempts: ORDER_MAIL_ATTEMPTS, now });
}

export function orderCancelledMailHandler(deps: OrderMailDeps): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: OrderCancelledMailJob) => {
    const now = clock.now();
    const order = await findOrder(deps.db, job.orderId);
    if (!order?.code || order.status !== 'CANCELLED' || Number(order.status_changed_at) !== job.cancelledAt) return 'skipped';
    // The buyer's data erased since (GDPR): nobody to write to.
    if (isErasedEmail(order.billing_email)) return 'skipped';
    const facts = job.paid
      ? await paidBackFacts(deps.db, order.id)
      : { returnedCents: 0, boughtCardsTakenOffCents: 0, boughtCardsSpentCents: 0 };
    const mail = cancellationMail(order, { paid: job.paid, ...facts, ...(await storeOfMail(deps, order, now)) });
    await deps.mailer.send({ to: order.billing_email, ...mail });
    return 'sent';
  };
}

type PaidBackFacts = Pick<CancellationMailFacts, 'returnedCents' | 'boughtCardsTakenOffCents' | 'boughtCardsSpentCents'>;

async function paidBackFacts(db: Db, orderId: number): Promise<PaidBackFacts> {
  const [payments, taken, bought] = await Promise.all([
    paymentsOf(db, [orderId]),
    takenOffBoughtCards(db, orderId),
    boughtCardsValue(db, orderId),
  ]);
  const returnedCents = payments.reduce((sum, p) => sum + Number(p.refunded_cents), 0);
  return { returnedCents, boughtCardsTakenOffCents: taken, boughtCardsSpentCents: bought.spentCents };
}

export interface CancellationMailFacts extends StoreOfMail {
  paid: boolean;
  /** What the gateway gave back of the order's payments. */
  returnedCents: number;
  /** Of that, what was left on the gift cards the order bought, taken off them before it went back. */
  boughtCardsTakenOffCents: number;
  /** Spent from the gift cards the order bought: the buyer's to use, never paid back. */
  boughtCardsSpentCents: number;
}

export function cancellationMail(order: OrderRow, facts: CancellationMailFacts) {
  const { say, money } = voiceOf(order);
  const code = order.code ?? '';
  // What gift cards paid or held goes back to them in the cancelling transaction (gift-card-ledger.ts).
  const giftCards = Number(order.gift_card_cents);
  // Paid in part outside any gateway (an invoice, in the shop, on delivery): the refund that cancelled it
  // gave the gift cards their share, and nothing of the rest, which the shop settles with the buyer.
  const offline = offlinePart(order);
  const what = facts.paid
    ? [
        offline !== null
          ? say('orders.cancelled.paidOffline', { code })
          : say(facts.boughtCardsSpentCents > 0 ? 'orders.cancelled.paidBoughtCardsSpent' : 'orders.cancelled.paid', { code }),
        ...(offline !== null
          ? [say('orders.cancelled.offlineNotReturned', { amount: money(offline.cents), method: say(offline.nameKey) })]
          : []),
        ...(facts.returnedCents > 0 ? [say('orders.mail.backToPayment', { amount: money(facts.returnedCents) })] : []),
        ...(facts.boughtCardsTakenOffCents > 0
          ? [say('orders.mail.boughtCardsTakenOff', { amount: money(facts.boughtCardsTakenOffCents) })]
          : []),
        ...(facts.boughtCardsSpentCents > 0 ? [say('orders.mail.boughtCardsSpent', { amount: money(facts.boughtCardsSpentCents) })] : []),
        ...(giftCards > 0 ? [say('orders.cancelled.toGiftCards', { amount: money(giftCards) })] : []),
      ]
    : [
        say('orders.cancelled.unpaid', { code }),
        ...(giftCards > 0 ? [say('orders.cancelled.heldOnGiftCards', { amount: money(giftCards) })] : []),
      ];
  return buyerNoticeMail(order, 'orders.cancelled.subject', what, facts);
}

/** What of the order was to be paid outside any gateway (its payment method has none), and how; null when nothing. */
function offlinePart(order: OrderRow) {
  const method = PAYMENT_METHODS.find((candidate) => candidate.id === order.payment_method);
  const cents = Number(order.total_cents);
  return method !== undefined && method.gateway === null && cents > 0 ? { cents, nameKey: method.nameKey } : null;
}
