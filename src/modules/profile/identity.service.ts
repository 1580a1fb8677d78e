import type { Kysely } from 'kysely';
import { lockLiveClientAccount } from '../client-account-lock/index.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { forgetRefusedAddress } from '../../infra/mail/refused-addresses.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { badRequest, conflict, forbidden, invalidField, InvalidInputError, type InvalidField } from '../../infra/domain-error.js';
import { hashPassword, verifyPassword } from '../../infra/passwords.js';
import { consumeRateLimit, type RateLimit } from '../../infra/rate-limit.js';
import { isFirstSubmission, RESUBMIT_WINDOW_MS, submissionKey, submittedWithin } from '../../infra/resubmit.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import type { Language } from '../../i18n/index.js';
import {
  admitLogin,
  passwordFieldErrors,
  refuseReservedEmail,
  settleLogin,
  signedInRecently,
  type AccountsConfig,
} from '../accounts/index.js';
import { moveRequestsToLoginEmail } from '../back-in-stock/index.js';
import { moveToConfirmedAddress } from '../newsletter/index.js';
import { queueProfileMail } from './profile.jobs.js';
import {
  consumeEmailChange,
  findEmailChange,
  findEmailChangeByToken,
  findProfile,
  findUserIdByEmail,
  isLoginEmailConfirmed,
  lockUser,
  markLoginEmailConfirmed,
  revokeOtherTokens,
  saveEmailChange,
  setLoginEmail,
  replacePasswordHash,
} from './profile.repository.js';
import type { UserUpdate } from './profile.schemas.js';
import { emitCustomerUpdated, type ProfileActor } from './profile.service.js';

// The login identity: a new email takes effect once the new address confirmed it; a new password
// needs the current one. Like the accounts module's flows, the password work (the throttle, the
// hashing) runs before the transaction opens, so no transaction waits for it.

export type IdentityConfig = Pick<AccountsConfig, 'accounts' | 'rateLimits' | 'jobs'>;

/** Email change requests per user: each one mails the new address. */
const EMAIL_CHANGES_PER_USER: RateLimit = { max: 5, windowMs: 3_600_000 };

export interface UserChangeRequest {
  actor: ProfileActor;
  input: UserUpdate;
  /** The client address, for the login-failure throttle that also counts wrong current passwords. */
  address: string;
  language: Language;
}

/**
 * PUT /user/me. The answer is the same whether or not the new email belongs to someone else:
 * that is told only on confirmation, to whoever holds the new mailbox. A user whose login email is
 * not confirmed (a social sign-up the provider did not vouch for) may ask for the same address: the
 * link goes to it, and confirming it confirms the address as it stands.
 */
export async function changeUser(db: Kysely<Database>, config: IdentityConfig, request: UserChangeRequest, now: number) {
  const { actor, input } = request;
  const user = (await findProfile(db, actor.clientAccountId))!;
  if (input.email === undefined && input.newPassword === undefined) throw invalidField('email', 'profile.nothingToChange');
  const newEmail = input.email === undefined ? undefined : normaliseEmail(input.email);
  const errors: InvalidField[] = [];
  if (newEmail !== undefined) {
    refuseReservedEmail('email', newEmail);
    if (newEmail === user.email && (await isLoginEmailConfirmed(db, actor.userId)))
      errors.push({ field: 'email', messageKey: 'profile.sameEmail' });
  }
  if (input.newPassword !== undefined) {
    const form = { password: input.newPassword, passwordRepeat: input.newPasswordRepeat ?? '' };
    for (const error of passwordFieldErrors(form, newEmail ?? user.email)) {
      errors.push({ ...error, field: error.field === 'password' ? 'newPassword' : 'newPasswordRepeat' });
    }
  }
  // A user who signs in only through a provider has no password to give for an email change.
  const needsPassword = input.newPassword !== undefined || user.password_hash !== null;
  if (needsPassword && input.currentPassword === undefined) {
    errors.push({ field: 'currentPassword', messageKey: 'profile.currentPasswordRequired' });
  }
  if (errors.length > 0) throw new InvalidInputError(errors);
  // Without a password to ask for, a recent sign-in stands for it: an old token alone (stolen from a
  // device or a log) must not move the account to another address, whose reset then sets a password.
  if (!needsPassword && !(await signedInRecently(db, actor.tokenHash, now))) throw forbidden('profile.freshLoginRequired');
  if (needsPassword)
    await checkCurrentPassword(
      db,
      config,
      { email: user.email, address: request.address },
      user.password_hash,
      input.currentPassword!,
      now,
    );
  const passwordHash = input.newPassword === undefined ? undefined : await hashPassword(input.newPassword);

  await db.transaction().execute(async (trx) => {
    // The client account's lock first, as the erasure takes it: an email change or a password set
    // after an erasure would give the erased user a way back in.
    await lockLiveClientAccount(trx, actor.clientAccountId);
    const mail = { userId: actor.userId, storeCode: actor.storeCode, language: request.language };
    // The same new email again within the resubmit window (a double click, a retry) is the change
    // already pending: a second mail would mint a new token and kill the link of the first. Under
    // the user's lock, so of two at once the second sees the first's. Only a change that mails is
    // counted against the user's limit: repeats of one must not use it up.
    if (newEmail !== undefined && !(await isPendingEmailChange(trx, actor.userId, newEmail, now))) {
      await consumeRateLimit(trx, `profile:email-change:${actor.userId}`, EMAIL_CHANGES_PER_USER, now);
      await saveEmailChange(trx, actor.userId, newEmail, now);
      await queueProfileMail(trx, config.jobs.maxAttempts, { kind: 'confirmEmail', newEmail, ...mail }, now);
    }
    if (passwordHash !== undefined) {
      // Checked against the hash read before the transaction: a change that committed since (the
      // same form sent twice at once) makes this one's current password a wrong one.
      if (!(await replacePasswordHash(trx, actor.userId, user.password_hash, passwordHash, now)))
        throw invalidField('currentPassword', 'profile.wrongPassword');
      await revokeOtherTokens(trx, actor.userId, actor.tokenHash);
      await queueProfileMail(trx, config.jobs.maxAttempts, { kind: 'passwordChanged', ...mail }, now);
    }
  });
  const pending = await findEmailChange(db, actor.userId);
  return { email: user.email, pendingEmail: pending?.new_email ?? null, passwordChanged: passwordHash !== undefined };
}

