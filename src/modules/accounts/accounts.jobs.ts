import type { Db } from '../../db/database.js';
import { mailboxKey } from '../../infra/email-address.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { isFirstSubmission, submissionKey } from '../../infra/resubmit.js';
import type { Language } from '../../i18n/index.js';
import type { AccountsConfig } from './accounts.config.js';
import { pruneExpiredAccessTokens } from './accounts.repository.js';
import type { BusinessRegistrationForm, SimpleRegistrationForm } from './accounts.schemas.js';

export const ACCOUNT_MAIL_JOB = 'account.mail';

/**
 * What an account job carries: a mail to send, or an anonymous request to resolve first
 * (registration, password reset). Those are queued the same whether or not the email is known,
 * so the answer costs the same; the worker looks the user up and queues the mail, or nothing.
 * No token travels in a job: a mail that needs one (the verification and reset links) mints it
 * when it is sent, so no secret sits in the job table.
 */
/** The link that replaced a password: a reset's when not said (jobs queued before `via`). */
export type PasswordChangedVia = 'reset' | 'verification' | 'invitation';

export type AccountMail =
  | AccountRequest
  // invitation: a company's master asked this person in (the mail names the company).
  | { kind: 'verification'; userId: number; clientAccountId: number; language: Language; invitation?: boolean }
  | { kind: 'otherStore'; userId: number; storeCode: string; otherStoreCode: string; language: Language }
  | { kind: 'reset'; userId: number; storeCode: string; language: Language }
  /**
   * A link replaced the password (no link, no token: a notice): a reset link, or (`via`) a
   * verification or company invitation link followed by someone who had a password already.
   */
  | { kind: 'passwordChanged'; userId: number; storeCode: string; language: Language; via?: PasswordChangedVia }
  /** Queued no more (an approved wholesale account is confirmed by mail); kept for jobs already queued. */
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
      /** A business account that waits for the back office (`storefront business approve <id>`). */
      pendingAccountId?: number;
    };

/** Anonymous requests the worker resolves; `email` is normalised. */
export type AccountRequest =
  | { kind: 'resetRequest'; email: string; storeCode: string; language: Language }
  | { kind: 'registration'; form: SimpleRegistrationForm; storeCode: string; language: Language }
  | { kind: 'businessRegistration'; form: BusinessRegistrationForm; storeCode: string; language: Language };

/**
 * The counter of the per-address cap (AUTH_RATE_LIMIT_PER_EMAIL) on anonymous requests: one hit a
 * request the worker acts on, and one more for each further mail a request sends.
 */
export const requestCapKey = (email: string) => `account-request:email:${mailboxKey(email)}`;

/** Queues an account mail in the caller's transaction: it is sent if and only if that commits. */
export function queueAccountMail(trx: Db, config: Pick<AccountsConfig, 'jobs'>, mail: AccountMail, now: number): Promise<number> {
  return enqueueJob(trx, { type: ACCOUNT_MAIL_JOB, payload: mail }, { maxAttempts: config.jobs.maxAttempts, now });
}

/**
 * Queues an anonymous request (a registration, a password reset) in the caller's transaction,
 * unless the same request (the same form or email, store and language) came within the resubmit
 * window: a double click or a retry would otherwise mail twice, and the second verification or
 * reset mail mints a new token that kills the link of the first. The answer is the same either way.
 */
export async function queueAccountRequest(
  trx: Db,
  config: Pick<AccountsConfig, 'jobs'>,
  request: AccountRequest,
  now: number,
): Promise<void> {
  if (!(await isFirstSubmission(trx, submissionKey('account-request', request), now))) return;
  await queueAccountMail(trx, config, request, now);
}

/** The prune task for the worker (src/worker.ts): deletes access tokens that have expired. */
export function accessTokenPruning(): (db: Db, now: number) => Promise<number> {
  return (db, now) => pruneExpiredAccessTokens(db, now);
}
