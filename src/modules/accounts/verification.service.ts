import { createHash } from 'node:crypto';
import { normaliseEmail } from '../../infra/email-address.js';
import { forgetRefusedAddress } from '../../infra/mail/refused-addresses.js';
import type { Db } from '../../db/database.js';
import { badRequest } from '../../infra/domain-error.js';
import { isLanguage } from '../../i18n/index.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import { queueCompleteRegistration, type CompleteRegistrationEvent } from '../marketing/index.js';
import { lockAccountsForErasure } from '../client-account-lock/index.js';
import { setConfirmedAddressConsent, syncNewsletterFlag } from '../newsletter/index.js';
import type { AccountsConfig } from './accounts.config.js';
import { queueAccountMail } from './accounts.jobs.js';
import type { MailboxProven } from './accounts.context.js';
import {
  changeAccountStatus,
  consumeInvitationToken,
  consumeVerificationToken,
  findAccount,
  findCompany,
  findInvitationByToken,
  findUserById,
  findUserByVerificationToken,
  revokeAllTokensOfUser,
  updateUser,
  type ClientAccountRow,
  type UserRow,
} from './accounts.repository.js';
import type { VerificationForm } from './accounts.schemas.js';
import { passwordFieldErrors, refuseFieldErrors } from './password-rules.js';
import { basketAfterLogin, issueAccessToken, type LoginBasketRequest } from './session.service.js';

const badToken = () => badRequest('auth.badVerificationToken');

type UserChanges = Parameters<typeof consumeVerificationToken>[3];

/**
 * A valid verification token, the user it was minted for and the client account it activates. `from`
 * says where the link is kept: a verification link is the user's (one at a time), an invitation's
 * is its account's (invitation_token), so that neither replaces the other.
 */
export interface PendingVerification {
  token: string;
  from: 'verification' | 'invitation';
  user: UserRow;
  account: ClientAccountRow;
}

/**
 * The verification a token stands for; 400 when the token is unknown or expired, or when the
 * activation data is inconsistent (the account is gone, belongs to someone else, or is in another
 * store than the one asked for).
 */
export async function pendingVerification(db: Db, token: string, storeCode: string | undefined, now: number): Promise<PendingVerification> {
  if (!isTokenShaped(token)) throw badToken();
  const link = await linkOf(db, hashToken(token), now);
  if (!link) throw badToken();
  const { user, account } = link;
  if (account.user_id !== user.id) throw badToken();
  // An account waits for the back office before its link is mailed; one declined or removed since is gone.
  if (account.status !== 'ACTIVE' && account.status !== 'PENDING_CONFIRMATION') throw badToken();
  if (storeCode !== undefined && storeCode !== account.store_code) throw badRequest('auth.activationMismatch');
  return { token, ...link };
}

/** The user's verification link of this hash, else an invitation's, with the account it activates. */
async function linkOf(db: Db, tokenHash: string, now: number): Promise<Omit<PendingVerification, 'token'> | undefined> {
  const user = await findUserByVerificationToken(db, tokenHash, now);
  if (user) {
    const account = user.verification_client_account_id === null ? undefined : await findAccount(db, user.verification_client_account_id);
    return account && { from: 'verification', user, account };
  }
  const invitation = await findInvitationByToken(db, tokenHash, now);
  const account = invitation && (await findAccount(db, invitation.client_account_id));
  const invitee = account && (await findUserById(db, account.user_id));
  return invitee && account && { from: 'invitation', user: invitee, account };
}

