import type { Db } from '../../db/database.js';
import { latestPayment, orderLines, statusHistory, type OrderRow } from './orders.repository.js';
import type { OrderDetail } from './order.wire.js';

/** Everything the buyer's view of an order shows. */
export async function orderDetail(db: Db, order: OrderRow): Promise<OrderDetail> {
  const [lines, history, payment] = await Promise.all([orderLines(db, order.id), statusHistory(db, order.id), latestPayment(db, order.id)]);
  return { order, lines, history, paymentState: payment?.state ?? null };
}
