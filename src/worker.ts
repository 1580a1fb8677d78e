import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { systemClock, type Clock } from './infra/clock.js';
import { createFileStore } from './infra/file-store/index.js';
import { configuredGateways, type Gateways } from './modules/payments/index.js';
import { createWorker, type JobHandlers, type Worker } from './infra/jobs/worker.js';
import { createMailer, type Mailer } from './infra/mail/mailer.js';
import { pruneRefusedAddresses, refusedAddressBook } from './infra/mail/refused-addresses.js';
import { bounceSecret } from './infra/mail/bounces.js';
import { schedulePruning } from './infra/maintenance.js';
import { ACCOUNT_MAIL_JOB, accessTokenPruning, accountMailHandler } from './modules/accounts/index.js';
import {
  BACK_IN_STOCK_CONFIRMATION_JOB,
  BACK_IN_STOCK_MAIL_JOB,
  backInStockConfirmationHandler,
  backInStockMailHandler,
  backInStockPruning,
  scheduleBackInStockScan,
} from './modules/back-in-stock/index.js';
import {
  BASKET_REMINDER_JOB,
  basketPruning,
  basketReminderMailHandler,
  basketReminderPruning,
  scheduleBasketReminderScan,
} from './modules/basket/index.js';
import { CAMPAIGN_STAMPS_JOB, campaignStampsHandler } from './modules/catalogue-import/index.js';
import { CONTACT_MAIL_JOB, contactMailHandler } from './modules/contact/index.js';
import { bannerCtrPruning } from './modules/ctr/index.js';
import {
  expireCards,
  GIFT_CARD_ISSUE_JOB,
  GIFT_CARD_MAIL_JOB,
  giftCardIssueHandler,
  giftCardMailHandler,
} from './modules/gift-cards/index.js';
import {
  DOWNLOAD_FILE_ITEMS_JOB,
  DOWNLOAD_FILE_REMOVAL_JOB,
  fileItemsHandler,
  fileRemovalHandler,
  pruneUsedLinks,
} from './modules/downloads/index.js';
import { NEWSLETTER_MAIL_JOB, newsletterMailHandler, newsletterRequestPruning } from './modules/newsletter/index.js';
import { COMPLETE_REGISTRATION_JOB, completeRegistrationHandler } from './modules/marketing/index.js';
import {
  ORDER_CANCELLED_MAIL_JOB,
  ORDER_PICKUP_MAIL_JOB,
  ORDER_FEEDBACK_MAIL_JOB,
  ORDER_REFUNDED_MAIL_JOB,
  ORDER_HANDOFF_JOB,
  ORDER_MAIL_JOB,
  ORDER_PROCESSING_JOB,
  orderCancelledMailHandler,
  orderPickupMailHandler,
  orderFeedbackMailHandler,
  scheduleFeedbackRequestScan,
  orderRefundedMailHandler,
  orderHandoffHandler,
  orderMailHandler,
  orderProcessingHandler,
  scheduleOrderSweep,
} from './modules/orders/index.js';
import {
  confirmedLoginEmailOf,
  marketingEmailOf,
  PROFILE_MAIL_JOB,
  profileMailHandler,
  wantsBackInStockMails,
  wishlistOfferRecipient,
  wishlistOfferRecipients,
} from './modules/profile/index.js';
import { socialSignInPruning, usedIdTokenPruning } from './modules/social/index.js';
import {
  cardTokensFor,
  SUBSCRIPTION_ANSWER_DEADLINE_JOB,
  SUBSCRIPTION_MAIL_JOB,
  SUBSCRIPTION_REFUND_JOB,
  scheduleSubscriptionBilling,
  subscriptionCardPruning,
  subscriptionMailHandler,
  answerDeadlineHandler,
  subscriptionRefundHandler,
} from './modules/subscriptions/index.js';
import { sessionActionPruning } from './modules/tracking/index.js';
import { pruneIntegrationEvents, scheduleWebhookDispatch } from './modules/integrations/index.js';
import { createCatalogue, scheduleCategoryTotalsFold } from './modules/catalogue/index.js';
import {
  type OfferRecipients,
  scanWishlistOffers,
  scheduleWishlistOfferScan,
  WISHLIST_OFFER_MAIL_JOB,
  wishlistOfferMailHandler,
} from './modules/wishlist/index.js';
// The modules' messages, registered with translate() (src/messages.ts).
import './messages.js';

/** Who may be mailed wishlist offers: profile's rule, handed to the wishlist's scan and mail job. */
const offerRecipients: OfferRecipients = { page: wishlistOfferRecipients, one: wishlistOfferRecipient };

/**
 * One wishlist offer scan at `now` (scheduled by the job runner; tests call it with their own time),
 * over a catalogue of the worker's own: the cards, visibility and prices GET /wishlist shows.
 */
export function wishlistOfferScan(database: DatabaseHandle, config: Config): (now: number) => Promise<number> {
  const deps = { db: database.db, catalogue: createCatalogue({ database, config }), config: config.wishlist, recipients: offerRecipients };
  return (now) => scanWishlistOffers(deps, now);
}

