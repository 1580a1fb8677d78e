import type { Kysely } from 'kysely';
import { inTransaction } from '../../../db/after-commit.js';
import type { Database } from '../../../db/schema.js';
import { answeredAt, systemClock, type Clock } from '../../../infra/clock.js';
import { withLease } from '../../../infra/jobs/lease.js';
import type { Logger } from '../../../infra/logger.js';
import type { GatewayName, Gateways, PaymentStatus } from '../../payments/index.js';
import { moveOrder } from '../order-states.js';
import type { OrdersSection } from '../orders.config.js';
import type { OrderStatus } from '../orders.tables.js';
import { applyPaymentStatus } from '../payment-status.service.js';
import { nothingToPayOnline } from '../payment.service.js';
import { handOff, parkOrder } from './handoff.js';
import { processOrder } from './process-order.js';
import { refundUnmatchedPayments } from './unmatched-refunds.js';
import {
  givenUpWithOpenPayment,
  lockedStatusOf,
  ordersInStatusSince,
  paymentsOf,
  type SweepClock,
  type SweepCursor,
} from './processing.repository.js';

// The worker's periodic sweep of orders, under a lease so that it never runs twice at once, in
// this process or another. In batches through customer_order_status_idx (status,
// status_changed_at), or customer_order_status_created_idx (status, created_at) for NEW orders, each
// order in a transaction of its own:
//   unpaid  NEW placed more than unpaidAfterMs ago, PENDING_PAYMENT whose payment started more than
//           unpaidAfterMs ago: the gateway is asked; what it says is applied like a callback; an order
//           still unpaid is CANCELLED (the state machine releases stock), unless its payment was
//           started meanwhile (see settleUnpaid); a NEW one with nothing to pay online, its link
//           never opened, goes on to processing as the link would have sent it;
//   late    CANCELLED within LATE_PAYMENT_WATCH_MS of being given up, with a payment still open at the
//           gateway in the shop's rows (the shopper was on its page when the order was given up): the
//           gateway is asked about it at most every LATE_PAYMENT_ASK_EVERY_MS, and what it says is
//           applied like a callback (a late settle revives the order, or is refunded: payment-status.service.ts);
//   lost    PENDING_PROCESSING whose job has not processed it within a grace time: processed here;
//   handoff PENDING_NAV_PROCESSING: the hand-off is tried again (stops at the first failure: the
//           back office is down, and the next sweep comes soon enough);
//   stuck   PENDING_PROCESSING/PROCESSING/PENDING_NAV_PROCESSING past stuckAfterMs: FAILED (the last only
//           with a back office: without one an order waits there for the pull feed);
//   parked  PROCESSING past HANDOFF_GRACE_MS, its hand-off job lost: PENDING_NAV_PROCESSING, as the
//           job's last attempt would have left it, for the hand-off step of the next sweep;
//   refunds payments that settled for orders that could not go on (unmatched-refunds.ts).

export const ORDER_SWEEP_LEASE = 'order-sweep';
const BATCH = 100;
/** A paid order its job has not processed in this long lost its job (or the job keeps failing). */
export const PROCESSING_GRACE_MS = 5 * 60_000;
/**
 * A processed order its hand-off job has not handed off or parked in this long lost its job: its
 * worker was killed during the last attempt, and the job was kept as dead unrun (infra/jobs/worker.ts).
 * The job's six attempts take some ten minutes.
 */
export const HANDOFF_GRACE_MS = 60 * 60_000;
/**
 * How long after the sweep gave an order up its payment still open at the gateway is asked about: the
 * shopper may still be on the gateway's page and pay, and with the callback lost and no return the
 * shop never heard of it (charged, and no order). EveryPay ends an unpaid payment well within this
 * (abandoned), which is applied and ends the asking.
 */
export const LATE_PAYMENT_WATCH_MS = 24 * 3_600_000;
/** How often, at most, one such payment is asked about (its row's updated_at says when it last was). */
export const LATE_PAYMENT_ASK_EVERY_MS = 10 * 60_000;

export interface OrderSweepDeps {
  db: Kysely<Database>;
  config: Pick<OrdersSection, 'backoffice' | 'unpaidAfterMs' | 'stuckAfterMs' | 'sweepIntervalMs'>;
  gateways: Gateways;
  log: Logger;
  /** What stamps a change made after a call out (the hand-off's); the system's clock when not given. */
  clock?: Clock;
}

