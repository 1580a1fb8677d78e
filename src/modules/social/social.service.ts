import { normaliseEmail } from '../../infra/email-address.js';
import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { Db } from '../../db/database.js';
import type { AccountType } from '../../db/schema.js';
import type { SocialProvider } from './social.tables.js';
import { badRequest, conflict, DomainError, forbidden, invalidField, notFound, unauthenticated } from '../../infra/domain-error.js';
import type { Language } from '../../i18n/index.js';
import { hashToken, newToken } from '../../infra/tokens.js';
import {
  activateDroppingCredentials,
  createActivatedUser,
  findPersonByEmail,
  isSessionLive,
  lockUser,
  openSession,
  queueAccountMail,
  signedInRecently,
  type LoginBasketRequest,
  type LoginResult,
} from '../accounts/index.js';
import { isLoginEmailConfirmed, markLoginEmailConfirmed, markLoginEmailConfirmedIf, markLoginEmailUnconfirmed } from '../profile/index.js';
import { lockAccountsForErasure } from '../client-account-lock/index.js';
import type { SocialProviders } from './provider-registry.js';
import {
  identityOf,
  ProviderUnavailableError,
  SocialAuthError,
  type NativeVerification,
  type ProviderIdentity,
  type SocialProviderClient,
} from './providers.js';
import type { SocialConfig } from './social.config.js';
import {
  consumeAuthRecord,
  deleteIdentitiesOfUser,
  findIdentity,
  findUsableAuthRecord,
  identityEmailColumns,
  insertAuthRecord,
  insertIdentity,
  insertTransaction,
  recordIdTokenUse,
  updateIdentityEmail,
} from './social.repository.js';

export const TEN_MINUTES_MS = 600_000;

/** The module's configuration and the providers configured in it. */
export interface SocialContext {
  config: SocialConfig;
  providers: SocialProviders;
}

/** What a flow needs of the web store it runs for. */
export interface FlowStore {
  code: string;
  frontendUrl: string;
}

export function providerClient(social: SocialContext, name: string): SocialProviderClient {
  // Own names only: `constructor` or `__proto__` would find the object's prototype's members.
  const provider = Object.hasOwn(social.providers, name) ? social.providers[name as SocialProvider] : undefined;
  if (!provider) throw notFound('auth.providerNotConfigured', { provider: name.slice(0, 20) });
  return provider;
}

/** Where the provider sends the browser back: this same endpoint. */
export function callbackUrl(config: SocialConfig): string {
  return `${config.social.publicUrl}${config.basePath}/auth/external`;
}

/**
 * Starts the web redirect flow: keeps state, PKCE verifier and nonce on the server, with the hash
 * of the nonce of the browser's flow cookie; answers where to go and the state (which names the cookie).
 */
export async function startRedirect(
  db: Db,
  social: SocialContext,
  input: { provider: string; store: FlowStore; language: Language; returnUrl?: string; link?: LinkingBearer; browserHash: string },
  now: number,
): Promise<{ url: URL; state: string }> {
  const provider = providerClient(social, input.provider);
  if (input.returnUrl !== undefined && !sameOrigin(input.returnUrl, input.store.frontendUrl)) throw badRequest('auth.badReturnUrl');
  if (input.link !== undefined) await refuseStaleLinkingBearer(db, input.link, now);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  await insertTransaction(db, {
    state_hash: hashToken(state),
    provider: provider.name,
    code_verifier: codeVerifier,
    nonce,
    store_code: input.store.code,
    language: input.language,
    return_url: input.returnUrl ?? null,
    link_user_id: input.link?.userId ?? null,
    browser_hash: input.browserHash,
    callback_form: null,
    created_at: now,
    expires_at: now + TEN_MINUTES_MS,
  });
  const codeChallenge = await client.calculatePKCECodeChallenge(codeVerifier);
  const url = await unavailableAs503(provider.name, () =>
    provider.authorizationUrl({ redirectUri: callbackUrl(social.config), state, nonce, codeChallenge }),
  );
  return { url, state };
}

/** Checks a token a native app got from the provider; 401 when the provider does not vouch for it. */
export async function verifiedNativeIdentity(
  social: SocialContext,
  input: { provider: string; id: string; token: string; nonce?: string },
): Promise<NativeVerification> {
  const provider = providerClient(social, input.provider);
  try {
    return await unavailableAs503(provider.name, () => provider.verifyNativeToken(input.id, input.token, input.nonce));
  } catch (error) {
    if (error instanceof SocialAuthError) throw new DomainError('unauthenticated', 'auth.socialFailed', { provider: provider.name });
    throw error;
  }
}

