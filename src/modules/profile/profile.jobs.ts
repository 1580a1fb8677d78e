import type { Db } from '../../db/database.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { Language } from '../../i18n/index.js';

export const PROFILE_MAIL_JOB = 'profile.mail';

/** How long the link of an email change stays valid. */
export const EMAIL_CHANGE_TTL_MS = 24 * 3_600_000;
/** Where the confirmation link leads, after the store's front-end URL; the page posts the token to POST /user/me/confirm-email. */
export const CONFIRM_EMAIL_PATH = '/confirm-email';

/**
 * The profile's mails. No token travels in a job: the confirmation mail mints its token when it is
 * sent and stores only the hash, like the accounts module's verification and reset mails.
 */
export type ProfileMail =
  | { kind: 'confirmEmail'; userId: number; newEmail: string; storeCode: string; language: Language }
  | { kind: 'emailChanged'; userId: number; oldEmail: string; newEmail: string; storeCode: string; language: Language }
  | { kind: 'passwordChanged'; userId: number; storeCode: string; language: Language };

/** Queued in the caller's transaction: sent if and only if that commits. */
export function queueProfileMail(trx: Db, maxAttempts: number, mail: ProfileMail, now: number): Promise<number> {
  return enqueueJob(trx, { type: PROFILE_MAIL_JOB, payload: mail }, { maxAttempts, now });
}
