import type { Kysely } from 'kysely';
import { inTransaction } from '../../../db/after-commit.js';
import type { Database } from '../../../db/schema.js';
import { answeredAt, type Clock } from '../../../infra/clock.js';
import type { Logger } from '../../../infra/logger.js';
import { GatewayRefusedError, GatewayUnavailableError, type GatewayName, type Gateways } from '../../payments/index.js';
import { applyPaymentStatus } from '../payment-status.service.js';

// The sweep's refunds of payments that settled for an order that could not go on (a late settle
// after the order was given up, when its gift cards no longer covered their share: see
// payment-status.service.ts). Each payment is refunded whole through its gateway, with an
// idempotency key of its own, so a sweep that dies after the gateway call refunds it once; the
// gateway's answer is applied like any refund, and the mark is cleared in that transaction.

const BATCH = 100;

/** Refunds the payments marked refund_due_at; answers how many were refunded. */
export async function refundUnmatchedPayments(deps: { db: Kysely<Database>; gateways: Gateways; log: Logger; clock: Clock }, now: number) {
  const due = await deps.db
    .selectFrom('order_payment')
    .selectAll()
    .where('refund_due_at', 'is not', null)
    .orderBy('refund_due_at')
    .limit(BATCH)
    .execute();
  let refunded = 0;
  for (const payment of due) {
    const name = payment.gateway as GatewayName;
    const gateway = deps.gateways[name];
    const left = payment.amount_cents - payment.refunded_cents;
    if (gateway === undefined || payment.reference === null) {
      deps.log.warn({ orderId: payment.order_id, gateway: payment.gateway }, 'order sweep: a payment to refund has no configured gateway');
      continue;
    }
    let status;
    try {
      status = left > 0 ? await gateway.refund(payment.reference, left, `${payment.idempotency_key}-unmatched`) : null;
    } catch (err) {
      if (!(err instanceof GatewayUnavailableError || err instanceof GatewayRefusedError)) throw err;
      deps.log.warn({ err, orderId: payment.order_id }, 'order sweep: the refund of an unmatched payment is left for the next sweep');
      continue;
    }
    // Stamped when the gateway answered (answeredAt says why): the sweep's time was taken before its
    // look-ups, hand-offs and the refunds before this one.
    const at = answeredAt(deps.clock, now);
    await inTransaction(deps.db, async (trx) => {
      if (status) await applyPaymentStatus(trx, name, status, 'refund', at);
      await trx.updateTable('order_payment').set({ refund_due_at: null, updated_at: at }).where('id', '=', payment.id).execute();
    });
    refunded += 1;
  }
  return refunded;
}
