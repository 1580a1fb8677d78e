import type { Kysely } from 'kysely';
import { inTransaction } from '../../../db/after-commit.js';
import type { Database } from '../../../db/schema.js';
import { answeredAt, type Clock } from '../../../infra/clock.js';
import type { Logger } from '../../../infra/logger.js';
import {
  GatewayRefusedError,
  GatewayUnavailableError,
  refundOrLookUp,
  type GatewayName,
  type Gateways,
  type PaymentGateway,
  type PaymentStatus,
} from '../../payments/index.js';
import { applyPaymentStatus } from '../payment-status.service.js';

// The sweep's refunds of payments that settled for an order that could not go on (a late settle
// after the order was given up, when its gift cards no longer covered their share: see
// payment-status.service.ts). Each payment is refunded whole through its gateway, with an
// idempotency key of its own, so a sweep that dies after the gateway call refunds it once; the
// gateway's answer is applied like any refund, and the mark is cleared in that transaction.
//
// A refusal of what was asked (the payment can no longer be refunded, part of it was refunded by hand in
// the portal, or the key was used already by a refund whose answer was lost) meets the same request again: as for an
// operator's refund (order-refunds.ts), the payment is looked up, a refund made is applied, and one
// refused is given up: the mark moves to refund_refused_at and the error log names it, for the
// operators to refund by hand (`order payments --refund-refused`, processing/refused-refunds.ts); it was
// sent again by every sweep, for good. The gateway unavailable, or refusing the shop itself (its
// credentials), is left for the next sweep.

const BATCH = 100;

type Sent = { kind: 'refunded'; status: PaymentStatus | null } | { kind: 'refused'; error: GatewayRefusedError };

type Deps = { db: Kysely<Database>; gateways: Gateways; log: Logger; clock: Clock };

/**
 * Refunds the payments marked refund_due_at, every one of them, a page at a time past the last one read;
 * answers how many were refunded. A payment it cannot refund now (its gateway not configured, unavailable)
 * stays due: read again first, 100 of them kept every payment due after them from being reached.
 */
export async function refundUnmatchedPayments(deps: Deps, now: number) {
  let refunded = 0;
  for (let after: { dueAt: number; id: number } | null = null; ;) {
    const page = await duePage(deps.db, after);
    refunded += await refundPage(deps, page, now);
    if (page.length < BATCH) return refunded;
    const last = page.at(-1)!;
    after = { dueAt: Number(last.refund_due_at), id: Number(last.id) };
  }
}

/** The payments due back after `after` in (refund_due_at, id) order. */
function duePage(db: Kysely<Database>, after: { dueAt: number; id: number } | null) {
  let query = db.selectFrom('order_payment').selectAll().where('refund_due_at', 'is not', null);
  if (after)
    query = query.where((eb) =>
      eb.or([eb('refund_due_at', '>', after.dueAt), eb.and([eb('refund_due_at', '=', after.dueAt), eb('id', '>', after.id)])]),
    );
  return query.orderBy('refund_due_at').orderBy('id').limit(BATCH).execute();
}

async function refundPage(deps: Deps, due: Awaited<ReturnType<typeof duePage>>, now: number): Promise<number> {
  let refunded = 0;
  for (const payment of due) {
    const name = payment.gateway as GatewayName;
    const gateway = deps.gateways[name];
    const left = payment.amount_cents - payment.refunded_cents;
    if (gateway === undefined || payment.reference === null) {
      deps.log.warn({ orderId: payment.order_id, gateway: payment.gateway }, 'order sweep: a payment to refund has no configured gateway');
      continue;
    }
    let sent: Sent;
    try {
      sent =
        left > 0
          ? await refundWhole(gateway, payment.reference, payment.amount_cents, left, refundKey(payment))
          : { kind: 'refunded', status: null };
    } catch (err) {
      if (!(err instanceof GatewayUnavailableError || err instanceof GatewayRefusedError)) throw err;
      const details = { err, orderId: payment.order_id };
      if (err instanceof GatewayRefusedError)
        deps.log.error(
          details,
          'order sweep: the gateway refused a request the refund of an unmatched payment needed; left for the next sweep',
        );
      else deps.log.warn(details, 'order sweep: the refund of an unmatched payment is left for the next sweep');
      continue;
    }
    // Stamped when the gateway answered (answeredAt says why): the sweep's time was taken before its
    // look-ups, hand-offs and the refunds before this one.
    const at = answeredAt(deps.clock, now);
    if (sent.kind === 'refused') {
      await deps.db
        .updateTable('order_payment')
        .set({ refund_due_at: null, refund_refused_at: at, updated_at: at })
        .where('id', '=', payment.id)
        .execute();
      deps.log.error(
        { err: sent.error, orderId: payment.order_id, paymentReference: payment.reference, cents: left },
        'order sweep: the gateway refused the refund of an unmatched payment for good; not sent again, to be refunded by hand',
      );
      continue;
    }
    const { status } = sent;
    await inTransaction(deps.db, async (trx) => {
      if (status) await applyPaymentStatus(trx, name, status, 'refund', at);
      await trx.updateTable('order_payment').set({ refund_due_at: null, updated_at: at }).where('id', '=', payment.id).execute();
    });
    refunded += 1;
  }
  return refunded;
}

/**
 * The refund's key: the same for every sweep that sends it while it is due (one that died after the gateway
 * call repeats it, and the gateway makes it once), a new one when an operator sends a refused refund
 * back to be due (`order retry-refund`): EveryPay derives the request's nonce from the key and takes no
 * nonce twice, and whether a refused request's nonce counts as taken is not documented.
 */
const refundKey = (payment: { idempotency_key: string; refund_due_at: number | null }) =>
  `${payment.idempotency_key}-unmatched-${payment.refund_due_at}`;

/** The payment once refunded whole; refused when the gateway refused what was asked and the payment is not refunded. */
async function refundWhole(gateway: PaymentGateway, reference: string, paidCents: number, cents: number, key: string): Promise<Sent> {
  const { status, refusal } = await refundOrLookUp(gateway, reference, cents, key);
  if (refusal && !(status?.state === 'refunded' && status.refundedCents >= paidCents)) return { kind: 'refused', error: refusal };
  return { kind: 'refunded', status };
}
