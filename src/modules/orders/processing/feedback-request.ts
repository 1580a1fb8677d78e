import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { systemClock, type Clock } from '../../../infra/clock.js';
import { enqueueJob } from '../../../infra/jobs/queue.js';
import type { JobHandler } from '../../../infra/jobs/worker.js';
import type { Logger } from '../../../infra/logger.js';
import type { Mailer } from '../../../infra/mail/mailer.js';
import { repeatOneAtATime } from '../../../infra/repeat.js';
import { clientAccountCaller, unratedVisibleAmong } from '../../catalogue/index.js';
import { newsletterUnsubscribeHeaders, type NewsletterConfig } from '../../newsletter/index.js';
import { marketingEmailOf } from '../../profile/index.js';
import { getStore } from '../../store/index.js';
import { isGiftCardLine } from '../download-lines.js';
import type { OrdersSection } from '../orders.config.js';
import {
  claimFeedbackRequest,
  dueCollectedOrders,
  dueShippedOrders,
  isActiveClientAccount,
  type DueCursor,
  type DueOrder,
  type DueWindow,
} from './feedback-request.repository.js';
import { mailBody, voiceOf } from './order-mail.js';
import { findOrder, linesOf, type OrderRow } from './processing.repository.js';

// Asking a client to rate what they bought (the domain notes' "feedback request"): FEEDBACK_REQUEST_AFTER_DAYS
// after an order of theirs was completed (the back office has it; the parcel has had time to arrive), or
// for a pickup order after the back office reported it collected, once per order and at most once a
// month per person (all their accounts). Ratings need an account, so only a logged-in client's orders
// are asked about; it is a marketing mail, so only while profile's rule lets one go (the login email
// confirmed, the EMAIL marketing consent, the email channel on, the address not refused), with the
// newsletter's List-Unsubscribe headers. The worker scans every hour: orders in a week-long window,
// keyset-paged; each is claimed with the person's monthly ask in the transaction that queues
// the mail. The mail is rendered when sent, naming the products the client could rate now and has not:
// an order cancelled since, a client no longer to be mailed, or nothing left to rate sends nothing.

export const ORDER_FEEDBACK_MAIL_JOB = 'order.feedback-request';
const DAY_MS = 86_400_000;
/** An order completed longer ago than the delay and this is not asked about (a worker that was down a month). */
const WINDOW_MS = 7 * DAY_MS;
/** A person is asked at most once in this long, however many orders (of however many accounts) they complete. */
export const ASK_EVERY_MS = 30 * DAY_MS;
const SCAN_INTERVAL_MS = 3_600_000;
const MAIL_ATTEMPTS = 8;
const BATCH = 200;
const MAX_BATCHES = 50;
/** Products a mail names; an order of more is asked about its first ones. */
const MAX_PRODUCTS = 10;

interface FeedbackMailJob {
  orderId: number;
}

/**
 * One scan: claims every due order it may and queues its mail; answers how many it queued. Delivered
 * orders are due FEEDBACK_REQUEST_AFTER_DAYS after they were completed, pickup orders after they were
 * collected (a shop may keep one for weeks first); each walk looks a week back from that.
 */
export async function scanFeedbackRequests(db: Kysely<Database>, config: Pick<OrdersSection, 'feedbackRequestAfterMs'>, now: number) {
  if (config.feedbackRequestAfterMs === 0) return 0;
  const window: DueWindow = {
    after: now - config.feedbackRequestAfterMs - WINDOW_MS,
    by: now - config.feedbackRequestAfterMs,
    askedAfter: now - ASK_EVERY_MS,
  };
  let queued = 0;
  for (const walk of [dueShippedOrders, dueCollectedOrders]) {
    let cursor: DueCursor | undefined;
    for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
      const due = await walk(db, window, cursor, BATCH);
      for (const order of due) if (await claimAndQueue(db, order, window, now)) queued += 1;
      const last = due.at(-1);
      if (due.length < BATCH || !last) break;
      cursor = { dueFrom: last.dueFrom, id: last.id };
    }
  }
  return queued;
}

/**
 * Claims the order's ask and queues its mail, when a marketing mail may go to the client and the order
 * has something they can rate. Both are read before the write transaction, so that an order that is
 * not to be asked about (yet) costs the hourly scan no write lock; the consent is read again inside it.
 */
