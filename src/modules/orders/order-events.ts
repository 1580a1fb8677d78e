import type { Db } from '../../db/database.js';
import { customerStream, emailStream, emitEvent } from '../events/index.js';
import type { OrderStatus } from './orders.tables.js';

// Order events for partner integrations (modules/events), written in the transaction of the
// change. A registered customer's orders are in the customer's stream, a guest's in their email's,
// so a platform sees a customer's orders and profile changes in the order they happened.

export async function orderEvent(
  trx: Db,
  orderId: number,
  change: { type: 'order.created' } | { type: 'order.status-changed'; from: OrderStatus; cause: string },
  now: number,
): Promise<void> {
  const order = await trx
    .selectFrom('customer_order as o')
    .leftJoin('client_account as a', 'a.id', 'o.client_account_id')
    .select(['o.code', 'o.store_code', 'o.status', 'o.customer_kind', 'o.billing_email', 'o.total_cents', 'o.subtotal_cents', 'a.user_id'])
    .where('o.id', '=', orderId)
    .executeTakeFirst();
  if (!order) return;
  const customerId = order.user_id === null ? null : Number(order.user_id);
  await emitEvent(
    trx,
    {
      type: change.type,
      stream: customerId === null ? emailStream(order.billing_email) : customerStream(customerId),
      data: {
        orderId,
        code: order.code,
        store: order.store_code,
        customerId,
        customerKind: order.customer_kind,
        email: order.billing_email,
        status: order.status,
        ...(change.type === 'order.status-changed' ? { previousStatus: change.from, cause: change.cause } : {}),
        subtotal: order.subtotal_cents / 100,
        total: order.total_cents / 100,
      },
    },
    now,
  );
}
