import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { forgetRefusedAddress } from '../../infra/mail/refused-addresses.js';
import { badRequest } from '../../infra/domain-error.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import { countHit } from '../../infra/rate-limit.js';
import { isLanguage } from '../../i18n/index.js';
import { queueAccountMail, queueAccountRequest, requestCapKey } from './accounts.jobs.js';
import {
  accountsOfUser,
  consumeResetToken,
  findUserByEmail,
  findUserById,
  findUserByResetToken,
  isPendingInvitation,
  revokeAllTokensOfUser,
  type ClientAccountRow,
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
 * as a generic "confirm your email" from a shop they never registered with would puzzle them; one
 * who has both gets both (linksToSetPassword). The per-address cap on requests bounds these mails as
 * it bounds reset mails: the request counted one, and a second counts as one more.
 */
export async function resolvePasswordReset(trx: Db, context: AccountsContext, email: string, now: number): Promise<'queued' | 'unknown'> {
  const { config, storeCode, language } = context;
  const user = await findUserByEmail(trx, email);
  if (!user) return 'unknown';
  if (user.email_verified) {
    await queueAccountMail(trx, config, { kind: 'reset', userId: user.id, storeCode, language }, now);
    return 'queued';
  }
  const links = await linksToSetPassword(trx, user.id, storeCode);
  if (links.length === 0) return 'unknown';
  for (const [index, link] of links.entries()) {
    // The request counted one mail against the address's cap; a second is sent only within it.
    if (index > 0 && (await countHit(trx, requestCapKey(email), config.rateLimits.authPerEmail, now)) > config.rateLimits.authPerEmail.max)
      break;
    await queueAccountMail(
      trx,
      config,
      { kind: 'verification', userId: user.id, clientAccountId: link.account.id, language, ...link.kind },
      now,
    );
  }
  return 'queued';
}

/**
 * The links that let a user who never verified set a password, in the store asked (else in any):
 * their own registration's verification link, and a company's invitation they have not accepted,
 * each at most once. A person can hold both (a retail registration here, and a company's invitation
 * made beside it), and then gets both: each link does something else (the invitation joins the
 * company, which a reset must not choose for them), and neither replaces the other (a verification
 * link is the user's, an invitation's is its account's). Of several of one kind the oldest (as before
 * there was a choice); of the two, the newer account's mail goes first, so that one goes when the
 * address's cap leaves room for one only: it is what most likely brought the person here.
 */
async function linksToSetPassword(trx: Db, userId: number, storeCode: string) {
  // Not an account the back office has yet to approve (or declined): its link is mailed on approval.
  const verifiable = (await accountsOfUser(trx, userId)).filter((a) => a.status === 'ACTIVE' || a.status === 'PENDING_CONFIRMATION');
  const here = verifiable.filter((a) => a.store_code === storeCode);
  const accounts = here.length > 0 ? here : verifiable;
  let own: ClientAccountRow | undefined;
  let invited: ClientAccountRow | undefined;
  for (const account of accounts) {
    if (await isPendingInvitation(trx, account)) invited ??= account;
    else own ??= account;
  }
  const links = [...(own ? [{ account: own, kind: {} }] : []), ...(invited ? [{ account: invited, kind: { invitation: true } }] : [])];
  return links.sort((a, b) => Number(b.account.id) - Number(a.account.id));
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
 * (mailboxProven: an address nobody had confirmed is taken over with it). The login email is told
 * the password was changed, in the user's language, by a mail queued here: sent if and only if the
 * change commits, and only for a used link (a second use of it is a 400 that queues nothing).
 */
export async function replacePassword(
  trx: Db,
  context: AccountsContext,
  mailboxProven: MailboxProven,
  user: { id: number; email: string },
  token: string,
  passwordHash: string,
  now: number,
): Promise<void> {
  // The erasure's locks of the person before the user's row and sessions, as a verification takes
  // them (completeVerification says why): an erasure that came first is waited for, and the link is
  // then unknown.
  await lockAccountsForErasure(trx, user.id);
  if (!(await consumeResetToken(trx, user.id, hashToken(token), passwordHash, now))) throw badToken();
  await mailboxProven(trx, user.id, now);
  await forgetRefusedAddress(trx, user.email);
  await revokeAllTokensOfUser(trx, user.id);
  const { language } = (await findUserById(trx, user.id))!;
  const mail = { userId: user.id, storeCode: context.storeCode, language: isLanguage(language) ? language : context.language };
  await queueAccountMail(trx, context.config, { kind: 'passwordChanged', ...mail }, now);
}
