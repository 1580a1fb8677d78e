import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { badRequest } from '../../infra/domain-error.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import { queueAccountMail, queueAccountRequest } from './accounts.jobs.js';
import {
  accountsOfUser,
  consumeResetToken,
  findUserByEmail,
  findUserByResetToken,
  isPendingInvitation,
  revokeAllTokensOfUser,
} from './accounts.repository.js';
import type { AccountsContext, MailboxProven } from './accounts.context.js';
import { lockAccountsForErasure } from '../client-account-lock/index.js';

/**
 * The request side of /auth/reset-password: one job with the normalised email, the same for an
 * address nobody has, so neither the answer nor the work done tells whether the email exists. The
 * same request again within the resubmit window queues nothing (queueAccountRequest).
 */
export async function queuePasswordReset(trx: Db, context: AccountsContext, email: string, now: number): Promise<void> {
  const { config, storeCode, language } = context;
  await queueAccountRequest(trx, config, { kind: 'resetRequest', email: normaliseEmail(email), storeCode, language }, now);
}

/**
 * In the worker: queues the reset mail when the email belongs to an activated user, and nothing
 * when nobody has it. A user who never verified gets the verification mail again instead, since
 * that is what lets them set a password; a person a company invited who has not accepted yet gets
 * that invitation again (its mail names the company, its new link replaces the one mailed before),
 * as a generic "confirm your email" from a shop they never registered with would puzzle them. The
 * request's own per-address cap (queueAccountRequest) bounds these mails as it bounds reset mails.
 */
export async function resolvePasswordReset(trx: Db, context: AccountsContext, email: string, now: number): Promise<'queued' | 'unknown'> {
  const { config, storeCode, language } = context;
  const user = await findUserByEmail(trx, email);
  if (!user) return 'unknown';
  if (user.email_verified) {
    await queueAccountMail(trx, config, { kind: 'reset', userId: user.id, storeCode, language }, now);
    return 'queued';
  }
  // Not an account the back office has yet to approve (or declined): its link is mailed on approval.
  const verifiable = (await accountsOfUser(trx, user.id)).filter((a) => a.status === 'ACTIVE' || a.status === 'PENDING_CONFIRMATION');
  const account = verifiable.find((a) => a.store_code === storeCode) ?? verifiable[0];
  if (!account) return 'unknown';
  const invitation = await isPendingInvitation(trx, account);
  await queueAccountMail(trx, config, { kind: 'verification', userId: user.id, clientAccountId: account.id, language, invitation }, now);
  return 'queued';
}

const badToken = () => badRequest('auth.badResetToken');

/** The user a reset token was minted for; 400 when it is unknown, used or expired. */
export async function resetTokenUser(db: Db, token: string, now: number): Promise<{ id: number; email: string }> {
  if (!isTokenShaped(token)) throw badToken();
  const user = await findUserByResetToken(db, hashToken(token), now);
  if (!user) throw badToken();
  return user;
}

/**
 * Replaces the password (already hashed), consumes the reset token and revokes every access token
 * of the user. The link was mailed to the login email, so whoever followed it owns the mailbox
 * (mailboxProven: an address nobody had confirmed is taken over with it).
 */
export async function replacePassword(
  trx: Db,
  mailboxProven: MailboxProven,
  userId: number,
  token: string,
  passwordHash: string,
  now: number,
): Promise<void> {
  // The erasure's locks of the person before the user's row and sessions, as a verification takes
  // them (completeVerification says why): an erasure that came first is waited for, and the link is
  // then unknown.
  await lockAccountsForErasure(trx, userId);
  if (!(await consumeResetToken(trx, userId, hashToken(token), passwordHash, now))) throw badToken();
  await mailboxProven(trx, userId, now);
  await revokeAllTokensOfUser(trx, userId);
}