async function claimAndQueue(db: Kysely<Database>, order: DueOrder, window: DueWindow, now: number): Promise<boolean> {
  if ((await marketingEmailOf(db, order.clientAccountId)) === null) return false;
  const row = await findOrder(db, order.id);
  if (!row || !(await rateableProducts(db, row))?.products.length) return false;
  return db.transaction().execute(async (trx) => {
    if ((await marketingEmailOf(trx, order.clientAccountId)) === null) return false;
    if (!(await claimFeedbackRequest(trx, order, now, window.askedAfter))) return false;
    const payload: FeedbackMailJob = { orderId: order.id };
    await enqueueJob(trx, { type: ORDER_FEEDBACK_MAIL_JOB, payload: { ...payload } }, { maxAttempts: MAIL_ATTEMPTS, now });
    return true;
  });
}

/**
 * The order's store and the products the client could rate now and have not (shown to them there, not a
 * gift card), the first MAX_PRODUCTS with their front-end pages; undefined for a store or account gone.
 */
async function rateableProducts(db: Kysely<Database>, order: OrderRow) {
  const clientAccountId = order.client_account_id;
  const [store, caller] = await Promise.all([
    getStore(db, order.store_code),
    clientAccountId === null ? undefined : clientAccountCaller(db, clientAccountId),
  ]);
  if (!store || !caller || clientAccountId === null) return undefined;
  const bought = [
    ...new Map(
      (await linesOf(db, [order.id])).filter((line) => !isGiftCardLine(line)).map((line) => [Number(line.product_id), line.title] as const),
    ),
  ];
  const rateable = await unratedVisibleAmong(
    db,
    { storeCode: store.code, caller, clientAccountId },
    bought.map(([id]) => id),
  );
  const products = bought
    .filter(([id]) => rateable.has(id))
    .slice(0, MAX_PRODUCTS)
    .map(([id, title]) => ({ title, url: `${store.frontendUrl}/product/${id}` }));
  return { store, products };
}

/** Runs scanFeedbackRequests as the worker starts and then every hour until stopped; a failure is logged and the next scan tries again. */
export function scheduleFeedbackRequestScan(
  db: Kysely<Database>,
  config: Pick<OrdersSection, 'feedbackRequestAfterMs'>,
  log: Logger,
  clock: Clock = systemClock,
): { stop(): Promise<void> } {
  return repeatOneAtATime(
    () =>
      scanFeedbackRequests(db, config, clock.now()).then(
        (queued) => queued > 0 && log.info({ queued }, 'feedback requests queued'),
        (err: unknown) => log.error({ err }, 'feedback request scan failed'),
      ),
    SCAN_INTERVAL_MS,
    { fromStart: true },
  );
}

export interface FeedbackMailDeps {
  db: Kysely<Database>;
  mailer: Mailer;
  /** What the List-Unsubscribe headers are made of (the newsletter module's). */
  config: Pick<NewsletterConfig, 'newsletter' | 'orders' | 'basePath'>;
  clock?: Clock;
}

export function orderFeedbackMailHandler(deps: FeedbackMailDeps): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: FeedbackMailJob) => {
    const order = await findOrder(deps.db, job.orderId);
    const clientAccountId = order?.client_account_id ?? null;
    if (!order?.code || order.status !== 'COMPLETED' || clientAccountId === null) return 'skipped';
    if (!(await isActiveClientAccount(deps.db, clientAccountId))) return 'skipped';
    const email = await marketingEmailOf(deps.db, clientAccountId);
    if (email === null) return 'skipped';
    const rateable = await rateableProducts(deps.db, order);
    if (!rateable?.products.length) return 'skipped';
    const { store, products } = rateable;
    const headers = await newsletterUnsubscribeHeaders(deps.db, deps.config, { email, storeCode: store.code }, clock.now());
    await deps.mailer.send({ to: email, ...feedbackRequestMail(order, products, store.name), headers });
    return 'sent';
  };
}

export function feedbackRequestMail(order: OrderRow, products: ReadonlyArray<{ title: string; url: string }>, storeName: string) {
  const { say } = voiceOf(order);
  const code = order.code ?? '';
  const blocks: string[][] = [
    [say('orders.mail.greeting', { name: order.billing_name })],
    [say('orders.feedback.intro', { code })],
    products.map((product) => say('orders.feedback.line', product)),
    [say('orders.feedback.why', { store: storeName })],
  ];
  const links = products.map((product) => product.url);
  return { subject: say('orders.feedback.subject', { code, store: storeName }), ...mailBody(blocks, links) };
}