export interface SweepReport {
  cancelled: number;
  /** Orders with nothing to pay online whose link was never opened, moved on to processing. */
  movedOn: number;
  paid: number;
  processed: number;
  handedOff: number;
  failed: number;
  refunded: number;
}

/** One sweep; `{ ran: false }` when another is under way (in any process). */
export async function sweepOrders(deps: OrderSweepDeps, now: number) {
  // A sweep that outlives its interval keeps the lease (renewed); a crashed one blocks for one interval.
  const ttlMs = Math.max(deps.config.sweepIntervalMs, 60_000);
  return withLease(deps.db, ORDER_SWEEP_LEASE, { now, ttlMs }, async () => {
    const report: SweepReport = { cancelled: 0, movedOn: 0, paid: 0, processed: 0, handedOff: 0, failed: 0, refunded: 0 };
    // A change is stamped when the sweep reaches its order, never with the sweep's start: the steps
    // before it (each unpaid order's look-ups at the gateway, the hand-offs) may take minutes, and a
    // change stamped that long before it commits falls behind a walk of GET /admin/orders (answeredAt).
    const clock = deps.clock ?? systemClock;
    const reached = () => answeredAt(clock, now);
    for (const status of UNPAID)
      await eachOrder(deps, status, now - deps.config.unpaidAfterMs, UNPAID_CLOCK[status], async (orderId) => {
        const outcome = await settleUnpaid(deps, orderId, now);
        if (outcome === 'paid') report.paid += 1;
        if (outcome === 'cancelled') report.cancelled += 1;
        if (outcome === 'movedOn') report.movedOn += 1;
        return true;
      });
    await eachGivenUpWithOpenPayment(deps, now, async (orderId) => {
      if ((await settleGivenUp(deps, orderId, now)) === 'paid') report.paid += 1;
    });
    await eachOrder(deps, 'PENDING_PROCESSING', now - PROCESSING_GRACE_MS, 'status_changed_at', async (orderId) => {
      if ((await processOrder(deps.db, orderId, reached())) === 'processed') report.processed += 1;
      return true;
    });
    if (deps.config.backoffice !== undefined)
      await eachOrder(deps, 'PENDING_NAV_PROCESSING', now, 'status_changed_at', async (orderId) => {
        if ((await handOff(deps.db, deps.config, orderId, reached(), clock)) === 'completed') report.handedOff += 1;
        return true;
      });
    // Without a back office (no BACKOFFICE_ORDERS_URL) PENDING_NAV_PROCESSING is where a processed
    // order waits for the operators' pull feed and their status report, not a hand-off stuck:
    // failing it gave its gift cards and discount code back while the order was paid and shipped.
    const stuckStates: OrderStatus[] = ['PENDING_PROCESSING', 'PROCESSING'];
    if (deps.config.backoffice !== undefined) stuckStates.push('PENDING_NAV_PROCESSING');
    for (const status of stuckStates)
      await eachOrder(deps, status, now - deps.config.stuckAfterMs, 'status_changed_at', async (orderId) => {
        const hours = Math.round(deps.config.stuckAfterMs / 3_600_000);
        const cause = `stuck in ${status} for more than ${hours} hours`;
        const at = reached();
        if (await deps.db.transaction().execute((trx) => moveOrder(trx, { orderId, from: status, to: 'FAILED', cause, now: at })))
          report.failed += 1;
        return true;
      });
    // After the stuck ones: an order nobody handed off in stuckAfterMs is failed as before; a younger one
    // whose hand-off job was lost is parked, and handed off as the job would have left it to be.
    await eachOrder(deps, 'PROCESSING', now - HANDOFF_GRACE_MS, 'status_changed_at', async (orderId) => {
      const hours = Math.round(HANDOFF_GRACE_MS / 3_600_000);
      const cause = `its back-office hand-off did not end within ${hours} hour${hours === 1 ? '' : 's'} (its job was lost)`;
      await deps.db.transaction().execute((trx) => parkOrder(trx, orderId, cause, reached()));
      return true;
    });
    report.refunded = await refundUnmatchedPayments({ ...deps, clock }, now);
    return report;
  });
}