/** What the verification page shows about the user. */
export async function verificationMeta(db: Db, token: string, storeCode: string | undefined, now: number) {
  const { user, account } = await pendingVerification(db, token, storeCode, now);
  const company = account.company_id === null ? undefined : await findCompany(db, account.company_id);
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

/** The 422 for a verification form: the password rules, and the terms must be accepted. */
export function checkVerificationForm(form: VerificationForm, email: string): void {
  const errors = passwordFieldErrors(form, email);
  if (!form.termsAccepted) errors.push({ field: 'termsAccepted', messageKey: 'terms.required' });
  refuseFieldErrors(errors);
}

/**
 * Activates the account, confirms the email (mailboxProven), sets the password (already hashed) and logs the user
 * in (with the account's basket, the request's guest basket merged in), and queues the marketing event. The token is consumed by a conditional update, so of two
 * concurrent verifications with one token exactly one succeeds.
 */
export async function completeVerification(
  trx: Db,
  config: Pick<AccountsConfig, 'accounts' | 'jobs'>,
  mailboxProven: MailboxProven,
  verification: PendingVerification,
  input: { passwordHash: string; newsletter: boolean | undefined; basket: LoginBasketRequest },
  now: number,
) {
  const { user, account } = verification;
  // The erasure's locks of the person (their companies, then their client accounts) before the user's
  // row, which the erasure writes last: taken after it, a verification and the erasure at once each
  // held what the other waited for (a deadlock, a 500). An erasure that came first is waited for, and
  // the link is then unknown; one that comes after waits for this and erases the account it activates.
  await lockAccountsForErasure(trx, user.id);
  const changes = {
    password_hash: input.passwordHash,
    email_verified: true,
    activated_at: user.activated_at ?? now,
    terms_accepted_at: now,
  };
  if (!(await consumeLink(trx, verification, changes, now))) throw badToken();
  // The registration's newsletter tick (or the form's answer now): the address was just confirmed
  // by this very link, so it is the double opt-in's confirmation too, and the subscription starts.
  // The flag is the tick only until the email is verified: a verified user's says "subscribed in some
  // store" (syncUserNewsletterFlag), no consent to this store's newsletter (a business account here
  // whose link the person follows without the field subscribed the store, as a REGISTRATION consent).
  const tick = !user.email_verified && Boolean(user.newsletter);
  const newsletter = input.newsletter ?? tick;
  if (newsletter || (input.newsletter === false && user.newsletter))
    await setConfirmedAddressConsent(
      trx,
      { email: user.email, storeCode: account.store_code, language: user.language, source: 'registration', wanted: newsletter },
      now,
    );
  // No tick: the flag, the tick until now, becomes "subscribed in some store" (another store's form may have subscribed the address).
  else await syncNewsletterFlag(trx, user.email, now);
  // Following the link is the contact's consent to an account a registration form attached.
  if (account.status === 'PENDING_CONFIRMATION' && !(await changeAccountStatus(trx, account.id, ['PENDING_CONFIRMATION'], 'ACTIVE'))) {
    throw badToken();
  }
  // The link went to the login email: whoever followed it owns the mailbox. An account whose address
  // nobody had confirmed is theirs now, and the sessions whoever made it opened end.
  const takenOver = await mailboxProven(trx, user.id, now);
  await forgetRefusedAddress(trx, user.email);
  // A password that replaces an earlier one ends the sessions made with it, and, as a reset's does,
  // tells the login email (a person with an account invited to a company, say): whoever held the link
  // has the account now. A first password is no change and is not told.
  if (takenOver || user.password_hash !== null) await revokeAllTokensOfUser(trx, user.id);
  if (user.password_hash !== null) {
    const language = isLanguage(user.language) ? user.language : 'et';
    const mail = { userId: user.id, storeCode: account.store_code, language, via: verification.from };
    await queueAccountMail(trx, config, { kind: 'passwordChanged', ...mail }, now);
  }
  const accessToken = await issueAccessToken(trx, config, account, account.type, now, { method: 'verification' });
  await queueCompleteRegistration(trx, completeRegistrationEvent(user, account.store_code, now), {
    maxAttempts: config.jobs.maxAttempts,
    now,
  });
  return { accessToken, webStoreNavCode: account.store_code, basket: await basketAfterLogin(trx, account, input.basket, now) };
}

/** Applies the changes and consumes the link where it is kept, only while it is still valid: false when another request consumed it first. */
async function consumeLink(trx: Db, verification: PendingVerification, changes: UserChanges, now: number): Promise<boolean> {
  const tokenHash = hashToken(verification.token);
  if (verification.from === 'verification') return consumeVerificationToken(trx, verification.user.id, tokenHash, changes, now);
  if (!(await consumeInvitationToken(trx, verification.account.id, tokenHash, now))) return false;
  await updateUser(trx, verification.user.id, changes, now);
  return true;
}

function completeRegistrationEvent(user: UserRow, storeCode: string, actionTime: number): CompleteRegistrationEvent {
  return {
    eventTime: Math.floor(actionTime / 1000),
    storeCode,
    // Only the hash of the normalised email is sent (and kept in the job), as the API expects.
    emailSha256: createHash('sha256').update(normaliseEmail(user.email)).digest('hex'),
    userId: user.id,
  };
}
