import type { Db } from '../../db/database.js';
import type { Language } from '../../i18n/index.js';
import { createClientAccount, insertUser, revokeAllTokensOfUser, updateUser } from './accounts.repository.js';

// Users as other ways of signing in (social login) create and take over them.

/**
 * Activates a user who never verified the email, and drops the password, pending tokens and
 * sessions whoever registered it may have set up: someone who proved the email elsewhere takes
 * the account over (no pre-account takeover).
 */
export async function activateDroppingCredentials(trx: Db, userId: number, now: number): Promise<void> {
  await updateUser(
    trx,
    userId,
    {
      email_verified: true,
      activated_at: now,
      password_hash: null,
      verification_token_hash: null,
      verification_expires_at: null,
      reset_token_hash: null,
      reset_expires_at: null,
    },
    now,
  );
  await revokeAllTokensOfUser(trx, userId);
}

/** A new user whose email is vouched for elsewhere: activated, without a password, with a simple account in the store. */
export async function createActivatedUser(
  trx: Db,
  user: { email: string; firstName: string | null; lastName: string | null; language: Language; storeCode: string },
  now: number,
): Promise<number> {
  const userId = await insertUser(
    trx,
    { email: user.email, first_name: user.firstName, last_name: user.lastName, language: user.language },
    now,
  );
  await updateUser(trx, userId, { email_verified: true, activated_at: now }, now);
  await createClientAccount(trx, { userId, storeCode: user.storeCode, type: 'SIMPLE' }, now);
  return userId;
}