/** Whether the user asked for this very change moments ago (it is still the one pending), taking the user's lock. */
async function isPendingEmailChange(trx: Db, userId: number, newEmail: string, now: number): Promise<boolean> {
  await lockUser(trx, userId);
  const pending = await findEmailChange(trx, userId);
  return pending !== undefined && pending.new_email === newEmail && Number(pending.requested_at) > now - RESUBMIT_WINDOW_MS;
}

/**
 * The current password, counted by the login throttle like a login with the user's email: wrong
 * guesses from one address are refused after the same number of failures (429), a right one takes
 * its count back.
 */
async function checkCurrentPassword(
  db: Kysely<Database>,
  config: IdentityConfig,
  attempt: { email: string; address: string },
  stored: string | null,
  given: string,
  now: number,
): Promise<void> {
  await admitLogin(db, config.rateLimits, attempt, now);
  const check = await verifyPassword(stored, given, config.accounts.legacyPasswordSalt);
  await settleLogin(db, config.rateLimits, attempt, now, !check.ok);
  if (!check.ok) throw invalidField('currentPassword', 'profile.wrongPassword');
}

/**
 * POST /user/me/confirm-email: the token from the mail to the new address, presented by the same
 * user logged in. 400 for a token that is unknown, expired, replaced or another user's; 409 when
 * the address has meanwhile become another user's login (the change stays pending). The user's
 * other sessions end. Either way the login email is now confirmed; the link to the address the user
 * has already only confirms it (the login identity is the same: no session ends, nobody is told).
 * The same link again from the same user within the resubmit window (a double click, a reload of
 * the page that posts it) answers the login email as the first did, and changes nothing.
 */
export async function confirmEmailChange(
  trx: Db,
  config: IdentityConfig,
  actor: ProfileActor,
  token: string,
  language: Language,
  now: number,
) {
  if (!isTokenShaped(token)) throw badRequest('profile.badEmailToken');
  const tokenHash = hashToken(token);
  // The client account's lock first, as the erasure takes it: this writes the user's row, their event
  // stream and the newsletter rows of both addresses, which the erasure takes after it.
  await lockLiveClientAccount(trx, actor.clientAccountId);
  const change = await findEmailChangeByToken(trx, tokenHash, now);
  // The link used again soon after (a double click, the confirmation page reloaded): the first use
  // consumed its token, so its answer is told from the record it left, by this user only.
  const used = submissionKey('email-confirmed', [actor.userId, tokenHash]);
  if (!change && (await submittedWithin(trx, used, now))) return { email: (await findProfile(trx, actor.clientAccountId))!.email };
  if (!change || Number(change.user_id) !== actor.userId) throw badRequest('profile.badEmailToken');
  const holder = await findUserIdByEmail(trx, change.new_email);
  if (holder && Number(holder.id) !== actor.userId) throw conflict('profile.emailTaken');
  const user = (await findProfile(trx, actor.clientAccountId))!;
  if (!(await consumeEmailChange(trx, actor.userId, tokenHash))) throw badRequest('profile.badEmailToken');
  await isFirstSubmission(trx, used, now);
  const oldEmailWasTheirs = await isLoginEmailConfirmed(trx, actor.userId);
  await markLoginEmailConfirmed(trx, actor.userId);
  await forgetRefusedAddress(trx, change.new_email);
  if (change.new_email === user.email) return { email: user.email };
  try {
    await setLoginEmail(trx, actor.userId, change.new_email, now);
  } catch (error) {
    // Taken by a registration that committed after the look-up above.
    if (isUniqueViolation(error)) throw conflict('profile.emailTaken');
    throw error;
  }
  // The login identity changed, as with a new password: sessions opened before (another device, a
  // token taken from one) end; the caller, who just proved the new mailbox, stays.
  await revokeOtherTokens(trx, actor.userId, actor.tokenHash);
  await emitCustomerUpdated(trx, actor, now);
  // The newsletter is the person's: it follows them to the address just proved. An old address that
  // was never confirmed is its owner's, and so is what it subscribed to.
  const oldEmail = oldEmailWasTheirs ? user.email : null;
  await moveToConfirmedAddress(trx, { customerId: actor.userId, oldEmail, newEmail: change.new_email }, now);
  // Their back-in-stock requests are told at their login email: the new one, from now on.
  await moveRequestsToLoginEmail(trx, { userId: actor.userId, email: change.new_email }, now);
  await queueProfileMail(
    trx,
    config.jobs.maxAttempts,
    { kind: 'emailChanged', userId: actor.userId, oldEmail: user.email, newEmail: change.new_email, storeCode: actor.storeCode, language },
    now,
  );
  return { email: change.new_email };
}
