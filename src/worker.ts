import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { createWorker, type JobHandlers, type Worker } from './infra/jobs/worker.js';
import { createMailer, type Mailer } from './infra/mail/mailer.js';
import { ACCOUNT_MAIL_JOB } from './modules/accounts/accounts.jobs.js';
import { accountMailHandler } from './modules/accounts/accounts.mails.js';
import { COMPLETE_REGISTRATION_JOB, completeRegistrationHandler } from './modules/marketing/conversions.job.js';

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
  stop(): Promise<void>;
}

/** A worker over the outbox with the real mailer: inside `serve` (WORKER=inline) or `storefront worker`. */
export function createJobRunner(database: DatabaseHandle, config: Config, log: FastifyBaseLogger): JobRunner {
  const mailer = createMailer(config.mail, log);
  const worker = createWorker({
    database,
    handlers: buildJobHandlers({ database, config, mailer }),
    log,
    pollIntervalMs: config.jobs.pollIntervalMs,
  });
  return {
    worker,
    mailer,
    async stop() {
      await worker.stop();
      mailer.close();
    },
  };
}
