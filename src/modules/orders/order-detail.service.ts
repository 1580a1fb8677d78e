import type { Db } from '../../db/database.js';
import { latestPayment, latestStatusChanges, orderLines, type OrderRow } from './orders.repository.js';
import { STATUS_CHANGES_SHOWN } from './order.schemas.js';
import { findPickup } from './processing/pickup.repository.js';
import type { OrderDetail } from './order.wire.js';

/** Everything the buyer's view of an order shows. */
export async function orderDetail(db: Db, order: OrderRow): Promise<OrderDetail> {
  const [lines, history, payment, pickup] = await Promise.all([
    orderLines(db, order.id),
    latestStatusChanges(db, order.id, STATUS_CHANGES_SHOWN),
    latestPayment(db, order.id),
    findPickup(db, order.id),
  ]);
  return {
    order,
    lines,
    history: history.changes,
    olderStatusChangesOmitted: history.olderOmitted,
    paymentState: payment?.state ?? null,
    pickup: pickup ?? null,
  };
}