/** A provider that cannot be reached is a 503 with Retry-After: nothing was decided about the user. */
async function unavailableAs503<T>(provider: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw new DomainError('unavailable', 'auth.socialUnavailable', { provider }, 30);
    throw error;
  }
}

/**
 * Takes an app's ID token once: a second use, also one running at the same time, is a 401. The
 * token's id is kept until the token expires (and a few minutes more, for the providers' clocks).
 */
export async function useIdTokenOnce(trx: Db, verification: NativeVerification, now: number): Promise<void> {
  const use = verification.singleUse;
  if (use === undefined) return;
  const { provider } = verification.identity;
  const recorded = await recordIdTokenUse(trx, {
    token_key: hashToken(`${provider}:${use.id}`),
    provider,
    created_at: now,
    expires_at: Math.max(use.expiresAt, now) + ID_TOKEN_CLOCK_SKEW_MS,
  });
  if (!recorded) throw new DomainError('unauthenticated', 'auth.idTokenUsed', { provider });
}

const ID_TOKEN_CLOCK_SKEW_MS = 300_000;

/**
 * A single-use authentication record; answers its id (the authId). A sign-in's record is for
 * /auth/social-login; a web link flow's (`linkUserId`) only for /auth/external/confirm-link by that user.
 */
export async function createAuthRecord(
  db: Db,
  identity: ProviderIdentity,
  storeCode: string,
  language: string,
  now: number,
  linkUserId: number | null = null,
): Promise<string> {
  const { token: authId, hash } = newToken();
  await insertAuthRecord(db, {
    id_hash: hash,
    provider: identity.provider,
    subject: identity.subject,
    email: identity.email,
    email_verified: identity.emailVerified,
    first_name: identity.firstName,
    last_name: identity.lastName,
    store_code: storeCode,
    language,
    link_user_id: linkUserId,
    created_at: now,
    expires_at: now + TEN_MINUTES_MS,
    used_at: null,
  });
  return authId;
}

/** The provider's address when the provider vouched for it (normalised), else null. */
function vouchedEmail(identity: ProviderIdentity): string | null {
  return identity.email !== null && identity.emailVerified ? normaliseEmail(identity.email) : null;
}

/**
 * What every sign-in or link of an identity linked before does with what the provider says now of
 * its email (the app and web flows alike, with or without a bearer). The identity's row keeps the
 * address the provider gives (normalised; none when it gives none) and whether it vouches for it;
 * the account's login email stays as it is, and is confirmed when the provider now verified that
 * very address (not another): whoever the provider signs in owns that mailbox. A provider that no
 * longer vouches un-confirms nothing.
 */
async function refreshLinkedIdentity(
  trx: Db,
  linked: { id: number; user_id: number; email: string | null; email_verified: boolean | number },
  identity: ProviderIdentity,
): Promise<void> {
  const said = identityEmailColumns(identity);
  if (linked.email !== said.email || Boolean(linked.email_verified) !== said.email_verified) {
    await updateIdentityEmail(trx, linked.id, said);
  }
  const vouched = vouchedEmail(identity);
  if (vouched !== null) await markLoginEmailConfirmedIf(trx, linked.user_id, vouched);
}

/** Who links an identity with a bearer token: the token's user, and the token (read before the link's transaction). */
export interface LinkingBearer {
  userId: number;
  tokenHash: string;
}

/**
 * Takes the linking user's locks (the person's, as every sign-in that writes them) and reads the
 * bearer again under them: 401 when a password change, a reset, an email change or an erasure ended
 * it since it was read (each takes them before it ends sessions). A link made with an ended token
 * would be a way into the account that outlived the change meant to shut its holder out.
 */
export async function lockLinkingBearer(trx: Db, bearer: LinkingBearer): Promise<void> {
  await lockPerson(trx, bearer.userId);
  if (!(await isSessionLive(trx, bearer.tokenHash))) throw unauthenticated('auth.unauthorized');
}

/**
 * A link adds a way into the account that outlives every token, so a token alone (stolen from a
 * device or a log) must not make one: as for an email change without a password or an erasure,
 * its holder must have signed in within FRESH_SIGN_IN_MS (403 otherwise; the front-end asks the
 * person to log in again). Checked where a link is asked for: the app's link at once, and the
 * start of the web flow, whose pending link only that user can confirm within ten minutes.
 */
export async function refuseStaleLinkingBearer(db: Db, bearer: LinkingBearer, now: number): Promise<void> {
  if (!(await signedInRecently(db, bearer.tokenHash, now))) throw forbidden('auth.freshLoginRequired');
}

