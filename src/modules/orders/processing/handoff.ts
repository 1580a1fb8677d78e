import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';
import { toRfc3339 } from '../../../db/time.js';
import { answeredAt, systemClock, type Clock } from '../../../infra/clock.js';
import { enqueueJob } from '../../../infra/jobs/queue.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import { moveOrder } from '../order-states.js';
import type { BackofficeOrdersConfig, OrdersSection } from '../orders.config.js';
import { mainPayment, orderDocument } from './order-document.js';
import { findOrder, linesOf, paymentsOf, setHandedOff } from './processing.repository.js';

// The hand-off of a processed order to the back office: a signed JSON POST of the whole order.
// The body carries the time it was sent (`sentAt`, also the X-Timestamp header), so the HMAC of
// the body covers it and a receiver can refuse old replays. A retry sends the same
// Idempotency-Key (the order code), so a delivery the back office got but we did not hear back
// about does no harm. 2xx: the order is COMPLETED. Otherwise the job throws and the queue retries
// it with backoff; its last attempt (or no back office at all) parks the order in
// PENDING_NAV_PROCESSING, where the sweep tries again.

export const ORDER_HANDOFF_JOB = 'order.handoff';
/** With the queue's backoff (10 s, 20 s, 40 s, ...) about ten minutes of tries before the sweep takes over. */
export const HANDOFF_ATTEMPTS = 6;

export function queueHandoff(trx: Db, orderId: number, now: number): Promise<number> {
  return enqueueJob(trx, { type: ORDER_HANDOFF_JOB, payload: { orderId } }, { maxAttempts: HANDOFF_ATTEMPTS, now });
}

export class HandoffError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HandoffError';
  }
}

export type HandoffOutcome = 'completed' | 'not due' | 'no back office';

/** Posts the order once; throws HandoffError when the back office did not take it. */
export async function handOff(
  db: Kysely<Database>,
  config: Pick<OrdersSection, 'backoffice'>,
  orderId: number,
  now: number,
  clock: Clock,
): Promise<HandoffOutcome> {
  const order = await findOrder(db, orderId);
  if (!order?.code || (order.status !== 'PROCESSING' && order.status !== 'PENDING_NAV_PROCESSING')) return 'not due';
  if (config.backoffice === undefined) {
    // The operators' back office reported its own status and time of the order already (it read the
    // feed before the order was processed): it has the order, complete as a report after processing
    // makes it. Parked, it waited in PENDING_NAV_PROCESSING for a report that had come.
    if (order.nav_created_at !== null) {
      await db.transaction().execute((trx) => complete(trx, orderId, 'reported by the back office before it was processed', now));
      return 'completed';
    }
    await db.transaction().execute((trx) => parkOrder(trx, orderId, 'no back office configured (BACKOFFICE_ORDERS_URL)', now));
    return 'no back office';
  }
  const [lines, payments] = await Promise.all([linesOf(db, [orderId]), paymentsOf(db, [orderId])]);
  const body = JSON.stringify({ ...orderDocument(order, lines, mainPayment(payments)), sentAt: toRfc3339(now) });
  await post(config.backoffice, order.code, body, now);
  // Stamped when the back office answered (answeredAt says why): it may take BACKOFFICE_ORDERS_TIMEOUT_MS.
  const at = answeredAt(clock, now);
  await db.transaction().execute((trx) => complete(trx, orderId, 'handed to the back office', at));
  return 'completed';
}

/** The back office has the order: COMPLETED, handed off now. */
async function complete(trx: Db, orderId: number, cause: string, now: number): Promise<void> {
  const moved = await moveOrder(trx, { orderId, from: ['PROCESSING', 'PENDING_NAV_PROCESSING'], to: 'COMPLETED', cause, now });
  if (moved) await setHandedOff(trx, orderId, now);
}

/** The order waits for the sweep in PENDING_NAV_PROCESSING (from PROCESSING; already there: unchanged). */
export function parkOrder(trx: Db, orderId: number, cause: string, now: number): Promise<boolean> {
  return moveOrder(trx, { orderId, from: 'PROCESSING', to: 'PENDING_NAV_PROCESSING', cause, now });
}

/** The X-Signature header of a body: `sha256=` and the hex HMAC-SHA256 of the body with the secret. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

async function post(backoffice: BackofficeOrdersConfig, code: string, body: string, now: number): Promise<void> {
  let response: Response;
  try {
    response = await fetch(backoffice.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-signature': signature(backoffice.secret, body),
        'x-timestamp': String(Math.floor(now / 1000)),
        'idempotency-key': code,
      },
      body,
      signal: AbortSignal.timeout(backoffice.timeoutMs),
    });
  } catch (error) {
    throw new HandoffError(`back office unreachable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  // Read (and drop) the answer so the connection can be reused; its content is not needed.
  await response.arrayBuffer().catch(() => undefined);
  if (response.status < 200 || response.status > 299) throw new HandoffError(`back office answered ${response.status}`);
}

/** The job: retried by the queue; the last attempt parks the order for the sweep instead of failing. */
export function orderHandoffHandler(deps: { db: Kysely<Database>; config: Pick<OrdersSection, 'backoffice'>; clock?: Clock }): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (payload: { orderId: number }, { job, log }) => {
    const now = clock.now();
    try {
      return await handOff(deps.db, deps.config, payload.orderId, now, clock);
    } catch (error) {
      if (!(error instanceof HandoffError) || job.attempts < HANDOFF_ATTEMPTS) throw error;
      log.warn({ err: error, orderId: payload.orderId }, 'back-office hand-off failed for the last time; the sweep will retry it');
      await deps.db
        .transaction()
        .execute((trx) =>
          parkOrder(trx, payload.orderId, `back-office hand-off failed ${job.attempts} times: ${error.message}`, answeredAt(clock, now)),
        );
      return 'parked';
    }
  };
}
