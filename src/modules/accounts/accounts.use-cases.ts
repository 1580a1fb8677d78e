import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { hashPassword, verifyPassword } from '../../infra/passwords.js';
import type { AccountsConfig } from './accounts.config.js';
import type { AccountsContext, MailboxProven } from './accounts.context.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type { LoginForm, NewPasswordForm, VerificationForm } from './accounts.schemas.js';
import { passwordFieldErrors, refuseFieldErrors } from './password-rules.js';
import { isBadResetToken, queuePasswordReset, replacePassword, resetTokenUser, spentResetUser } from './password-reset.service.js';
import { admitLogin, settleLogin } from './login-throttle.js';
import {
  checkCredentials,
  openSession,
  refuseLockedStore,
  storeNamedIn,
  type LoginBasketRequest,
  type LoginResult,
} from './session.service.js';
import {
  checkVerificationForm,
  completeVerification,
  isBadVerificationToken,
  pendingVerification,
  spentVerification,
  verificationSession,
  type PendingVerification,
} from './verification.service.js';

// The account flows that take more than one transaction's worth of work: rate limits that must
// count even when the work fails, and password hashing, which runs before the transaction opens
// so that no transaction waits for it.

/**
 * Logs in with email and password from a client address: a token and the basket (the guest basket
 * merged in), or the roles to choose from. Failures are counted per (email, address) and per email
 * (login-throttle.ts); a failed login opens no transaction, so it merges nothing.
 */
export async function logIn(
  db: Kysely<Database>,
  config: AccountsConfig,
  input: { form: LoginForm; address: string; basket: LoginBasketRequest },
  now: number,
): Promise<LoginResult> {
  const { form, address } = input;
  const storeCode = storeNamedIn('web_store_nav_code', form.web_store_nav_code);
  await refuseLockedStore(db, storeCode, now);
  const attempt = { email: form.email, address };
  await admitLogin(db, config.rateLimits, attempt, now);
  let failed = false;
  const user = await checkCredentials(db, config, form, now, async () => {
    failed = true;
  }).finally(() => settleLogin(db, config.rateLimits, attempt, now, failed));
  return db.transaction().execute((trx) =>
    openSession(
      trx,
      config,
      {
        userId: user.id,
        storeCode,
        role: form.role,
        how: { method: 'password' },
        storeField: 'web_store_nav_code',
        basket: input.basket,
      },
      now,
    ),
  );
}

/** Confirms the email, sets the password and logs in (answering the basket, the guest basket merged in). */
export async function verifyEmail(
  db: Kysely<Database>,
  config: AccountsConfig,
  mailboxProven: MailboxProven,
  input: { token: string; storeCode: string | undefined; form: VerificationForm; address: string; basket: LoginBasketRequest },
  now: number,
) {
  // The link spent already (the form sent twice, or two at once and this one lost): answered as a repeat, or the 400.
  const answerRepeat = async (error: unknown) => {
    const repeat = isBadVerificationToken(error) ? await repeatedVerification(db, config, input, now) : undefined;
    if (repeat === undefined) throw error;
    return repeat;
  };
  let verification: PendingVerification;
  try {
    verification = await pendingVerification(db, input.token, input.storeCode, now);
  } catch (error) {
    return answerRepeat(error);
  }
  checkVerificationForm(input.form, verification.user.email);
  const passwordHash = await hashPassword(input.form.password);
  return db
    .transaction()
    .execute((trx) =>
      completeVerification(
        trx,
        config,
        mailboxProven,
        verification,
        { passwordHash, newsletter: input.form.newsletter, basket: input.basket },
        now,
      ),
    )
    .catch(answerRepeat);
}

/**
 * The verification form again with the link its first send spent: the first answer (a session in
 * the account it activated) when the password is the one that send set, else undefined. The
 * password is checked as a login's, counted by the login throttle, so a spent link is no way round
 * it; nothing else of the first send runs again.
 */
async function repeatedVerification(
  db: Kysely<Database>,
  config: AccountsConfig,
  input: { token: string; storeCode: string | undefined; form: VerificationForm; address: string; basket: LoginBasketRequest },
  now: number,
) {
  const spent = await spentVerification(db, input.token, input.storeCode, now);
  if (!spent) return undefined;
  const attempt = { email: spent.user.email, address: input.address };
  await admitLogin(db, config.rateLimits, attempt, now);
  const check = await verifyPassword(spent.user.password_hash, input.form.password, config.accounts.legacyPasswordSalt);
  await settleLogin(db, config.rateLimits, attempt, now, !check.ok);
  if (!check.ok) return undefined;
  return db.transaction().execute((trx) => verificationSession(trx, config, spent.account, input.basket, now));
}

/** Mails a reset link (or the verification mail again); the answer never tells whether the email exists. */
export async function requestPasswordReset(db: Kysely<Database>, context: AccountsContext, email: string, now: number): Promise<void> {
  await db.transaction().execute((trx) => queuePasswordReset(trx, context, email, now));
}

/** Sets a new password with a reset token; ends every session of the user. */
export async function setNewPassword(
  db: Kysely<Database>,
  config: AccountsConfig,
  mailboxProven: MailboxProven,
  input: { token: string; form: NewPasswordForm; address: string },
  now: number,
): Promise<void> {
  const { token, form } = input;
  // The link spent already (the form sent twice, or two at once and this one lost): answered as a repeat, or the 400.
  const answerRepeat = async (error: unknown) => {
    if (!isBadResetToken(error) || !(await isRepeatedReset(db, config, input, now))) throw error;
  };
  let user: Awaited<ReturnType<typeof resetTokenUser>>;
  try {
    user = await resetTokenUser(db, token, now);
  } catch (error) {
    return answerRepeat(error);
  }
  refuseFieldErrors(passwordFieldErrors(form, user.email));
  const passwordHash = await hashPassword(form.password);
  await db
    .transaction()
    .execute((trx) => replacePassword(trx, mailboxProven, { userId: user.id, token, expiresAt: user.expiresAt }, passwordHash, now))
    .catch(answerRepeat);
}

/**
 * The new-password form again with the link its first send spent: true when the password is the
 * one that send set and the user still has, so the repeat answers as the first did and sets
 * nothing; another password is not set with a spent link. Checked as a login's password is,
 * counted by the login throttle, so a spent link is no way round it.
 */
async function isRepeatedReset(
  db: Kysely<Database>,
  config: AccountsConfig,
  input: { token: string; form: NewPasswordForm; address: string },
  now: number,
): Promise<boolean> {
  const user = await spentResetUser(db, input.token, now);
  if (!user) return false;
  const attempt = { email: user.email, address: input.address };
  await admitLogin(db, config.rateLimits, attempt, now);
  const check = await verifyPassword(user.password_hash, input.form.password, config.accounts.legacyPasswordSalt);
  await settleLogin(db, config.rateLimits, attempt, now, !check.ok);
  return check.ok;
}

/**
 * Two registrations of one new email can race on PostgreSQL: both see no user, one insert wins
 * the unique index. The loser runs again and then takes the "user exists" path, so one user results.
 */
export async function inTransactionRetryingOnUniqueViolation(db: Kysely<Database>, work: (trx: Db) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db.transaction().execute(work);
      return;
    } catch (error) {
      if (attempt >= 3 || !isUniqueViolation(error)) throw error;
    }
  }
}
