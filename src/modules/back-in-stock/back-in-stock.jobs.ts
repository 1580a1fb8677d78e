import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Logger } from '../../infra/logger.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import type { PruneTask } from '../../infra/maintenance.js';
import { repeatOneAtATime } from '../../infra/repeat.js';
import { newToken } from '../../infra/tokens.js';
import type { Db } from '../../db/database.js';
import { getStore } from '../store/index.js';
import type { BackInStockSection } from './back-in-stock.config.js';
import { backInStockConfirmationMail, backInStockMail } from './back-in-stock.mails.js';
import {
  claimMailbox,
  dueRequests,
  mailFacts,
  pendingScopes,
  pruneBackInStockRequests,
  setRequestToken,
  unconfirmedRequest,
} from './back-in-stock.repository.js';

// Telling requesters that a product is back. The worker scans the pending requests whose product
// is available now (whatever made it so: a stock import, a products import, a status from the back
// office, stock released by a cancelled order), so no writer of products has to know about
// requests. The due requests of one mailbox (store, product, email: a person's retail and business
// accounts, a guest's and a client's request with one address) are claimed together by one
// conditional update (notified_at from null) and their one mail job is queued in the same
// transaction: two scans racing, in one process or several, queue one mail per mailbox, and the
// outbox sends it once. Only confirmed requests are told: a guest's waits until its address follows
// the link of the confirmation mail (below).

/**
 * The client account's login email (normalised) while its user has confirmed it, else null: the
 * profile module's confirmedLoginEmailOf, which the app hands the routes and the worker hands the
 * mail job, as the gift cards get it. Whether a login email is confirmed is profile's table and
 * rule; back-in-stock neither reads the one nor repeats the other, and stays below profile (which
 * brings accounts, the basket and the gift cards with it).
 */
export type ConfirmedEmailOf = (db: Db, clientAccountId: number) => Promise<string | null>;

/**
 * Whether the client wants back-in-stock mails: the `notifications.backInStock` switch of its
 * preferences, profile's `wantsBackInStockMails`, handed over as `ConfirmedEmailOf` is.
 */
export type WantsBackInStockMails = (db: Db, clientAccountId: number) => Promise<boolean>;

/** What back-in-stock asks profile about a client: where it is told, and whether it wants to be. */
export interface ClientMailbox {
  confirmedEmailOf: ConfirmedEmailOf;
  wantsBackInStockMails: WantsBackInStockMails;
}

export const BACK_IN_STOCK_MAIL_JOB = 'back-in-stock.mail';
/** The confirmation mail of a guest's request (double opt-in); it carries the request's id, never a token. */
export const BACK_IN_STOCK_CONFIRMATION_JOB = 'back-in-stock.confirmation';
const MAIL_ATTEMPTS = 8;
const BATCH = 200;
/** A scan stops after this many batches; the next one goes on (a huge restock cannot stall the worker). */
const MAX_BATCHES = 50;
export const BACK_IN_STOCK_SCAN_INTERVAL_MS = 60_000;