/** Every job type and what runs it; registered here, in one place, like the routes in app.ts. */
export function buildJobHandlers(deps: {
  database: DatabaseHandle;
  config: Config;
  mailer: Mailer;
  gateways?: Gateways;
  /**
   * What every handler reads the time by (the system's when not given; a test's moved clock): the worker's, which
   * claims their jobs by it. A handler by another clock queued its follow-up jobs (a verification mail after a
   * registration's) at a time the worker did not reach, or stamped what it did out of step with the app.
   */
  clock?: Clock;
}): JobHandlers {
  const gateways = deps.gateways ?? workerGateways(deps.database, deps.config);
  const clock = deps.clock ?? systemClock;
  return {
    [ACCOUNT_MAIL_JOB]: accountMailHandler({ db: deps.database.db, config: deps.config, mailer: deps.mailer, clock }),
    [NEWSLETTER_MAIL_JOB]: newsletterMailHandler({ db: deps.database.db, config: deps.config, mailer: deps.mailer, clock }),
    [COMPLETE_REGISTRATION_JOB]: completeRegistrationHandler(deps.config.conversions),
    [ORDER_PROCESSING_JOB]: orderProcessingHandler({ db: deps.database.db, clock }),
    [ORDER_MAIL_JOB]: orderMailHandler({ db: deps.database.db, mailer: deps.mailer, config: deps.config.orders, clock }),
    [ORDER_CANCELLED_MAIL_JOB]: orderCancelledMailHandler({ db: deps.database.db, mailer: deps.mailer, config: deps.config.orders, clock }),
    [ORDER_PICKUP_MAIL_JOB]: orderPickupMailHandler({ db: deps.database.db, mailer: deps.mailer, config: deps.config.orders, clock }),
    [ORDER_FEEDBACK_MAIL_JOB]: orderFeedbackMailHandler({ db: deps.database.db, mailer: deps.mailer, config: deps.config, clock }),
    [ORDER_REFUNDED_MAIL_JOB]: orderRefundedMailHandler({ db: deps.database.db, mailer: deps.mailer, config: deps.config.orders, clock }),
    [ORDER_HANDOFF_JOB]: orderHandoffHandler({ db: deps.database.db, config: deps.config.orders, clock }),
    [PROFILE_MAIL_JOB]: profileMailHandler({ db: deps.database.db, mailer: deps.mailer, clock }),
    [BACK_IN_STOCK_MAIL_JOB]: backInStockMailHandler({
      db: deps.database.db,
      mailer: deps.mailer,
      confirmedEmailOf: confirmedLoginEmailOf,
      wantsBackInStockMails,
    }),
    [WISHLIST_OFFER_MAIL_JOB]: wishlistOfferMailHandler({
      db: deps.database.db,
      mailer: deps.mailer,
      config: deps.config,
      recipients: offerRecipients,
      clock,
    }),
    [BACK_IN_STOCK_CONFIRMATION_JOB]: backInStockConfirmationHandler({
      db: deps.database.db,
      config: deps.config.backInStock,
      mailer: deps.mailer,
      clock,
    }),
    [BASKET_REMINDER_JOB]: basketReminderMailHandler({
      db: deps.database.db,
      mailer: deps.mailer,
      config: deps.config,
      marketingEmailOf,
      clock,
    }),
    [SUBSCRIPTION_MAIL_JOB]: subscriptionMailHandler({ db: deps.database.db, mailer: deps.mailer, clock }),
    [SUBSCRIPTION_ANSWER_DEADLINE_JOB]: answerDeadlineHandler({ db: deps.database.db, clock }),
    [SUBSCRIPTION_REFUND_JOB]: subscriptionRefundHandler({ db: deps.database.db, gateways, clock }),
    [CONTACT_MAIL_JOB]: contactMailHandler({
      db: deps.database.db,
      mailer: deps.mailer,
      backofficeEmails: deps.config.mail.backofficeEmails,
    }),
    [GIFT_CARD_ISSUE_JOB]: giftCardIssueHandler({ db: deps.database.db, clock }),
    [GIFT_CARD_MAIL_JOB]: giftCardMailHandler({ db: deps.database.db, mailer: deps.mailer, clock }),
    [DOWNLOAD_FILE_ITEMS_JOB]: fileItemsHandler({ db: deps.database.db, batch: deps.config.downloads.itemsBatch }),
    [DOWNLOAD_FILE_REMOVAL_JOB]: fileRemovalHandler({
      db: deps.database.db,
      batch: deps.config.downloads.itemsBatch,
      // Made at the first removal that has bytes to delete: the S3 client is loaded only then.
      fileStore: once(() => createFileStore(deps.config.fileStore)),
    }),
    [CAMPAIGN_STAMPS_JOB]: campaignStampsHandler({ db: deps.database.db, clock }),
  };
}

/** `make`, called once on first use; a failed call is tried again at the next. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}

export interface JobRunner {
  worker: Worker;
  mailer: Mailer;
  /**
   * Starts the worker's polling, the hourly pruning of expired rows, the order sweep, the back-in-stock,
   * basket reminder and wishlist offer scans, subscription billing and the category totals' fold.
   */
  start(): void;
  stop(): Promise<void>;
}

