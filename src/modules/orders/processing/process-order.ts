import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { systemClock, type Clock } from '../../../infra/clock.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import { recordOnlineSale } from '../../data-export/index.js';
import { moveOrder } from '../order-states.js';
import type { CustomerKind } from '../orders.tables.js';
import { sellStock } from '../stock.repository.js';
import { queueHandoff } from './handoff.js';
import { orderMailRecipients, queueOrderMails } from './order-mail.js';
import { grantEntitlements, recordGiftReceiver } from '../entitlements.repository.js';
import { findOrder, linesOf } from './processing.repository.js';

// Processing a paid order (or one with nothing to pay online), in ONE transaction: the order moves
// PENDING_PROCESSING -> PROCESSING, which only one of any number of racing workers (a repeated
// job, the sweep) achieves; that one sells the held stock, grants the digital lines' entitlements,
// queues the confirmation mails, writes the order's row of the data export's sales history and
// queues the back-office hand-off. The others change nothing.

/** What a guest's orders carry as client code in the sales history: no account, one stable code. */
export const GUEST_CLIENT_CODE = 'GUEST';

const CLIENT_TYPE: Record<CustomerKind, 'PYSIKLIENT' | 'ETTEVOTE'> = {
  GUEST: 'PYSIKLIENT',
  SIMPLE: 'PYSIKLIENT',
  BUSINESS: 'ETTEVOTE',
  WHOLESALE: 'ETTEVOTE',
};

export type ProcessOutcome = 'processed' | 'skipped';

export async function processOrder(db: Kysely<Database>, orderId: number, now: number): Promise<ProcessOutcome> {
  return db.transaction().execute(async (trx) => {
    const moved = await moveOrder(trx, { orderId, from: 'PENDING_PROCESSING', to: 'PROCESSING', cause: 'processing', now });
    if (!moved) return 'skipped';
    await sellStock(trx, orderId, now);
    const order = await findOrder(trx, orderId);
    if (!order?.code) throw new Error(`order ${orderId} has no code`);
    const lines = await linesOf(trx, [orderId]);
    await grantEntitlements(trx, order, lines, now);
    // Downloads bought for someone else are theirs too: the receiver's mail carries a key to them.
    if (orderMailRecipients(order).includes('receiver')) await recordGiftReceiver(trx, order, lines, now);
    await queueOrderMails(trx, order, now);
    await recordOnlineSale(trx, {
      orderCode: order.code,
      clientCode: order.client_code ?? GUEST_CLIENT_CODE,
      clientType: CLIENT_TYPE[order.customer_kind],
      city: order.shipping_city,
      sessionId: order.session_id,
      deliveryMethod: order.delivery_method_code,
      shopCode: order.delivery_shop_code,
      products: lines.map((line) => line.product_code),
      createdAt: now,
      // The back office may have reported the paid order before it was processed: its time then
      // found no row to fill (setSaleCreatedNavByOrder), and the row is written with it here.
      createdNav: order.nav_created_at === null ? null : Number(order.nav_created_at),
    });
    await queueHandoff(trx, orderId, now);
    return 'processed';
  });
}

/** The `order.process` job the state machine queues when an order enters PENDING_PROCESSING. */
export function orderProcessingHandler(deps: { db: Kysely<Database>; clock?: Clock }): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (payload: { orderId: number }) => processOrder(deps.db, Number(payload.orderId), clock.now());
}