/**
 * Links an identity to a user (idempotent: a link made before keeps what the provider says now of
 * its email, refreshLinkedIdentity); 409 when it belongs to someone else. Mails the user when the
 * link is new. When the provider vouched for the user's login email itself, the address is
 * confirmed, as at a sign-in of a linked identity: whoever the provider signs in owns that mailbox
 * (a link to a user whose login email is another address confirms nothing).
 */
export async function linkIdentity(
  trx: Db,
  config: SocialConfig,
  userId: number,
  identity: ProviderIdentity,
  language: Language,
  now: number,
) {
  const existing = await findIdentity(trx, identity.provider, identity.subject);
  if (existing && existing.user_id !== userId) throw conflict('auth.identityInUse', { provider: identity.provider });
  if (existing) return refreshLinkedIdentity(trx, existing, identity);
  await insertIdentity(trx, { ...identity, userId }, now);
  await queueAccountMail(trx, config, { kind: 'identityLinked', userId, provider: identity.provider, language }, now);
  const vouched = vouchedEmail(identity);
  if (vouched !== null) await markLoginEmailConfirmedIf(trx, userId, vouched);
}

/**
 * Where the web flow started with a bearer (a link) stands with its identity: another user's
 * (`inUse`, nothing changes); already this user's (`linked`: it keeps what the provider says now of
 * its email, as every other sign-in or link of it does); or nobody's (`new`: the link waits for that
 * user's confirmation, POST /auth/external/confirm-link, and nothing is written here).
 */
export async function webLinkStanding(trx: Db, userId: number, identity: ProviderIdentity): Promise<'inUse' | 'linked' | 'new'> {
  const existing = await findIdentity(trx, identity.provider, identity.subject);
  if (!existing) return 'new';
  if (existing.user_id !== userId) return 'inUse';
  await refreshLinkedIdentity(trx, existing, identity);
  return 'linked';
}

/**
 * Logs in with an authentication record. An identity linked before logs in, keeps what the provider
 * says now of its email (refreshIdentityEmail), and confirms the login email when the provider now
 * verified that very address. Otherwise a user with the same email is linked only when the provider
 * verified the email; a local account that was never verified, or one a sign-up made with an address
 * its provider did not vouch for, is then taken over: its password and sessions (and the latter's
 * identities) are dropped, so whoever made it before cannot keep access (no pre-account takeover),
 * and the address is confirmed. No user: one is created, activated, with a simple account in the
 * current store; its login email is confirmed only when the provider verified it.
 */
export async function socialLogin(
  trx: Db,
  config: SocialConfig,
  input: {
    authId: string;
    role: AccountType | undefined;
    isNativeForm: boolean;
    storeCode: string;
    language: Language;
    /** The guest basket to merge into the client's (in this transaction) and the answer's language. */
    basket: LoginBasketRequest;
  },
  now: number,
): Promise<LoginResult> {
  const { language, storeCode } = input;
  const idHash = hashToken(input.authId);
  const record = await findUsableAuthRecord(trx, idHash, now);
  // A pending link logs nobody in: it is confirmed by the user who started it, or not at all.
  if (!record || record.link_user_id !== null) throw badRequest('auth.badAuthId');
  const identity = identityOf(record);
  // Two first sign-ins of the same person at once: the other one may create the user first, and this
  // one then ends on a unique key (the caller runs it again: signIn in social.use-cases.ts).
  const userId = await resolveUser(trx, config, identity, storeCode, language, now);
  return openSession(
    trx,
    config,
    {
      userId,
      storeCode,
      role: input.role,
      how: { method: record.provider, nativeForm: input.isNativeForm },
      storeField: 'authId',
      basket: input.basket,
      beforeIssue: async () => {
        if (!(await consumeAuthRecord(trx, idHash, now))) throw badRequest('auth.badAuthId');
      },
    },
    now,
  );
}

/**
 * Someone followed a link mailed to the user's login email (a password reset, a verification: the
 * accounts module calls this, as the app wires it, in the transaction that uses the link). An
 * address nobody had confirmed (a sign-up whose provider did not vouch for it) is now confirmed, and,
 * as when its owner signs in with a provider that verified it, the account is theirs: the identities
 * whoever made it linked go, and (the answer true) the accounts module ends every other session.
 * A user whose address was confirmed already keeps their identities.
 *
 * Every identity goes, also one whose provider verified an address: a takeover runs only while the
 * login email is unconfirmed, and every way an identity the provider verified that very address for
 * comes to the user (a sign-up, a sign-in, a link) confirms it in the same transaction, so none the
 * takeover meets was verified for it (identities older than migration 2026_11_30_0600 count as
 * unverified: nobody recorded what their provider said).
 */