const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * The gateways a process other than serve pays and refunds through (a worker, `subscription bill`):
 * the configured ones.
 */
export function workerGateways(database: DatabaseHandle, config: Config): Gateways {
  return configuredGateways({
    database,
    clock: systemClock,
    everypay: config.everypay,
    // A worker of its own does not know whether serve runs the demo: only `off` turns it off.
    testGateway: config.testGateway !== 'off',
    publicUrl: config.orders.publicUrl,
    basePath: config.basePath,
  });
}

/**
 * A worker over the outbox with the real mailer: inside `serve` (WORKER=inline) or `storefront worker`.
 * `clock`: the time of everything it runs, the app's (the system's in both; a test's moved clock): jobs are
 * queued at the app's time, and a worker by another time ran them too early or never (createWorker).
 * `gateways`: the configured ones when not given.
 */
export function createJobRunner(
  database: DatabaseHandle,
  config: Config,
  log: FastifyBaseLogger,
  options: { clock: Clock; gateways?: Gateways },
): JobRunner {
  const { clock } = options;
  const gateways = options.gateways ?? workerGateways(database, config);
  // At creation, not at start: a process without the card token key stops before it runs anything.
  const cardTokens = cardTokensFor({ databaseUrl: config.databaseUrl, cardTokenKeys: config.subscriptions.cardTokenKeys }, log);
  const mailer = createMailer(config.mail, log, refusedAddressBook(database.db, systemClock, log), () =>
    bounceSecret(database.db, config.mail.bounceSecret, systemClock.now()),
  );
  const worker = createWorker({
    database,
    handlers: buildJobHandlers({ database, config, mailer, gateways, clock }),
    log,
    pollIntervalMs: config.jobs.pollIntervalMs,
    concurrency: config.jobs.concurrency,
    clock,
  });
  let pruning: { stop(): void } | undefined;
  let orderSweep: { stop(): Promise<void> } | undefined;
  let backInStockScan: { stop(): Promise<void> } | undefined;
  let wishlistOfferScanning: { stop(): Promise<void> } | undefined;
  let basketReminderScan: { stop(): Promise<void> } | undefined;
  let feedbackRequestScan: { stop(): Promise<void> } | undefined;
  let subscriptionBilling: { stop(): Promise<void> } | undefined;
  let webhookDispatch: { stop(): Promise<void> } | undefined;
  let categoryTotalsFold: { stop(): Promise<void> } | undefined;
  return {
    worker,
    mailer,
    start() {
      worker.start();
      pruning = schedulePruning(
        database.db,
        log,
        PRUNE_INTERVAL_MS,
        {
          accessTokens: accessTokenPruning(),
          socialSignIns: socialSignInPruning(),
          sessionActions: sessionActionPruning(config.dataExport.sessionActionRetentionDays * 86_400_000),
          usedIdTokens: usedIdTokenPruning(),
          baskets: basketPruning(),
          basketReminderRecipients: basketReminderPruning(),
          newsletterRequests: newsletterRequestPruning(),
          usedDownloadLinks: (db, now) => pruneUsedLinks(db, now),
          backInStockRequests: backInStockPruning(),
          subscriptionCards: subscriptionCardPruning,
          // Conditional per card: two workers expire each card once.
          expiredGiftCards: (db, now) => expireCards(db, now),
          integrationEvents: pruneIntegrationEvents,
          bannerCtrHours: bannerCtrPruning,
          refusedMailAddresses: pruneRefusedAddresses,
        },
        clock,
      );
      orderSweep = scheduleOrderSweep({ db: database.db, config: config.orders, gateways, log }, clock);
      backInStockScan = scheduleBackInStockScan(database.db, log, undefined, clock);
      wishlistOfferScanning = scheduleWishlistOfferScan(
        wishlistOfferScan(database, config),
        log,
        config.wishlist.offerScanIntervalMs,
        clock,
      );
      basketReminderScan = scheduleBasketReminderScan(database.db, { config, marketingEmailOf }, log, clock);
      feedbackRequestScan = scheduleFeedbackRequestScan(database.db, config.orders, log, clock);
      subscriptionBilling = scheduleSubscriptionBilling(
        { db: database.db, gateways, cardTokens, log, concurrency: config.subscriptions.billingConcurrency },
        undefined,
        clock,
      );
      webhookDispatch = scheduleWebhookDispatch({ db: database.db, log, intervalMs: config.jobs.pollIntervalMs, clock });
      categoryTotalsFold = scheduleCategoryTotalsFold(database.db, log);
    },
    async stop() {
      pruning?.stop();
      await orderSweep?.stop();
      await backInStockScan?.stop();
      await wishlistOfferScanning?.stop();
      await basketReminderScan?.stop();
      await feedbackRequestScan?.stop();
      await subscriptionBilling?.stop();
      await webhookDispatch?.stop();
      await categoryTotalsFold?.stop();
      await worker.stop();
      mailer.close();
    },
  };
}
