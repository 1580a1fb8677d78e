import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AccountsConfig } from './accounts.config.js';
import { requestCapKey, type AccountRequest } from './accounts.jobs.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { countHit } from '../../infra/rate-limit.js';
import { inTransactionRetryingOnUniqueViolation } from '../../db/unique-violation.js';
import { resolvePasswordReset } from './password-reset.service.js';
import { registerBusiness, registerSimple } from './registration.service.js';

/**
 * The worker's half of the anonymous account requests: looks the email up and does what the
 * state table says, queueing the mail that follows (or nothing). `actionTime` is the request's,
 * when the job was queued (the per-email ceiling counts requests); `now` is the job's. The rows a
 * registration makes are stamped `now`: the data export shows accounts by creation time and reads
 * a window once it has settled (DATA_EXPORT_SETTLE_MS), so an account stamped with the request's
 * time by a job that ran later (a backlog, a retry) landed in a window the partner had read already.
 * Answers how the job ended.
 */
export async function resolveAccountRequest(
  db: Kysely<Database>,
  config: AccountsConfig,
  request: AccountRequest,
  actionTime: number,
  now: number,
): Promise<string> {
  const context = { config, storeCode: request.storeCode, language: request.language };
  // Past the per-email ceiling the request is dropped here, not refused at the door: a 429 there
  // would let anyone lock an owner out of their own reset (and each reset mints a new token,
  // killing the link already mailed). The answer was the same 200 either way.
  const hits = await countHit(db, requestCapKey(requestEmail(request)), config.rateLimits.authPerEmail, actionTime);
  if (hits > config.rateLimits.authPerEmail.max) return 'throttled';
  switch (request.kind) {
    case 'resetRequest':
      return db.transaction().execute((trx) => resolvePasswordReset(trx, context, request.email, actionTime));
    case 'registration':
      await inTransactionRetryingOnUniqueViolation(db, (trx) => registerSimple(trx, context, request.form, now));
      return 'resolved';
    case 'businessRegistration':
      await inTransactionRetryingOnUniqueViolation(db, (trx) => registerBusiness(trx, context, request.form, now));
      return 'resolved';
  }
}

function requestEmail(request: AccountRequest): string {
  switch (request.kind) {
    case 'resetRequest':
      return request.email;
    case 'registration':
      return normaliseEmail(request.form.email);
    case 'businessRegistration':
      return normaliseEmail(request.form.contact.email);
  }
}
