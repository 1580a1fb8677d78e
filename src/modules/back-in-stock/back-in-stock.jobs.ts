import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Logger } from '../../infra/logger.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import type { PruneTask } from '../../infra/maintenance.js';
import { getStore } from '../store/index.js';
import { backInStockMail } from './back-in-stock.mails.js';
import { claimNotification, dueRequestIds, mailFacts, pendingScopes, pruneBackInStockRequests } from './back-in-stock.repository.js';

// Telling requesters that a product is back. The worker scans the pending requests whose product
// is available now (whatever made it so: a stock import, a products import, a status from the back
// office, stock released by a cancelled order), so no writer of products has to know about
// requests. Each request is claimed by a conditional update (notified_at from null) and its mail
// job is queued in the same transaction: two scans racing, in one process or several, queue one
// mail per request, and the outbox sends it once.

export const BACK_IN_STOCK_MAIL_JOB = 'back-in-stock.mail';
const MAIL_ATTEMPTS = 8;
const BATCH = 200;
/** A scan stops after this many batches; the next one goes on (a huge restock cannot stall the worker). */
const MAX_BATCHES = 50;
export const BACK_IN_STOCK_SCAN_INTERVAL_MS = 60_000;

/** One scan: queues the mails of every due request; answers how many this scan queued. */
export async function scanBackInStock(db: Kysely<Database>, now: number): Promise<number> {
  let queued = 0;
  for (const scope of await pendingScopes(db, now)) {
    for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
      const ids = await dueRequestIds(db, scope, now, BATCH);
      for (const id of ids) {
        const claimed = await db.transaction().execute(async (trx) => {
          if (!(await claimNotification(trx, id, now))) return false;
          await enqueueJob(trx, { type: BACK_IN_STOCK_MAIL_JOB, payload: { requestId: id } }, { maxAttempts: MAIL_ATTEMPTS, now });
          return true;
        });
        if (claimed) queued += 1;
      }
      if (ids.length < BATCH) break;
    }
  }
  return queued;
}

/** Runs scanBackInStock every interval until stopped; a failure is logged and the next scan tries again. */
export function scheduleBackInStockScan(
  db: Kysely<Database>,
  log: Logger,
  intervalMs = BACK_IN_STOCK_SCAN_INTERVAL_MS,
  clock: Clock = systemClock,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    // One scan at a time in this process; another process's scan is harmless (see above).
    if (busy) return;
    busy = true;
    running = scanBackInStock(db, clock.now())
      .then(
        (queued) => queued > 0 && log.info({ queued }, 'back-in-stock mails queued'),
        (err: unknown) => log.error({ err }, 'back-in-stock scan failed'),
      )
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** Sends one request's mail, rendered when sent: the product's name now, the client's address and language now. */
export function backInStockMailHandler(deps: { db: Kysely<Database>; mailer: Mailer }): JobHandler {
  return async (job: { requestId: number }) => {
    // Deleted by its client (or pruned) since it was queued: nobody to tell.
    const facts = await mailFacts(deps.db, job.requestId);
    if (!facts) return 'skipped';
    // A client whose login email is not confirmed would have the address's owner told of what
    // someone else asked for: a notice nobody at that mailbox wanted (requests are refused so now).
    if (facts.unconfirmed_user !== null) return 'skipped';
    const store = await getStore(deps.db, facts.store_code);
    const frontend = store?.frontendUrl ?? '';
    const mail = backInStockMail({
      language: facts.user_language ?? facts.language,
      productName: facts.product_name,
      productUrl: `${frontend}/product/${facts.product_id}`,
      storeName: store?.name ?? facts.store_code,
    });
    await deps.mailer.send({ to: facts.user_email ?? facts.email, ...mail });
    return 'sent';
  };
}

/** The worker's prune task: requests past their 14 days. */
export function backInStockPruning(): PruneTask {
  return (db, now) => pruneBackInStockRequests(db, now);
}