/** One scan: queues the mails of every due request, one per mailbox; answers how many this scan queued. */
export async function scanBackInStock(db: Kysely<Database>, now: number): Promise<number> {
  let queued = 0;
  for (const scope of await pendingScopes(db, now)) {
    for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
      const due = await dueRequests(db, scope, now, BATCH);
      for (const request of due) {
        // A request of a mailbox claimed earlier in this batch is claimed already: nothing more is queued.
        const claimed = await db.transaction().execute(async (trx) => {
          const requests = await claimMailbox(trx, request, now);
          if (requests.length === 0) return false;
          const payload: MailJob = { requestIds: requests.map((claimedRequest) => claimedRequest.id) };
          await enqueueJob(trx, { type: BACK_IN_STOCK_MAIL_JOB, payload }, { maxAttempts: MAIL_ATTEMPTS, now });
          return true;
        });
        if (claimed) queued += 1;
      }
      if (due.length < BATCH) break;
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
  // One scan at a time in this process; another process's scan is harmless (see above).
  return repeatOneAtATime(
    () =>
      scanBackInStock(db, clock.now()).then(
        (queued) => queued > 0 && log.info({ queued }, 'back-in-stock mails queued'),
        (err: unknown) => log.error({ err }, 'back-in-stock scan failed'),
      ),
    intervalMs,
  );
}

/**
 * A restock mail job: the requests of one mailbox it tells, clients' first (a client's mail follows
 * its account's language). A job queued before mails were per mailbox names one request.
 */
type MailJob = { requestIds: number[] } | { requestId: number };

/**
 * Sends one mailbox's mail, rendered when sent: the product's name now, the address and language of
 * the first of its requests that may still be told.
 */
export function backInStockMailHandler(deps: { db: Kysely<Database>; mailer: Mailer } & ClientMailbox): JobHandler {
  return async (job: MailJob) => {
    const ids = 'requestIds' in job ? job.requestIds : [job.requestId];
    for (const id of ids) {
      const told = await toldRequest(deps, id);
      if (!told) continue;
      const { facts, to } = told;
      const store = await getStore(deps.db, facts.store_code);
      const frontend = store?.frontendUrl ?? '';
      const mail = backInStockMail({
        language: facts.user_language ?? facts.language,
        productName: facts.product_name,
        productUrl: `${frontend}/product/${facts.product_id}`,
        storeName: store?.name ?? facts.store_code,
      });
      await deps.mailer.send({ to, ...mail });
      return 'sent';
    }
    return 'skipped';
  };
}

/** The request's mail facts and address while it may still be told; undefined when it may not. */
async function toldRequest(deps: { db: Kysely<Database> } & ClientMailbox, id: number) {
  // Deleted by its client (or pruned) since it was queued: nobody to tell.
  const facts = await mailFacts(deps.db, id);
  if (!facts) return undefined;
  // Asked again by a guest since it was queued: it waits for the address to confirm it again.
  if (facts.confirmed_at === null) return undefined;
  if (facts.client_account_id === null) return { facts, to: facts.email };
  // Taken out of its company since (REMOVED): nobody can log in to it to see or withdraw the request.
  if (facts.account_status !== 'ACTIVE') return undefined;
  // A client whose login email is not confirmed would have the address's owner told of what
  // someone else asked for: a notice nobody at that mailbox wanted (requests are refused so now).
  // One look-up per client's request, and none for a guest's (its address confirmed itself).
  const clientEmail = await deps.confirmedEmailOf(deps.db, Number(facts.client_account_id));
  if (clientEmail === null) return undefined;
  // Switched off since it asked: the request is claimed and told nothing (a guest's request of the
  // same mailbox, which its address confirmed itself, is still told).
  return (await deps.wantsBackInStockMails(deps.db, Number(facts.client_account_id))) ? { facts, to: clientEmail } : undefined;
}

/** Queues the confirmation mail of a guest's request in the caller's transaction: sent if and only if that commits. */
export function queueConfirmationMail(trx: Db, requestId: number, now: number): Promise<number> {
  return enqueueJob(trx, { type: BACK_IN_STOCK_CONFIRMATION_JOB, payload: { requestId } }, { maxAttempts: MAIL_ATTEMPTS, now });
}

const HOUR_MS = 3_600_000;

/**
 * Sends the confirmation mail of a guest's request. The token is minted here and only its hash is
 * stored, committed before sending (a retry after a failed send mints a fresh one; the newest
 * mail's link is the one that works). A request confirmed, taken over by its address's client,
 * re-armed by a newer request (whose own job mails) or expired since it was queued gets no mail.
 */
export function backInStockConfirmationHandler(deps: {
  db: Kysely<Database>;
  config: Pick<BackInStockSection, 'confirmTokenTtlMs' | 'confirmPath'>;
  mailer: Mailer;
  clock?: Clock;
}): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: { requestId: number }) => {
    const now = clock.now();
    const request = await unconfirmedRequest(deps.db, job.requestId);
    if (!request) return 'skipped';
    if (Number(request.expires_at) <= now) return 'cancelled';
    const store = await getStore(deps.db, request.store_code);
    if (!store) throw new Error(`unknown store ${request.store_code}`);
    const { token, hash } = newToken();
    const stored = await setRequestToken(
      deps.db,
      { id: Number(request.id), expiresAtRead: Number(request.expires_at) },
      hash,
      now + deps.config.confirmTokenTtlMs,
    );
    if (!stored) return 'cancelled';
    const mail = backInStockConfirmationMail({
      language: request.language,
      productName: request.product_name,
      storeName: store.name,
      confirmUrl: `${store.frontendUrl}${deps.config.confirmPath}?backInStockToken=${token}`,
      hours: Math.round(deps.config.confirmTokenTtlMs / HOUR_MS),
    });
    await deps.mailer.send({ to: request.email, ...mail });
    return 'sent';
  };
}

/** The worker's prune task: requests past their 14 days, and guests' requests whose link expired unconfirmed. */
export function backInStockPruning(): PruneTask {
  return (db, now) => pruneBackInStockRequests(db, now);
}
