import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toRfc3339 } from '../../db/time.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { withLease } from '../../infra/jobs/lease.js';
import type { Logger } from '../../infra/logger.js';
import { positionEvents } from '../events/index.js';
import { signText } from './signature.js';
import {
  dueDeliveries,
  enabledEndpoints,
  fanOut,
  markDelivered,
  markFailed,
  recordAttempt,
  type DueDelivery,
} from './webhooks.repository.js';

// Webhook delivery. One dispatcher runs at a time over all processes (a lease): it positions the
// committed events, fans them out into deliveries per endpoint, and sends the due ones. A delivery
// is due when it is the first pending one of its stream for its endpoint, so the events of one
// customer arrive in order and a failing one holds back only that customer's later events. A
// failure is retried with exponential backoff; after the endpoint's max attempts it is dead (a
// dead letter: `webhook replay`), and the stream moves on. Every attempt is logged. At least once:
// a receiver that answered 2xx after we gave up waiting gets the event again (the event id is the
// idempotency key).

const BATCH = 500;
const ROUNDS_PER_RUN = 50;
const CONCURRENCY = 8;

export interface DispatcherOptions {
  db: Kysely<Database>;
  log: Logger;
  clock?: Clock;
  /** The wait before the retry after the n-th failed attempt: base * 2^(n-1), at most an hour. */
  backoffBaseMs?: number;
  timeoutMs?: number;
}

export interface RunReport {
  positioned: number;
  attempted: number;
  delivered: number;
}

/** The backoff after `attempts` failed attempts. */
export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** The body of a webhook request. */
export function webhookBody(delivery: Pick<DueDelivery, 'event_id' | 'type' | 'stream' | 'sequence' | 'position' | 'created_at' | 'data'>) {
  return JSON.stringify({
    id: delivery.event_id,
    type: delivery.type,
    stream: delivery.stream,
    sequence: Number(delivery.sequence),
    position: Number(delivery.position),
    occurredAt: toRfc3339(delivery.created_at),
    data: JSON.parse(delivery.data) as unknown,
  });
}

export function createWebhookDispatcher(options: DispatcherOptions) {
  const { db, log } = options;
  const clock = options.clock ?? systemClock;
  const backoffBaseMs = options.backoffBaseMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function send(delivery: DueDelivery): Promise<boolean> {
    const body = webhookBody(delivery);
    const timestamp = String(Math.floor(clock.now() / 1000));
    const attempt = delivery.attempts + 1;
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          'content-type': 'application/json',
          'x-timestamp': timestamp,
          'x-signature': signText(delivery.secret, timestamp, body),
          'x-event-id': String(delivery.event_id),
          'x-event-type': delivery.type,
        },
        body,
      });
      statusCode = response.status;
      await response.body?.cancel().catch(() => {});
      if (statusCode < 200 || statusCode > 299) error = `the endpoint answered ${statusCode}`;
    } catch (caught) {
      error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
    }
    const now = clock.now();
    const durationMs = Math.round(performance.now() - started);
    await recordAttempt(db, { deliveryId: delivery.id, attempt, statusCode, error, durationMs }, now);
    if (error === null) {
      await markDelivered(db, delivery.id, attempt, now);
      return true;
    }
    const dead = attempt >= delivery.max_attempts;
    await markFailed(db, delivery.id, attempt, error, dead ? 'dead' : now + retryDelayMs(attempt, backoffBaseMs), now);
    const line = { deliveryId: delivery.id, eventId: delivery.event_id, attempt, statusCode };
    if (dead) log.error(line, 'webhook delivery failed for the last time: dead letter');
    else log.warn(line, 'webhook delivery failed; it will be retried');
    return false;
  }

  async function positionAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const positioned = await db.transaction().execute((trx) => positionEvents(trx, BATCH));
      total += positioned;
      if (positioned < BATCH) return total;
    }
  }

  async function fanOutAll(): Promise<void> {
    for (const endpoint of await enabledEndpoints(db)) {
      let current = endpoint;
      for (;;) {
        const passed = await db.transaction().execute((trx) => fanOut(trx, current, BATCH, clock.now()));
        if (passed < BATCH) break;
        // Re-read for its new fan-out mark; switched off or removed meanwhile: nothing more for it.
        const fresh = (await enabledEndpoints(db)).find((row) => row.id === endpoint.id);
        if (fresh === undefined) break;
        current = fresh;
      }
    }
  }

  /** One run: position, fan out, and send until nothing is due (bounded). */
  async function runOnce(): Promise<RunReport> {
    const report: RunReport = { positioned: 0, attempted: 0, delivered: 0 };
    // Not ran: another process is dispatching; this one's turn comes at a later run.
    await withLease(db, 'webhook-dispatch', { ttlMs: 60_000, now: clock.now() }, async () => {
      report.positioned = await positionAll();
      await fanOutAll();
      for (let round = 0; round < ROUNDS_PER_RUN; round += 1) {
        const due = await dueDeliveries(db, clock.now(), BATCH);
        if (due.length === 0) break;
        for (let start = 0; start < due.length; start += CONCURRENCY) {
          const results = await Promise.all(due.slice(start, start + CONCURRENCY).map(send));
          report.attempted += results.length;
          report.delivered += results.filter(Boolean).length;
        }
      }
    });
    return report;
  }

  return { runOnce };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;

/** The worker's loop: a run every `intervalMs`, one at a time in this process. */
export function scheduleWebhookDispatch(options: DispatcherOptions & { intervalMs: number }): { stop(): Promise<void> } {
  const dispatcher = createWebhookDispatcher(options);
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = dispatcher
      .runOnce()
      .catch((error: unknown) => options.log.error({ err: error }, 'webhook dispatch failed; the next run tries again'))
      .finally(() => {
        busy = false;
      });
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
