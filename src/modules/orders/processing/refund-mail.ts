import type { Kysely } from 'kysely';
import type { Db } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';
import { formatEuros, isLanguage, translate, type Language, type MessageKey } from '../../../i18n/index.js';
import { enqueueJob } from '../../../infra/jobs/queue.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import type { Mailer } from '../../../infra/mail/mailer.js';
import { ERASED_MARKER } from '../../../infra/personal-data.js';
import type { OrdersSection } from '../orders.config.js';
import { mailBody, storeOfMail } from './order-mail.js';
import { findOrder, type OrderRow } from './processing.repository.js';

// The buyer is told of a refund that leaves their order standing: a part refund (the operator's, or one
// made at the gateway and learnt from its callback), or the whole payment of an order given up before
// it was paid (its late payment sent back). A refund that cancels the order is told by the cancellation
// mail instead. Queued where the payment's refunded sum is applied (payment-status.service.ts), in that
// transaction: the callback inbox applies each refunded sum once, so a refund or its callback sent again
// mails once. Every refund is an event of its own, so a later one does not make an earlier one's mail moot.

export const ORDER_REFUNDED_MAIL_JOB = 'order.refunded-mail';
const MAIL_ATTEMPTS = 8;

export interface OrderRefundedMailJob {
  orderId: number;
  /** What this refund gave back. */
  refundedCents: number;
  /** What the payment has given back in all, this refund with the earlier ones. */
  totalRefundedCents: number;
  /** What the payment was. */
  paidCents: number;
}

export async function queueRefundMail(trx: Db, job: OrderRefundedMailJob, now: number): Promise<void> {
  await enqueueJob(trx, { type: ORDER_REFUNDED_MAIL_JOB, payload: { ...job } }, { maxAttempts: MAIL_ATTEMPTS, now });
}

export function orderRefundedMailHandler(deps: {
  db: Kysely<Database>;
  mailer: Mailer;
  config: Pick<OrdersSection, 'checksumSecret' | 'orderPagePath'>;
}): JobHandler {
  return async (job: OrderRefundedMailJob) => {
    const order = await findOrder(deps.db, job.orderId);
    // The buyer's data erased since (GDPR): nobody to write to.
    if (!order?.code || order.billing_email === ERASED_MARKER) return 'skipped';
    await deps.mailer.send({ to: order.billing_email, ...refundMail(order, job, await storeOfMail(deps, order)) });
    return 'sent';
  };
}

export function refundMail(
  order: OrderRow,
  refund: OrderRefundedMailJob,
  facts: { storeName: string; orderPageUrl: string | null },
): { subject: string; text: string; html: string } {
  const language: Language = isLanguage(order.language) ? order.language : 'et';
  const say = (key: MessageKey, params: Record<string, string | number> = {}) => translate(language, key, params);
  const money = (cents: number) => formatEuros(cents, language);
  const code = order.code ?? '';
  const whole = refund.totalRefundedCents >= refund.paidCents;
  const what = [
    say(whole ? 'orders.refunded.whole' : 'orders.refunded.part', { code }),
    say('orders.mail.backToPayment', { amount: money(refund.refundedCents) }),
    // Refunded in more than one part: what has gone back so far.
    ...(refund.totalRefundedCents > refund.refundedCents
      ? [say('orders.refunded.inAll', { amount: money(refund.totalRefundedCents), paid: money(refund.paidCents) })]
      : []),
  ];
  const blocks: string[][] = [
    [say('orders.mail.greeting', { name: order.billing_name })],
    what,
    ...(facts.orderPageUrl === null ? [] : [[say('orders.mail.orderPage', { url: facts.orderPageUrl })]]),
    [say('orders.mail.code', { code })],
  ];
  return { subject: say('orders.refunded.subject', { code, store: facts.storeName }), ...mailBody(blocks, facts.orderPageUrl) };
}
