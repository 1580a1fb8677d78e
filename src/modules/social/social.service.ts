import * as client from 'openid-client';
import type { Db } from '../../db/database.js';
import type { AccountType } from '../../db/schema.js';
import type { SocialProvider } from './social.tables.js';
import { badRequest, conflict, DomainError, invalidField, notFound } from '../../infra/domain-error.js';
import type { Language } from '../../i18n/index.js';
import { hashToken, newToken } from '../../infra/tokens.js';
import {
  activateDroppingCredentials,
  createActivatedUser,
  findUserByEmail,
  openSession,
  queueAccountMail,
  type LoginResult,
} from '../accounts/index.js';
import type { SocialProviders } from './provider-registry.js';
import { SocialAuthError, type ProviderIdentity, type SocialProviderClient } from './providers.js';
import type { SocialConfig } from './social.config.js';
import {
  consumeAuthRecord,
  findIdentity,
  findUsableAuthRecord,
  insertAuthRecord,
  insertIdentity,
  insertTransaction,
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
  const provider = social.providers[name as SocialProvider];
  if (!provider) throw notFound('auth.providerNotConfigured', { provider: name.slice(0, 20) });
  return provider;
}

/** Where the provider sends the browser back: this same endpoint. */
export function callbackUrl(config: SocialConfig): string {
  return `${config.social.publicUrl}${config.basePath}/auth/external`;
}

/** Starts the web redirect flow: keeps state, PKCE verifier and nonce on the server, answers where to go. */
export async function startRedirect(
  db: Db,
  social: SocialContext,
  input: { provider: string; store: FlowStore; language: Language; returnUrl?: string; linkUserId?: number },
  now: number,
): Promise<URL> {
  const provider = providerClient(social, input.provider);
  if (input.returnUrl !== undefined && !sameOrigin(input.returnUrl, input.store.frontendUrl)) throw badRequest('auth.badReturnUrl');
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
    link_user_id: input.linkUserId ?? null,
    created_at: now,
    expires_at: now + TEN_MINUTES_MS,
  });
  return provider.authorizationUrl({
    redirectUri: callbackUrl(social.config),
    state,
    nonce,
    codeChallenge: await client.calculatePKCECodeChallenge(codeVerifier),
  });
}

/** Checks a token a native app got from the provider; 401 when the provider does not vouch for it. */
export async function verifiedNativeIdentity(
  social: SocialContext,
  input: { provider: string; id: string; token: string; nonce?: string },
): Promise<ProviderIdentity> {
  const provider = providerClient(social, input.provider);
  try {
    return await provider.verifyNativeToken(input.id, input.token, input.nonce);
  } catch (error) {
    if (error instanceof SocialAuthError) throw new DomainError('unauthenticated', 'auth.socialFailed', { provider: provider.name });
    throw error;
  }
}

/** A single-use authentication record for /auth/social-login; answers its id (the authId). */
export async function createAuthRecord(
  db: Db,
  identity: ProviderIdentity,
  storeCode: string,
  language: string,
  now: number,
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
    created_at: now,
    expires_at: now + TEN_MINUTES_MS,
    used_at: null,
  });
  return authId;
}

/** Links an identity to a user (idempotent); 409 when it belongs to someone else. Mails the user. */
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
  if (existing) return;
  await insertIdentity(trx, { ...identity, userId }, now);
  await queueAccountMail(trx, config, { kind: 'identityLinked', userId, provider: identity.provider, language }, now);
}

/**
 * Logs in with an authentication record. An identity linked before logs in. Otherwise a user
 * with the same email is linked only when the provider verified the email; a local account that
 * was never verified is then activated and its password and sessions dropped, so whoever
 * registered it before cannot keep access (no pre-account takeover). No user: one is created,
 * activated, with a simple account in the current store.
 */
export async function socialLogin(
  trx: Db,
  config: SocialConfig,
  input: { authId: string; role: AccountType | undefined; isNativeForm: boolean; storeCode: string; language: Language },
  now: number,
): Promise<LoginResult> {
  const { language, storeCode } = input;
  const idHash = hashToken(input.authId);
  const record = await findUsableAuthRecord(trx, idHash, now);
  if (!record) throw badRequest('auth.badAuthId');
  const identity: ProviderIdentity = {
    provider: record.provider,
    subject: record.subject,
    email: record.email,
    emailVerified: Boolean(record.email_verified),
    firstName: record.first_name,
    lastName: record.last_name,
  };
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
      beforeIssue: async () => {
        if (!(await consumeAuthRecord(trx, idHash, now))) throw badRequest('auth.badAuthId');
      },
    },
    now,
  );
}

async function resolveUser(
  trx: Db,
  config: SocialConfig,
  identity: ProviderIdentity,
  storeCode: string,
  language: Language,
  now: number,
): Promise<number> {
  const linked = await findIdentity(trx, identity.provider, identity.subject);
  if (linked) return linked.user_id;
  const byEmail = identity.email === null ? undefined : await findUserByEmail(trx, identity.email);
  if (byEmail) {
    if (!identity.emailVerified) throw invalidField('authId', 'auth.linkWithPassword', { provider: identity.provider });
    if (!byEmail.email_verified) await activateDroppingCredentials(trx, byEmail.id, now);
    await linkIdentity(trx, config, byEmail.id, identity, language, now);
    return byEmail.id;
  }
  const userId = await createActivatedUser(
    trx,
    {
      // Providers may withhold the email (Apple relay off, Facebook without permission).
      email: identity.email ?? `${identity.provider}.${identity.subject}@users.invalid`,
      firstName: identity.firstName,
      lastName: identity.lastName,
      language,
      storeCode,
    },
    now,
  );
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
