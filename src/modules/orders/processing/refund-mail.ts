import type { Db } from '../../../db/database.js';
import { systemClock } from '../../../infra/clock.js';
import { enqueueJob } from '../../../infra/jobs/queue.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import { isErasedEmail } from '../../../infra/personal-data.js';
import { buyerNoticeMail, ORDER_MAIL_ATTEMPTS, storeOfMail, voiceOf, type OrderMailDeps, type StoreOfMail } from './order-mail.js';
import { findOrder, type OrderRow } from './processing.repository.js';

// The buyer is told of a refund that leaves their order standing: a part refund (the operator's, or one
// made at the gateway and learnt from its callback), or the whole payment of an order given up before
// it was paid (its late payment sent back). A refund that cancels the order is told by the cancellation
// mail instead. Queued where the payment's refunded sum is applied (payment-status.service.ts), in that
// transaction: the callback inbox applies each refunded sum once, so a refund or its callback sent again
// mails once. Every refund is an event of its own, so a later one does not make an earlier one's mail moot.

export const ORDER_REFUNDED_MAIL_JOB = 'order.refunded-mail';

export interface OrderRefundedMailJob {
  orderId: number;
  /** What this refund gave back. */
  refundedCents: number;
  /** What the payment has given back in all, this refund with the earlier ones. */
  totalRefundedCents: number;
  /** What the payment was. */
  paidCents: number;
  /** Of this refund, what was taken off the gift cards the order bought (absent in jobs queued before it was kept). */
  cardCents?: number;
}

export async function queueRefundMail(trx: Db, job: OrderRefundedMailJob, now: number): Promise<void> {
  await enqueueJob(trx, { type: ORDER_REFUNDED_MAIL_JOB, payload: { ...job } }, { maxAttempts: ORDER_MAIL_ATTEMPTS, now });
}

export function orderRefundedMailHandler(deps: OrderMailDeps): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: OrderRefundedMailJob) => {
    const now = clock.now();
    const order = await findOrder(deps.db, job.orderId);
    // The buyer's data erased since (GDPR): nobody to write to.
    if (!order?.code || isErasedEmail(order.billing_email)) return 'skipped';
    await deps.mailer.send({ to: order.billing_email, ...refundMail(order, job, await storeOfMail(deps, order, now)) });
    return 'sent';
  };
}

export function refundMail(order: OrderRow, refund: OrderRefundedMailJob, store: StoreOfMail) {
  const { say, money } = voiceOf(order);
  const code = order.code ?? '';
  const whole = refund.totalRefundedCents >= refund.paidCents;
  const cardCents = refund.cardCents ?? 0;
  const what = [
    say(whole ? 'orders.refunded.whole' : 'orders.refunded.part', { code }),
    say('orders.mail.backToPayment', { amount: money(refund.refundedCents) }),
    ...(cardCents > 0 ? [say('orders.mail.boughtCardsTakenOff', { amount: money(cardCents) })] : []),
    // Refunded in more than one part: what has gone back so far.
    ...(refund.totalRefundedCents > refund.refundedCents
      ? [say('orders.refunded.inAll', { amount: money(refund.totalRefundedCents), paid: money(refund.paidCents) })]
      : []),
  ];
  return buyerNoticeMail(order, 'orders.refunded.subject', what, store);
}