export async function takeOverProvenMailbox(trx: Db, userId: number): Promise<boolean> {
  // The link's use has updated the user's row already; the lock is taken here too so that every
  // takeover drops identities under it, as a social sign-in expects (resolveUser).
  await lockUser(trx, userId);
  if (await isLoginEmailConfirmed(trx, userId)) return false;
  await deleteIdentitiesOfUser(trx, userId);
  await markLoginEmailConfirmed(trx, userId);
  return true;
}

async function resolveUser(
  trx: Db,
  config: SocialConfig,
  identity: ProviderIdentity,
  storeCode: string,
  language: Language,
  now: number,
): Promise<number> {
  let linked = await findIdentity(trx, identity.provider, identity.subject);
  const vouched = vouchedEmail(identity);
  if (linked) {
    // A takeover (the address owner's reset or verification link, or their provider-verified
    // sign-in) drops this identity and the user's sessions while it holds the user's row. Under that
    // lock the identity is read again: a takeover that committed since the first read has dropped
    // it (this sign-in then goes on as one of an identity nobody linked), and one that comes later
    // waits for this session and ends it. Without it, a session opened after the takeover stayed.
    await lockPerson(trx, linked.user_id);
    linked = await findIdentity(trx, identity.provider, identity.subject);
  }
  if (linked) {
    // The provider's address may have changed, or its word on it: the identity's row follows (the
    // export shows it), the login email does not; it is the account's, changed only by PUT /user/me.
    // A user made before the provider's word was recorded (or whose provider did not vouch then)
    // has the address confirmed once the provider says it is verified: that address, not another.
    await refreshLinkedIdentity(trx, linked, identity);
    return linked.user_id;
  }
  // Read under the erasure's locks, as a registration reads it: an erasure running meanwhile is waited
  // for, and the email is then no one's (a new person is made below, as for a sign-in sent after it);
  // one that starts meanwhile waits for this sign-in and erases what it links and makes.
  const byEmail = identity.email === null ? undefined : await findPersonByEmail(trx, identity.email);
  if (byEmail) {
    if (vouched === null) throw invalidField('authId', 'auth.linkWithPassword', { provider: identity.provider });
    // The takeovers below drop identities and sessions under the user's lock (see above).
    await lockUser(trx, byEmail.id);
    if (!(await isLoginEmailConfirmed(trx, byEmail.id))) {
      // Made by a sign-up whose provider did not vouch for the address: whoever holds that identity
      // is not known to own the mailbox, and this person is. As with an account never verified, the
      // one who proved the address takes it over: the other identities, password and sessions go.
      await deleteIdentitiesOfUser(trx, byEmail.id);
      await activateDroppingCredentials(trx, byEmail.id, now);
    } else if (!byEmail.email_verified) await activateDroppingCredentials(trx, byEmail.id, now);
    // The link confirms the address: the provider vouched for this very one.
    await linkIdentity(trx, config, byEmail.id, identity, language, now);
    return byEmail.id;
  }
  const userId = await createActivatedUser(
    trx,
    {
      // Providers may withhold the email (Apple relay off, Facebook without permission). The
      // placeholder is random, so no registration can take it first (an address made from the
      // subject could be registered by anyone who knows it, and then this sign-in failed).
      // An address the provider did not verify (Facebook's never are) is as good as withheld: the
      // login email is taken as the person's own, and what is kept by email (guest orders billed
      // to it, requests, gift cards sent to it) is theirs to export and erase. The person confirms
      // an address of their own with PUT /user/me.
      email: vouched ?? placeholderEmail(identity.provider),
      firstName: identity.firstName,
      lastName: identity.lastName,
      language,
      storeCode,
    },
    now,
  );
  await insertIdentity(trx, { ...identity, userId }, now);
  // Nobody confirmed a placeholder: it stays unconfirmed until the person confirms an address of their own.
  if (vouched === null) await markLoginEmailUnconfirmed(trx, userId, now);
  return userId;
}

/**
 * The user's row lock that a takeover holds, after the erasure's locks of the person (their companies
 * and client accounts): the erasure's order, which takes the user's row last. A sign-in may make the
 * person's account in this store (openSession), which takes the erasure's locks; taken after the
 * user's row, a sign-in and an erasure at once could each hold what the other waits for.
 */
async function lockPerson(trx: Db, userId: number): Promise<void> {
  await lockAccountsForErasure(trx, userId);
  await lockUser(trx, userId);
}

/** An address no one holds or can register first: `.invalid` never delivers, the local part is 128 random bits. */
function placeholderEmail(provider: SocialProvider): string {
  return `${provider}.nomail-${randomBytes(16).toString('hex')}@users.invalid`;
}

function sameOrigin(url: string, frontendUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(frontendUrl).origin;
  } catch {
    return false;
  }
}