/**
 * How long an unpaid order has waited. A NEW order by its checkout: a payment start the gateway could
 * not create puts the order back in NEW and moves its last status change, so by that time an order
 * whose link is opened again and again (each start refused, or the gateway down) was never given up,
 * held its stock for good, and its history grew by two rows a start. A PENDING_PAYMENT order by its
 * last change, the start of the payment the shopper may be paying at the gateway: an order has at most
 * one payment the gateway made (create-form answers that one's page from then on), so this gives the
 * shopper the full time once, and restarts never reach it.
 */
const UNPAID_CLOCK = { NEW: 'created_at', PENDING_PAYMENT: 'status_changed_at' } as const satisfies Partial<
  Record<OrderStatus, SweepClock>
>;
const UNPAID = Object.keys(UNPAID_CLOCK) as Array<keyof typeof UNPAID_CLOCK>;

/** Whether an order still unpaid has waited past `limit` by its status's clock; one in any other status has not. */
function waitedPast(order: { status: string } & Record<SweepClock, number>, limit: number): boolean {
  const unpaid = UNPAID.find((status) => status === order.status);
  return unpaid !== undefined && order[UNPAID_CLOCK[unpaid]] < limit;
}

/**
 * Runs `visit` on each order in `status` whose `clock` is before `before`, batch by batch after a cursor
 * (so an order that stays is not visited twice). An order whose visit throws is logged and left
 * for the next sweep, except that a hand-off failure ends its step (visit returns false).
 */
async function eachOrder(
  deps: OrderSweepDeps,
  status: OrderStatus,
  before: number,
  clock: SweepClock,
  visit: (orderId: number) => Promise<boolean>,
): Promise<void> {
  let cursor: SweepCursor | undefined;
  for (;;) {
    const batch = await ordersInStatusSince(deps.db, status, clock, before, cursor, BATCH);
    for (const row of batch) {
      try {
        if (!(await visit(row.id))) return;
      } catch (err) {
        deps.log.warn({ err, orderId: row.id, status }, 'order sweep: the order is left for the next sweep');
        if (status === 'PENDING_NAV_PROCESSING') return;
      }
    }
    if (batch.length < BATCH) return;
    const last = batch[batch.length - 1]!;
    cursor = { at: last.at, id: last.id };
  }
}

/** Runs `visit` on each order given up with a payment still open (givenUpWithOpenPayment), batch by batch; a failure is logged. */
async function eachGivenUpWithOpenPayment(deps: OrderSweepDeps, now: number, visit: (orderId: number) => Promise<void>): Promise<void> {
  let cursor: SweepCursor | undefined;
  for (;;) {
    const batch = await givenUpWithOpenPayment(deps.db, now - LATE_PAYMENT_WATCH_MS, now - LATE_PAYMENT_ASK_EVERY_MS, cursor, BATCH);
    for (const row of batch) {
      try {
        await visit(row.id);
      } catch (err) {
        deps.log.warn({ err, orderId: row.id }, 'order sweep: the open payment of a given-up order is left for the next sweep');
      }
    }
    if (batch.length < BATCH) return;
    const last = batch[batch.length - 1]!;
    cursor = { at: last.at, id: last.id };
  }
}

/**
 * Asks the gateway about a given-up order's payments still open, and applies what it says as a
 * callback would (idempotent through the callback inbox): a settle revives the order, or marks the
 * payment to be refunded when the order's gift cards no longer cover their share. A payment still
 * open is stamped asked (its updated_at), so it is asked again only LATE_PAYMENT_ASK_EVERY_MS later.
 */
async function settleGivenUp(deps: OrderSweepDeps, orderId: number, now: number): Promise<'paid' | 'unchanged'> {
  const askedBefore = now - LATE_PAYMENT_ASK_EVERY_MS;
  const open = (await paymentsOf(deps.db, [orderId])).filter(
    (payment) => payment.state === 'pending' && payment.reference !== null && Number(payment.updated_at) < askedBefore,
  );
  const statuses: Array<{ id: number; gateway: GatewayName; status: PaymentStatus | null }> = [];
  for (const payment of open) {
    const name = payment.gateway as GatewayName;
    const gateway = deps.gateways[name];
    if (gateway === undefined) continue;
    // A gateway that cannot be reached throws: the order is left as it is for the next sweep.
    statuses.push({ id: Number(payment.id), gateway: name, status: await gateway.fetchStatus(payment.reference!) });
  }
  if (statuses.length === 0) return 'unchanged';
  const at = answeredAt(deps.clock ?? systemClock, now);
  return inTransaction(deps.db, async (trx) => {
    let paid = false;
    for (const { id, gateway, status } of statuses) {
      const applied = status === null ? null : await applyPaymentStatus(trx, gateway, status, 'sweep', at);
      if (applied?.outcome === 'applied' && applied.orderStatus === 'PENDING_PROCESSING') paid = true;
      // Still open (or unknown to the gateway): asked again later, not at every sweep.
      await trx
        .updateTable('order_payment')
        .set({ updated_at: at })
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .where('updated_at', '<', at)
        .execute();
    }
    return paid ? 'paid' : 'unchanged';
  });
}

