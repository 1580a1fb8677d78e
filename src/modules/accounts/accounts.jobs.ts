import type { Db } from '../../db/database.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { Language } from '../../i18n/index.js';
import type { AccountsConfig } from './accounts.config.js';

export const ACCOUNT_MAIL_JOB = 'account.mail';

/**
 * What an account mail job carries. No token travels in a job: a mail that needs one (the
 * verification and reset links) mints it when it is sent, so no secret sits in the job table.
 */
export type AccountMail =
  | { kind: 'verification'; userId: number; clientAccountId: number; language: Language }
  | { kind: 'otherStore'; userId: number; storeCode: string; otherStoreCode: string; language: Language }
  | { kind: 'reset'; userId: number; storeCode: string; language: Language }
  | { kind: 'wholesaleApproved'; userId: number; storeCode: string; language: Language }
  | { kind: 'wholesaleRejected'; requestId: number }
  | { kind: 'identityLinked'; userId: number; provider: string; language: Language }
  | {
      kind: 'backoffice';
      registration: 'BUSINESS' | 'WHOLESALE';
      storeCode: string;
      companyName: string;
      registryCode: string;
      contactEmail: string;
      requestId?: number;
    };

/** Queues an account mail in the caller's transaction: it is sent if and only if that commits. */
export function queueAccountMail(trx: Db, config: Pick<AccountsConfig, 'jobs'>, mail: AccountMail, now: number): Promise<number> {
  return enqueueJob(trx, { type: ACCOUNT_MAIL_JOB, payload: mail }, { maxAttempts: config.jobs.maxAttempts, now });
}
