import type { Db } from '../../db/database.js';
import { badRequest } from '../../infra/domain-error.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import { queueAccountMail } from './accounts.jobs.js';
import { accountsOfUser, consumeResetToken, findUserByEmail, findUserByResetToken, revokeAllTokensOfUser } from './accounts.repository.js';
import type { AccountsContext } from './accounts.context.js';

/**
 * Queues the reset mail when the email belongs to an activated user; the answer is the same
 * either way. A user who never verified gets the verification mail again instead, since that is
 * what lets them set a password.
 */
export async function queuePasswordReset(trx: Db, context: AccountsContext, email: string, now: number): Promise<void> {
  const { config, storeCode, language } = context;
  const user = await findUserByEmail(trx, email);
  if (!user) return;
  if (user.email_verified) {
    await queueAccountMail(trx, config, { kind: 'reset', userId: user.id, storeCode, language }, now);
    return;
  }
  const accounts = await accountsOfUser(trx, user.id);
  const account = accounts.find((a) => a.store_code === storeCode) ?? accounts[0];
  if (account) {
    await queueAccountMail(trx, config, { kind: 'verification', userId: user.id, clientAccountId: account.id, language }, now);
  }
}

const badToken = () => badRequest('auth.badResetToken');

/** The user a reset token was minted for; 400 when it is unknown, used or expired. */
export async function resetTokenUser(db: Db, token: string, now: number): Promise<{ id: number; email: string }> {
  if (!isTokenShaped(token)) throw badToken();
  const user = await findUserByResetToken(db, hashToken(token), now);
  if (!user) throw badToken();
  return user;
}

/** Replaces the password (already hashed), consumes the reset token and revokes every access token of the user. */
export async function replacePassword(trx: Db, userId: number, token: string, passwordHash: string, now: number): Promise<void> {
  if (!(await consumeResetToken(trx, userId, hashToken(token), passwordHash, now))) throw badToken();
  await revokeAllTokensOfUser(trx, userId);
}
