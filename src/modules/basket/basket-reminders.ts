import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Logger } from '../../infra/logger.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import type { PruneTask } from '../../infra/maintenance.js';
import { repeatOneAtATime } from '../../infra/repeat.js';
import { clientAccountCaller } from '../catalogue/index.js';
import { newsletterUnsubscribeHeaders, type NewsletterConfig } from '../newsletter/index.js';
import { getStore } from '../store/index.js';
import type { BasketSection } from './basket.config.js';
import { basketReminderMail } from './basket.mails.js';
import { priceBasket, type BasketContext } from './basket-pricing.js';
import {
  claimBasketVersion,
  claimRecipient,
  dueBaskets,
  pruneReminderRecipients,
  reminderFacts,
  type DueBasket,
  type DueCursor,
} from './basket-reminders.repository.js';

// Reminding a logged-in client of a basket left behind. The worker scans client baskets with lines
// whose last change (updated_at: every write moves it with the version) is more than
// BASKET_REMINDER_AFTER_HOURS and less than 7 days ago and that were not reminded for their version,
// keyset-paged over basket_reminder_due_idx. A basket is claimed by a conditional update of
// `reminded_version` (from another version to the one read), and the person's throttle (one basket
// reminder in 7 days, every store and account together) by a conditional upsert of their
// basket_reminder_recipient row, in the transaction that queues the mail job: two scans at once
// queue one mail, and a person's two baskets queue one. A basket changed after its reminder is due
// again after another quiet period. The mail is rendered when sent, from the basket as stored: one
// changed since the claim (emptied, checked out, written to), an account no longer active or a
// client no longer to be mailed gets nothing, and the job ends done.

/**
 * The client's login email while a marketing mail may go to it, else null: profile's rule (its
 * marketingEmailOf: the login email confirmed, the EMAIL marketing consent, the email channel on),
 * which the worker hands the scan and the mail job, as back-in-stock gets ConfirmedEmailOf. The
 * basket stays below profile, which imports it.
 */
export type MarketingEmailOf = (db: Db, clientAccountId: number) => Promise<string | null>;

export const BASKET_REMINDER_JOB = 'basket.reminder';
const DAY_MS = 86_400_000;
/** A basket last changed longer ago than this is not reminded of; and a person gets one reminder in this long. */
export const REMINDER_WINDOW_MS = 7 * DAY_MS;
const MAIL_ATTEMPTS = 8;
const BATCH = 200;
/** A scan stops after this many pages; the next one goes on. */
const MAX_BATCHES = 50;

export interface BasketReminderScanDeps {
  config: { basket: Pick<BasketSection, 'reminderAfterMs'> };
  marketingEmailOf: MarketingEmailOf;
}

/** One scan: claims every due basket it may and queues its mail; answers how many it queued. */
export async function scanBasketReminders(db: Kysely<Database>, deps: BasketReminderScanDeps, now: number): Promise<number> {
  const window = {
    changedAfter: now - REMINDER_WINDOW_MS,
    changedBy: now - deps.config.basket.reminderAfterMs,
    throttledSince: now - REMINDER_WINDOW_MS,
  };
  let queued = 0;
  let cursor: DueCursor | undefined;
  for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
    const due = await dueBaskets(db, window, cursor, BATCH);
    for (const basket of due) {
      if (await claimReminder(db, deps, basket, now, window.throttledSince)) queued += 1;
    }
    const last = due.at(-1);
    if (due.length < BATCH || !last) break;
    cursor = { updatedAt: last.updatedAt, id: last.id };
  }
  return queued;
}

/** Thrown to roll a claim back: the person was reminded within the window (by another basket, another scan). */
class Throttled extends Error {}

