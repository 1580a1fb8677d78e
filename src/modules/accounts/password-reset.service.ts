import { FieldValidationError, HttpError } from '../../http/errors.js';
import type { Language } from '../../i18n/index.js';
import { hashPassword } from '../../infra/passwords.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import type { StoreSettings } from '../store/store.service.js';
import { queueAccountMail } from './accounts.jobs.js';
import { accountsOfUser, findUserByEmail, normaliseEmail, revokeAllTokensOfUser, type Db } from './accounts.repository.js';
import type { NewPasswordForm } from './accounts.schemas.js';
import { passwordFieldErrors } from './password-rules.js';
import type { AccountsDeps } from './registration.service.js';

/**
 * Sends the reset mail when the email belongs to an activated user; the answer is the same
 * either way. A user who never verified gets the verification mail again instead, since that is
 * what lets them set a password.
 */
export async function requestPasswordReset(
  deps: AccountsDeps,
  context: { store: StoreSettings; language: Language; now: number },
  email: string,
): Promise<void> {
  const { store, language, now } = context;
  await consumeRateLimit(deps.db, `reset:email:${normaliseEmail(email)}`, deps.config.rateLimits.authPerEmail, now);
  await deps.db.transaction().execute(async (trx) => {
    const user = await findUserByEmail(trx, email);
    if (!user) return;
    if (user.email_verified) {
      await queueAccountMail(trx, deps.config, { kind: 'reset', userId: user.id, storeCode: store.code, language }, now);
      return;
    }
    const accounts = await accountsOfUser(trx, user.id);
    const account = accounts.find((a) => a.store_code === store.code) ?? accounts[0];
    if (account) {
      await queueAccountMail(trx, deps.config, { kind: 'verification', userId: user.id, clientAccountId: account.id, language }, now);
    }
  });
}

const badToken = () => new HttpError(400, 'auth.badResetToken');

async function resetUser(db: Db, token: string, now: number) {
  if (!isTokenShaped(token)) throw badToken();
  const user = await db
    .selectFrom('app_user')
    .select(['id', 'email'])
    .where('reset_token_hash', '=', hashToken(token))
    .where('reset_expires_at', '>', now)
    .executeTakeFirst();
  if (!user) throw badToken();
  return user;
}

export async function assertResetToken(deps: AccountsDeps, token: string, now: number): Promise<void> {
  await resetUser(deps.db, token, now);
}

/** Replaces the password, clears the reset token and revokes every access token of the user. */
export async function setNewPassword(deps: AccountsDeps, token: string, form: NewPasswordForm, language: Language, now: number) {
  const user = await resetUser(deps.db, token, now);
  const errors = passwordFieldErrors(form, user.email, language);
  if (errors.length > 0) throw new FieldValidationError(errors);
  const passwordHash = await hashPassword(form.password);
  await deps.db.transaction().execute(async (trx) => {
    const consumed = await trx
      .updateTable('app_user')
      .set({ password_hash: passwordHash, reset_token_hash: null, reset_expires_at: null, updated_at: now })
      .where('id', '=', user.id)
      .where('reset_token_hash', '=', hashToken(token))
      .where('reset_expires_at', '>', now)
      .executeTakeFirst();
    if (consumed.numUpdatedRows === 0n) throw badToken();
    await revokeAllTokensOfUser(trx, user.id);
  });
}
