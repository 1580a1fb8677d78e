import * as client from 'openid-client';
import type { AccountType, SocialProvider } from '../../db/schema.js';
import { fieldError, HttpError } from '../../http/errors.js';
import type { Language } from '../../i18n/index.js';
import { hashToken, newToken } from '../../infra/tokens.js';
import { queueAccountMail } from '../accounts/accounts.jobs.js';
import { createClientAccount, findUserByEmail, insertUser, revokeAllTokensOfUser, updateUser, type Db } from '../accounts/accounts.repository.js';
import type { AccountsDeps } from '../accounts/registration.service.js';
import { openSession, type LoginResult } from '../accounts/session.service.js';
import type { StoreSettings } from '../store/store.service.js';
import type { SocialProviders } from './provider-registry.js';
import { SocialAuthError, type ProviderIdentity, type SocialProviderClient } from './providers.js';
import {
  consumeAuthRecord,
  findIdentity,
  findUsableAuthRecord,
  insertAuthRecord,
  insertIdentity,
  insertTransaction,
  takeTransaction,
} from './social.repository.js';

const TEN_MINUTES_MS = 600_000;

export interface SocialDeps extends AccountsDeps {
  providers: SocialProviders;
}

export function providerClient(deps: SocialDeps, name: string): SocialProviderClient {
  const provider = deps.providers[name as SocialProvider];
  if (!provider) throw new HttpError(404, 'auth.providerNotConfigured', { provider: name.slice(0, 20) });
  return provider;
}

/** Where the provider sends the browser back: this same endpoint. */
export function callbackUrl(deps: SocialDeps): string {
  return `${deps.config.social.publicUrl}${deps.config.basePath}/auth/external`;
}

/** Starts the web redirect flow: keeps state, PKCE verifier and nonce on the server, answers where to go. */
export async function startRedirect(
  deps: SocialDeps,
  input: { provider: string; store: StoreSettings; language: Language; returnUrl?: string; linkUserId?: number; now: number },
): Promise<URL> {
  const provider = providerClient(deps, input.provider);
  if (input.returnUrl !== undefined && !sameOrigin(input.returnUrl, input.store.frontendUrl)) throw new HttpError(400, 'auth.badReturnUrl');
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  await insertTransaction(deps.db, {
    state_hash: hashToken(state),
    provider: provider.name,
    code_verifier: codeVerifier,
    nonce,
    store_code: input.store.code,
    language: input.language,
    return_url: input.returnUrl ?? null,
    link_user_id: input.linkUserId ?? null,
    created_at: input.now,
    expires_at: input.now + TEN_MINUTES_MS,
  });
  return provider.authorizationUrl({ redirectUri: callbackUrl(deps), state, nonce, codeChallenge: await client.calculatePKCECodeChallenge(codeVerifier) });
}

/**
 * The provider's answer to the redirect flow. Always ends in a redirect to the front-end: to the
 * social-login page with an authId, or to the error page with a reason code.
 */
export async function finishRedirect(
  deps: SocialDeps,
  input: { state: string | undefined; callback: URL | Request; appleUser?: string; defaultStore: StoreSettings; now: number },
  storeOf: (code: string) => Promise<StoreSettings>,
): Promise<string> {
  const errorPage = (store: StoreSettings, reason: string) =>
    `${store.frontendUrl}${deps.config.social.errorPath}?reason=${encodeURIComponent(reason)}`;
  const transaction = input.state === undefined ? undefined : await takeTransaction(deps.db, hashToken(input.state), input.now);
  if (!transaction) return errorPage(input.defaultStore, 'state_mismatch');
  const store = await storeOf(transaction.store_code);
  let identity: ProviderIdentity;
  try {
    identity = await providerClient(deps, transaction.provider).finishRedirect({
      callback: input.callback,
      redirectUri: callbackUrl(deps),
      state: input.state!,
      nonce: transaction.nonce,
      codeVerifier: transaction.code_verifier,
      appleUser: input.appleUser,
    });
  } catch (error) {
    if (error instanceof SocialAuthError) return errorPage(store, error.reason);
    throw error;
  }
  const landing = new URL(`${store.frontendUrl}${deps.config.social.loginPath}`);
  if (transaction.return_url) landing.searchParams.set('returnUrl', transaction.return_url);
  if (transaction.link_user_id !== null) {
    try {
      await linkIdentity(deps, transaction.link_user_id, identity, transaction.language as Language, input.now);
    } catch (error) {
      if (error instanceof HttpError && error.status === 409) return errorPage(store, 'identity_in_use');
      throw error;
    }
    landing.searchParams.set('linked', identity.provider);
    return landing.toString();
  }
  landing.searchParams.set('authId', await createAuthRecord(deps, identity, store.code, transaction.language, input.now));
  return landing.toString();
}

