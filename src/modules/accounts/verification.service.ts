import { createHash } from 'node:crypto';
import { FieldValidationError, HttpError } from '../../http/errors.js';
import { translate, type Language } from '../../i18n/index.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { hashPassword } from '../../infra/passwords.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import { COMPLETE_REGISTRATION_JOB, type CompleteRegistrationEvent } from '../marketing/conversions.job.js';
import { findAccount, findCompany, normaliseEmail, revokeAllTokensOfUser, type Db, type UserRow } from './accounts.repository.js';
import type { VerificationForm } from './accounts.schemas.js';
import { passwordFieldErrors } from './password-rules.js';
import type { AccountsDeps } from './registration.service.js';
import { issueAccessToken } from './session.service.js';

const badToken = () => new HttpError(400, 'auth.badVerificationToken');

/**
 * The user a verification token belongs to and the client account it activates; 400 when the
 * token is unknown or expired, or when the activation data is inconsistent (the account is gone,
 * belongs to someone else, or is in another store than the one asked for).
 */
async function verificationContext(db: Db, token: string, storeCode: string | undefined, now: number) {
  if (!isTokenShaped(token)) throw badToken();
  const user = await db
    .selectFrom('app_user')
    .selectAll()
    .where('verification_token_hash', '=', hashToken(token))
    .where('verification_expires_at', '>', now)
    .executeTakeFirst();
  if (!user || user.verification_client_account_id === null) throw badToken();
  const account = await findAccount(db, user.verification_client_account_id);
  if (!account || account.user_id !== user.id) throw badToken();
  if (storeCode !== undefined && storeCode !== account.store_code) throw new HttpError(400, 'auth.activationMismatch');
  return { user, account };
}

export async function verificationMeta(deps: AccountsDeps, token: string, storeCode: string | undefined, now: number) {
  const { user, account } = await verificationContext(deps.db, token, storeCode, now);
  const company = account.company_id === null ? undefined : await findCompany(deps.db, account.company_id);
  return {
    email: user.email,
    firstName: user.first_name,
    lastName: user.last_name,
    webStoreNavCode: account.store_code,
    accountType: account.type,
    companyName: company?.name ?? null,
    hasPassword: user.password_hash !== null,
  };
}

/** Checks the token before the form, so a bad link is a 400 whatever the form holds. */
export async function assertVerificationToken(deps: AccountsDeps, token: string, storeCode: string | undefined, now: number) {
  await verificationContext(deps.db, token, storeCode, now);
}

/**
 * Activates the account, confirms the email, sets the password and logs the user in, and queues
 * the marketing event, all in one transaction. The token is consumed by a conditional update, so
 * of two concurrent verifications with one token exactly one succeeds.
 */
export async function verifyEmail(
  deps: AccountsDeps,
  input: { token: string; storeCode: string | undefined; form: VerificationForm; language: Language; actionTime: number },
) {
  const { token, storeCode, form, language, actionTime: now } = input;
  const { user, account } = await verificationContext(deps.db, token, storeCode, now);
  const errors = passwordFieldErrors(form, user.email, language);
  if (!form.termsAccepted) errors.push({ field: 'termsAccepted', message: translate(language, 'terms.required') });
  if (errors.length > 0) throw new FieldValidationError(errors);
  const passwordHash = await hashPassword(form.password);

  return deps.db.transaction().execute(async (trx) => {
    const consumed = await trx
      .updateTable('app_user')
      .set({
        password_hash: passwordHash,
        email_verified: true,
        activated_at: user.activated_at ?? now,
        terms_accepted_at: now,
        newsletter: form.newsletter ?? Boolean(user.newsletter),
        verification_token_hash: null,
        verification_expires_at: null,
        verification_client_account_id: null,
        updated_at: now,
      })
      .where('id', '=', user.id)
      .where('verification_token_hash', '=', hashToken(token))
      .where('verification_expires_at', '>', now)
      .executeTakeFirst();
    if (consumed.numUpdatedRows === 0n) throw badToken();
    // A password that replaces an earlier one ends the sessions made with it.
    if (user.password_hash !== null) await revokeAllTokensOfUser(trx, user.id);
    const accessToken = await issueAccessToken(trx, deps, account, account.type, now, { method: 'verification' });
    await enqueueJob(
      trx,
      { type: COMPLETE_REGISTRATION_JOB, payload: completeRegistrationEvent(user, account.store_code, now) },
      { maxAttempts: deps.config.jobs.maxAttempts, now },
    );
    return { accessToken, webStoreNavCode: account.store_code };
  });
}

function completeRegistrationEvent(user: UserRow, storeCode: string, actionTime: number): CompleteRegistrationEvent {
  return {
    eventTime: Math.floor(actionTime / 1000),
    storeCode,
    // Only the hash of the normalised email is sent (and kept in the job), as the API expects.
    emailSha256: createHash('sha256').update(normaliseEmail(user.email)).digest('hex'),
  };
}
