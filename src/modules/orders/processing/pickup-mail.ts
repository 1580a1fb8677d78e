import type { Db } from '../../../db/database.js';
import { systemClock } from '../../../infra/clock.js';
import { enqueueJob } from '../../../infra/jobs/queue.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import { isErasedEmail } from '../../../infra/personal-data.js';
import { endOfLocalDay } from '../../../infra/shop-time.js';
import { wantsOrderUpdateMails } from '../../profile/index.js';
import { PAID } from '../order-states.js';
import {
  mailBody,
  ORDER_MAIL_ATTEMPTS,
  orderMailRecipients,
  orderPickupShop,
  storeOfMail,
  voiceOf,
  type OrderMailDeps,
  type OrderMailRecipient,
} from './order-mail.js';
import { findPickup } from './pickup.repository.js';
import { findOrder, type OrderRow } from './processing.repository.js';

// The pickup mails (pickup.service.ts queues them with the report, in its transaction): "ready" once,
// and a reminder the morning before the last day. To the buyer, and to the receiver when the shipping
// email is another address: the receiver is who collects it. Each is rendered when sent, from the
// order and its hand-over as they are then: a collected or cancelled order gets none, a reminder
// that a later report changed sends nothing (a new day's report queued its own), and a logged-in
// buyer who turned order updates off (preferences) gets no reminder (the receiver's copy still goes).

export const ORDER_PICKUP_MAIL_JOB = 'order.pickup-mail';

export interface PickupMail {
  kind: 'ready' | 'reminder';
  /** The last day the report named. */
  collectBy: string;
  /** Which report queued it (order_pickup.reports): a reminder of an earlier one is out of date. */
  report: number;
}

export interface PickupMailJob extends PickupMail {
  orderId: number;
  recipient: OrderMailRecipient;
}

export async function queuePickupMails(
  trx: Db,
  order: Pick<OrderRow, 'id' | 'billing_email' | 'shipping_email'>,
  mail: PickupMail,
  at: { now: number; runAt?: number },
): Promise<void> {
  for (const recipient of orderMailRecipients(order)) {
    const payload: PickupMailJob = { orderId: order.id, recipient, ...mail };
    await enqueueJob(
      trx,
      { type: ORDER_PICKUP_MAIL_JOB, payload: { ...payload }, runAt: at.runAt },
      { maxAttempts: ORDER_MAIL_ATTEMPTS, now: at.now },
    );
  }
}

export function orderPickupMailHandler(deps: OrderMailDeps): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: PickupMailJob) => {
    const now = clock.now();
    const order = await findOrder(deps.db, job.orderId);
    if (!order?.code || !PAID.includes(order.status)) return 'skipped';
    const pickup = await findPickup(deps.db, order.id);
    if (!pickup || pickup.ready_at === null || pickup.collected_at !== null || pickup.collect_by === null) return 'skipped';
    if (job.kind === 'reminder') {
      if (pickup.reports !== job.report || now >= endOfLocalDay(pickup.collect_by)) return 'skipped';
      if (job.recipient === 'buyer' && order.client_account_id !== null && !(await wantsOrderUpdateMails(deps.db, order.client_account_id)))
        return 'skipped';
    }
    const to = job.recipient === 'receiver' ? order.shipping_email : order.billing_email;
    // The person's data erased since (GDPR): nobody to write to.
    if (isErasedEmail(to)) return 'skipped';
    const store = await storeOfMail(deps, order, now);
    const shop = await pickupShop(deps.db, order);
    const orderPageUrl = job.recipient === 'buyer' ? store.orderPageUrl : null;
    await deps.mailer.send({
      to,
      ...pickupMail(order, { ...job, collectBy: pickup.collect_by }, { storeName: store.storeName, orderPageUrl, shop }),
    });
    return 'sent';
  };
}

interface PickupShop {
  name: string;
  address: string | null;
  openingHours: string | null;
}

/** The shop the order waits in, in the order's language; the delivery method's name when the shop is gone. */
async function pickupShop(db: Db, order: OrderRow): Promise<PickupShop> {
  const shop = await orderPickupShop(db, order);
  if (!shop) return { name: order.delivery_name, address: null, openingHours: null };
  return { name: shop.name, address: [shop.address, shop.city].filter(Boolean).join(', ') || null, openingHours: shop.openingHours };
}

export function pickupMail(
  order: OrderRow,
  mail: PickupMail & { recipient: OrderMailRecipient },
  facts: { storeName: string; orderPageUrl: string | null; shop: PickupShop },
) {
  const { say } = voiceOf(order);
  const code = order.code ?? '';
  const { shop } = facts;
  const name = mail.recipient === 'receiver' ? order.shipping_name : order.billing_name;
  const blocks: string[][] = [
    [say('orders.mail.greeting', { name })],
    [say(mail.kind === 'ready' ? 'orders.pickup.ready' : 'orders.pickup.reminder', { code, shop: shop.name })],
    [
      ...(shop.address === null ? [] : [say('orders.pickup.address', { address: shop.address })]),
      ...(shop.openingHours === null ? [] : [say('orders.pickup.hours', { hours: shop.openingHours })]),
      say('orders.pickup.collectBy', { date: mail.collectBy }),
    ],
    ...(facts.orderPageUrl === null ? [] : [[say('orders.mail.orderPage', { url: facts.orderPageUrl })]]),
    [say('orders.pickup.code', { code })],
  ];
  const subjectKey = mail.kind === 'ready' ? 'orders.pickup.readySubject' : 'orders.pickup.reminderSubject';
  return { subject: say(subjectKey, { code, store: facts.storeName, date: mail.collectBy }), ...mailBody(blocks, facts.orderPageUrl) };
}