/** The native app flow: checks the provider's token and answers an authId, or links with a bearer. */
export async function nativeSignIn(
  deps: SocialDeps,
  input: { provider: string; id: string; token: string; nonce?: string; store: StoreSettings; language: Language; linkUserId?: number; now: number },
): Promise<{ authId: string } | { linked: SocialProvider }> {
  const provider = providerClient(deps, input.provider);
  let identity: ProviderIdentity;
  try {
    identity = await provider.verifyNativeToken(input.id, input.token, input.nonce);
  } catch (error) {
    if (error instanceof SocialAuthError) {
      throw new HttpError(401, 'auth.socialFailed', { provider: provider.name }, { 'WWW-Authenticate': 'Bearer realm="storefront"' });
    }
    throw error;
  }
  if (input.linkUserId !== undefined) {
    await linkIdentity(deps, input.linkUserId, identity, input.language, input.now);
    return { linked: identity.provider };
  }
  return { authId: await createAuthRecord(deps, identity, input.store.code, input.language, input.now) };
}

async function createAuthRecord(deps: SocialDeps, identity: ProviderIdentity, storeCode: string, language: string, now: number): Promise<string> {
  const { token: authId, hash } = newToken();
  await insertAuthRecord(deps.db, {
    id_hash: hash,
    provider: identity.provider,
    subject: identity.subject,
    email: identity.email,
    email_verified: identity.emailVerified,
    first_name: identity.firstName,
    last_name: identity.lastName,
    store_code: storeCode,
    language,
    created_at: now,
    expires_at: now + TEN_MINUTES_MS,
    used_at: null,
  });
  return authId;
}

/** Links an identity to a user (idempotent); 409 when it belongs to someone else. Mails the user. */
async function linkIdentity(deps: SocialDeps, userId: number, identity: ProviderIdentity, language: Language, now: number): Promise<void> {
  await deps.db.transaction().execute((trx) => linkInTransaction(trx, deps, userId, identity, language, now));
}

async function linkInTransaction(trx: Db, deps: SocialDeps, userId: number, identity: ProviderIdentity, language: Language, now: number) {
  const existing = await findIdentity(trx, identity.provider, identity.subject);
  if (existing && existing.user_id !== userId) throw new HttpError(409, 'auth.identityInUse', { provider: identity.provider });
  if (existing) return;
  await insertIdentity(trx, { ...identity, userId }, now);
  await queueAccountMail(trx, deps.config, { kind: 'identityLinked', userId, provider: identity.provider, language }, now);
}

/**
 * Logs in with an authentication record. An identity linked before logs in. Otherwise a user
 * with the same email is linked only when the provider verified the email; a local account that
 * was never verified is then activated and its password and sessions dropped, so whoever
 * registered it before cannot keep access (no pre-account takeover). No user: one is created,
 * activated, with a simple account in the current store.
 */
export async function socialLogin(
  deps: SocialDeps,
  input: { authId: string; role: AccountType | undefined; isNativeForm: boolean; store: StoreSettings; language: Language; now: number },
): Promise<LoginResult> {
  const { language, now } = input;
  const idHash = hashToken(input.authId);
  const record = await findUsableAuthRecord(deps.db, idHash, now);
  if (!record) throw new HttpError(400, 'auth.badAuthId');
  const identity: ProviderIdentity = {
    provider: record.provider,
    subject: record.subject,
    email: record.email,
    emailVerified: Boolean(record.email_verified),
    firstName: record.first_name,
    lastName: record.last_name,
  };
  return deps.db.transaction().execute(async (trx) => {
    const userId = await resolveUser(trx, deps, identity, input.store.code, language, now);
    return openSession(trx, deps, {
      userId,
      storeCode: input.store.code,
      role: input.role,
      language,
      now,
      how: { method: record.provider, nativeForm: input.isNativeForm },
      storeField: 'authId',
      beforeIssue: async () => {
        if (!(await consumeAuthRecord(trx, idHash, now))) throw new HttpError(400, 'auth.badAuthId');
      },
    });
  });
}

async function resolveUser(trx: Db, deps: SocialDeps, identity: ProviderIdentity, storeCode: string, language: Language, now: number): Promise<number> {
  const linked = await findIdentity(trx, identity.provider, identity.subject);
  if (linked) return linked.user_id;
  const byEmail = identity.email === null ? undefined : await findUserByEmail(trx, identity.email);
  if (byEmail) {
    if (!identity.emailVerified) {
      throw fieldError('authId', language, 'auth.linkWithPassword', { provider: identity.provider });
    }
    if (!byEmail.email_verified) {
      await updateUser(
        trx,
        byEmail.id,
        { email_verified: true, activated_at: now, password_hash: null, verification_token_hash: null, verification_expires_at: null, reset_token_hash: null, reset_expires_at: null },
        now,
      );
      await revokeAllTokensOfUser(trx, byEmail.id);
    }
    await linkInTransaction(trx, deps, byEmail.id, identity, language, now);
    return byEmail.id;
  }
  const userId = await insertUser(
    trx,
    {
      // Providers may withhold the email (Apple relay off, Facebook without permission).
      email: identity.email ?? `${identity.provider}.${identity.subject}@users.invalid`,
      first_name: identity.firstName,
      last_name: identity.lastName,
      language,
    },
    now,
  );
  await updateUser(trx, userId, { email_verified: true, activated_at: now }, now);
  await createClientAccount(trx, { userId, storeCode, type: 'SIMPLE' }, now);
  await insertIdentity(trx, { ...identity, userId }, now);
  return userId;
}

function sameOrigin(url: string, frontendUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(frontendUrl).origin;
  } catch {
    return false;
  }
}
