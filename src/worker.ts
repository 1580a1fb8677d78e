import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { createWorker, type JobHandlers, type Worker } from './infra/jobs/worker.js';
import { createMailer, type Mailer } from './infra/mail/mailer.js';
import { schedulePruning } from './infra/maintenance.js';
import { ACCOUNT_MAIL_JOB, accessTokenPruning, accountMailHandler } from './modules/accounts/index.js';
import { basketPruning } from './modules/basket/index.js';
import { COMPLETE_REGISTRATION_JOB, completeRegistrationHandler } from './modules/marketing/index.js';
import { socialSignInPruning, usedIdTokenPruning } from './modules/social/index.js';
import { sessionActionPruning } from './modules/tracking/index.js';
// The modules' messages, registered with translate() (src/messages.ts).
import './messages.js';

/** Every job type and what runs it; registered here, in one place, like the routes in app.ts. */
export function buildJobHandlers(deps: { database: DatabaseHandle; config: Config; mailer: Mailer }): JobHandlers {
  return {
    [ACCOUNT_MAIL_JOB]: accountMailHandler({ db: deps.database.db, config: deps.config, mailer: deps.mailer }),
    [COMPLETE_REGISTRATION_JOB]: completeRegistrationHandler(deps.config.conversions),
  };
}

export interface JobRunner {
  worker: Worker;
  mailer: Mailer;
  /** Starts the worker's polling and the hourly pruning of expired rows. */
  start(): void;
  stop(): Promise<void>;
}

const PRUNE_INTERVAL_MS = 3_600_000;

/** A worker over the outbox with the real mailer: inside `serve` (WORKER=inline) or `storefront worker`. */
export function createJobRunner(database: DatabaseHandle, config: Config, log: FastifyBaseLogger): JobRunner {
  const mailer = createMailer(config.mail, log);
  const worker = createWorker({
    database,
    handlers: buildJobHandlers({ database, config, mailer }),
    log,
    pollIntervalMs: config.jobs.pollIntervalMs,
  });
  let pruning: { stop(): void } | undefined;
  return {
    worker,
    mailer,
    start() {
      worker.start();
      pruning = schedulePruning(database.db, log, PRUNE_INTERVAL_MS, {
        accessTokens: accessTokenPruning(),
        socialSignIns: socialSignInPruning(),
        sessionActions: sessionActionPruning(config.dataExport.sessionActionRetentionDays * 86_400_000),
        usedIdTokens: usedIdTokenPruning(),
        baskets: basketPruning(),
      });
    },
    async stop() {
      pruning?.stop();
      await worker.stop();
      mailer.close();
    },
  };
}