/** Asks the gateway about an unpaid order's payments; cancels it when none settled. */
async function settleUnpaid(deps: OrderSweepDeps, orderId: number, now: number): Promise<'paid' | 'cancelled' | 'movedOn' | 'unchanged'> {
  const payments = (await paymentsOf(deps.db, [orderId])).filter((payment) => payment.reference !== null);
  const statuses: Array<{ gateway: GatewayName; status: PaymentStatus }> = [];
  for (const payment of payments) {
    const name = payment.gateway as GatewayName;
    const gateway = deps.gateways[name];
    if (gateway === undefined) {
      // Nobody can ask it; a settle it reports later still revives the order (CANCELLED -> PENDING_PROCESSING).
      deps.log.warn({ orderId, gateway: payment.gateway }, 'order sweep: the gateway of an unpaid order is not configured');
      continue;
    }
    // A gateway that cannot be reached throws: the order is left as it is for the next sweep.
    const status = await gateway.fetchStatus(payment.reference!);
    if (status !== null) statuses.push({ gateway: name, status });
  }
  // Stamped when the gateway answered (answeredAt says why): the sweep's time was taken before this
  // order's look-ups, and the earlier orders' of the sweep.
  const at = answeredAt(deps.clock ?? systemClock, now);
  return inTransaction(deps.db, async (trx) => {
    for (const { gateway, status } of statuses) await applyPaymentStatus(trx, gateway, status, 'sweep', at);
    // The order was read unpaid past the limit, its payments since: meanwhile the shopper may have
    // opened the payment link and been sent to the gateway's page with a payment just started, which
    // these statuses do not know of. Such an order is the next sweep's, when its own payment has been
    // unpaid that long (UNPAID_CLOCK). One back in NEW has no payment at the gateway to wait for.
    const current = await lockedStatusOf(trx, orderId);
    if (current === undefined || !waitedPast(current, now - deps.config.unpaidAfterMs))
      return current?.status === 'PENDING_PROCESSING' ? 'paid' : 'unchanged';
    const minutes = Math.round(deps.config.unpaidAfterMs / 60_000);
    // Nothing to wait for: the order's link would have moved it on, had the front-end opened it.
    const offline = current.status === 'NEW' ? nothingToPayOnline(current) : null;
    if (offline !== null) {
      const cause = `${offline}; its payment link not opened in ${minutes} minutes`;
      return (await moveOrder(trx, { orderId, from: 'NEW', to: 'PENDING_PROCESSING', cause, now: at })) ? 'movedOn' : 'unchanged';
    }
    const cancelled = await moveOrder(trx, {
      orderId,
      from: ['NEW', 'PENDING_PAYMENT'],
      to: 'CANCELLED',
      cause: `unpaid after ${minutes} minutes`,
      now: at,
    });
    if (cancelled) return 'cancelled';
    const after = await trx.selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirst();
    return after?.status === 'PENDING_PROCESSING' ? 'paid' : 'unchanged';
  });
}

/** Runs the sweep every `sweepIntervalMs` until stopped; a failure is logged and tried next time. */
export function scheduleOrderSweep(deps: OrderSweepDeps, clock: Clock = systemClock): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = sweepOrders({ clock, ...deps }, clock.now())
      .then(
        (outcome) => {
          if (outcome.ran) deps.log.info(outcome.result, 'order sweep');
        },
        (err: unknown) => deps.log.error({ err }, 'order sweep failed'),
      )
      .finally(() => {
        running = undefined;
      });
  }, deps.config.sweepIntervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