/** Claims the basket and its person's throttle and queues the mail, all or nothing; false when any of it is not to be. */
async function claimReminder(db: Kysely<Database>, deps: BasketReminderScanDeps, basket: DueBasket, now: number, throttledSince: number) {
  try {
    return await db.transaction().execute(async (trx) => {
      if ((await deps.marketingEmailOf(trx, basket.clientAccountId)) === null) return false;
      if (!(await claimBasketVersion(trx, basket))) return false;
      if (!(await claimRecipient(trx, basket.userId, now, throttledSince))) throw new Throttled();
      const payload: ReminderJob = { basketId: basket.id, version: basket.version };
      await enqueueJob(trx, { type: BASKET_REMINDER_JOB, payload }, { maxAttempts: MAIL_ATTEMPTS, now });
      return true;
    });
  } catch (error) {
    if (error instanceof Throttled) return false;
    throw error;
  }
}

/** Runs scanBasketReminders as the worker starts and then every interval until stopped; a failure is logged and the next scan tries again. */
export function scheduleBasketReminderScan(
  db: Kysely<Database>,
  deps: BasketReminderScanDeps & { config: { basket: Pick<BasketSection, 'reminderScanIntervalMs'> } },
  log: Logger,
  clock: Clock = systemClock,
): { stop(): Promise<void> } {
  // One scan at a time in this process; another process's scan is harmless (the claims). From the
  // start: a worker restarted more often than the interval still scans.
  return repeatOneAtATime(
    () =>
      scanBasketReminders(db, deps, clock.now()).then(
        (queued) => queued > 0 && log.info({ queued }, 'basket reminders queued'),
        (err: unknown) => log.error({ err }, 'basket reminder scan failed'),
      ),
    deps.config.basket.reminderScanIntervalMs,
    { fromStart: true },
  );
}

/** The basket and the version of it that was claimed. */
type ReminderJob = {
  basketId: number;
  version: number;
};

export interface BasketReminderMailDeps {
  db: Kysely<Database>;
  mailer: Mailer;
  /** The basket page's path, and what the List-Unsubscribe headers are made of (the newsletter module's). */
  config: Pick<NewsletterConfig, 'newsletter' | 'orders' | 'basePath'> & { basket: Pick<BasketSection, 'basketPagePath'> };
  marketingEmailOf: MarketingEmailOf;
  clock?: Clock;
}

/**
 * Sends a reminder, rendered now from the basket as stored and priced as GET /basket prices it for
 * the client: the orderable lines (a product no longer visible or orderable is left out), the first
 * few named. Nothing is sent ('skipped') when the basket is gone or changed since the claim, the
 * account is no longer active, the client may no longer be mailed, or no line is left.
 */
export function basketReminderMailHandler(deps: BasketReminderMailDeps): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async (job: ReminderJob) => {
    const now = clock.now();
    const facts = await reminderFacts(deps.db, job.basketId);
    if (!facts || facts.basket.version !== job.version || facts.basket.reminded_version !== job.version) return 'skipped';
    if (facts.account.status !== 'ACTIVE') return 'skipped';
    const clientAccountId = facts.basket.client_account_id;
    const email = await deps.marketingEmailOf(deps.db, clientAccountId);
    if (email === null) return 'skipped';
    const store = await getStore(deps.db, facts.basket.store_code);
    if (!store) return 'skipped';
    const language: Language = isLanguage(facts.language) ? facts.language : store.defaultLanguage;
    const caller = await clientAccountCaller(deps.db, clientAccountId);
    if (!caller) return 'skipped';
    const context: BasketContext = { caller, store, language, now };
    const priced = await priceBasket(deps.db, context, facts.basket);
    const lines = priced.lines.filter((line) => line.available);
    if (lines.length === 0) return 'skipped';
    const mail = basketReminderMail({
      language,
      storeName: store.name,
      basketUrl: `${store.frontendUrl}${deps.config.basket.basketPagePath}`,
      lines: lines.map((line) => ({ name: line.product.name, quantity: line.quantity, unitPriceCents: line.price.priceCents })),
      vatIncluded: priced.vatIncluded,
    });
    const headers = await newsletterUnsubscribeHeaders(deps.db, deps.config, { email, storeCode: store.code }, now);
    await deps.mailer.send({ to: email, ...mail, headers });
    return 'sent';
  };
}

/** The worker's prune task: people whose last reminder no longer throttles one. */
export function basketReminderPruning(): PruneTask {
  return (db, now) => pruneReminderRecipients(db, now - REMINDER_WINDOW_MS);
}
