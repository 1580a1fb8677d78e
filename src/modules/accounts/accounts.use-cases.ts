import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { StoreCode } from '../store/index.js';
import { invalidField } from '../../infra/domain-error.js';
import { hashPassword } from '../../infra/passwords.js';
import type { AccountsConfig } from './accounts.config.js';
import type { AccountsContext, MailboxProven } from './accounts.context.js';
import type { LoginForm, NewPasswordForm, VerificationForm } from './accounts.schemas.js';
import { passwordFieldErrors, refuseFieldErrors } from './password-rules.js';
import { queuePasswordReset, replacePassword, resetTokenUser } from './password-reset.service.js';
import { admitLogin, settleLogin } from './login-throttle.js';
import {
  checkCredentials,
  openSession,
  refuseChangedCredentials,
  refuseLockedStore,
  storeNamedIn,
  type LoginBasketRequest,
  type LoginResult,
} from './session.service.js';
import { checkVerificationForm, completeVerification, pendingVerification } from './verification.service.js';

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
        // The credentials were right for a person the erasure then ended: as to a login sent after it.
        erasedAnswer: () => invalidField('password', 'auth.invalidCredentials'),
        // Or for a password or email a reset or change then replaced: as to a login sent after it.
        beforeIssue: () => refuseChangedCredentials(trx, config, user, form),
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
  input: { token: string; storeCode: string | undefined; form: VerificationForm; basket: LoginBasketRequest },
  now: number,
) {
  const verification = await pendingVerification(db, input.token, input.storeCode, now);
  // The link logs in to its account's store, which the `store` header need not name (the request
  // hook checks only that): a locked one gives out no token and merges no basket, as for a login.
  await refuseLockedStore(db, verification.account.store_code as StoreCode, now);
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
    );
}

/** Mails a reset link (or the verification mail again); the answer never tells whether the email exists. */
export async function requestPasswordReset(db: Kysely<Database>, context: AccountsContext, email: string, now: number): Promise<void> {
  await db.transaction().execute((trx) => queuePasswordReset(trx, context, email, now));
}

/** Sets a new password with a reset token; ends every session of the user and tells the login email. */
export async function setNewPassword(
  db: Kysely<Database>,
  context: AccountsContext,
  mailboxProven: MailboxProven,
  token: string,
  form: NewPasswordForm,
  now: number,
): Promise<void> {
  const user = await resetTokenUser(db, token, now);
  refuseFieldErrors(passwordFieldErrors(form, user.email));
  const passwordHash = await hashPassword(form.password);
  await db.transaction().execute((trx) => replacePassword(trx, context, mailboxProven, user, token, passwordHash, now));
}
