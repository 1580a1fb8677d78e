import type { Db } from '../../db/database.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { deadIfRefused } from '../../infra/jobs/refused-for-good.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { getStore } from '../store/index.js';
import { findStoreContact } from './contact.repository.js';
import { acknowledgementMail, officeMail, type ContactMessage } from './contact.mails.js';

export const CONTACT_MAIL_JOB = 'contact.mail';

/** One mail of a contact-form message: each is its own job, so a failed one retries alone. */
export interface ContactMailJob {
  to: 'office' | 'sender';
  message: ContactMessage;
}

/** Queues the office's mail and, unless `acknowledge` is false, the sender's, in the caller's transaction: sent if and only if it commits. */
export async function queueContactMails(
  trx: Db,
  message: ContactMessage,
  maxAttempts: number,
  now: number,
  acknowledge = true,
): Promise<void> {
  for (const to of acknowledge ? (['office', 'sender'] as const) : (['office'] as const)) {
    const payload: ContactMailJob = { to, message };
    await enqueueJob(trx, { type: CONTACT_MAIL_JOB, payload: { ...payload } }, { maxAttempts, now });
  }
}

export interface ContactMailDeps {
  db: Db;
  mailer: Mailer;
  /** Where office mails go when the store has no contact email (BACKOFFICE_EMAILS). */
  backofficeEmails: string[];
}

/**
 * Sends one contact mail. The office's address is read when sent, so a corrected address applies
 * to mails still queued; the office mail's Reply-To is the sender, so answering it answers them.
 */
export function contactMailHandler(deps: ContactMailDeps): JobHandler {
  return async (job: ContactMailJob, { log }) => {
    const { message } = job;
    const store = await getStore(deps.db, message.storeCode);
    const storeName = store?.name ?? message.storeCode;
    if (job.to === 'sender') {
      await deps.mailer.send({ to: message.email, ...acknowledgementMail(message, storeName) });
      return 'sent';
    }
    const office = await findStoreContact(deps.db, message.storeCode);
    const to = office.email !== null ? [office.email] : deps.backofficeEmails;
    if (to.length === 0) {
      log.warn({ store: message.storeCode }, 'contact message not mailed: the store has no contact email and BACKOFFICE_EMAILS is empty');
      return 'skipped';
    }
    // The office's address is the operators' (`contact set`, BACKOFFICE_EMAILS): refused, it is
    // theirs to mend, and the customer's message waits in a dead job to be sent again.
    await deadIfRefused(
      deps.mailer.send({ to, replyTo: message.email, ...officeMail(message, storeName, store?.defaultLanguage ?? 'et') }),
      `the office's address ${to.join(', ')} does not take mail; mend it (contact set ${message.storeCode} --email=...) and retry this job`,
    );
    return 'sent';
  };
}
