import type { Db } from '../../db/database.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { NewsletterConfig } from './newsletter.config.js';

export const NEWSLETTER_MAIL_JOB = 'newsletter.mail';

/**
 * A newsletter job: mail the confirmation link of a request. It carries the request's id, never a
 * token: the worker mints the token when it sends the mail and keeps only its hash.
 */
export type NewsletterMail = { kind: 'confirmation'; requestId: number };

/** Queues a newsletter mail in the caller's transaction: it is sent if and only if that commits. */
export function queueNewsletterMail(trx: Db, config: Pick<NewsletterConfig, 'jobs'>, mail: NewsletterMail, now: number): Promise<number> {
  return enqueueJob(trx, { type: NEWSLETTER_MAIL_JOB, payload: mail }, { maxAttempts: config.jobs.maxAttempts, now });
}
