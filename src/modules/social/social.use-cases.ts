import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { SocialProvider } from './social.tables.js';
import { DomainError } from '../../infra/domain-error.js';
import { hashToken } from '../../infra/tokens.js';
import type { Language } from '../../i18n/index.js';
import { SocialAuthError, type ProviderIdentity } from './providers.js';
import { takeTransaction } from './social.repository.js';
import {
  callbackUrl,
  createAuthRecord,
  linkIdentity,
  providerClient,
  verifiedNativeIdentity,
  type FlowStore,
  type SocialContext,
} from './social.service.js';

// The social flows ask the provider (over the network) before they write, so no transaction is
// open while the provider answers: each flow opens its own for the writes that follow.

/**
 * The provider's answer to the redirect flow. Always ends in a redirect to the front-end: to the
 * social-login page with an authId, or to the error page with a reason code.
 */
export async function finishRedirect(
  db: Kysely<Database>,
  social: SocialContext,
  input: { state: string | undefined; callback: URL | Request; appleUser?: string; defaultStore: FlowStore },
  storeOf: (code: string) => Promise<FlowStore>,
  now: number,
): Promise<string> {
  const { config } = social;
  const errorPage = (store: FlowStore, reason: string) =>
    `${store.frontendUrl}${config.social.errorPath}?reason=${encodeURIComponent(reason)}`;
  const transaction = input.state === undefined ? undefined : await takeTransaction(db, hashToken(input.state), now);
  if (!transaction) return errorPage(input.defaultStore, 'state_mismatch');
  const store = await storeOf(transaction.store_code);
  let identity: ProviderIdentity;
  try {
    identity = await providerClient(social, transaction.provider).finishRedirect({
      callback: input.callback,
      redirectUri: callbackUrl(config),
      state: input.state!,
      nonce: transaction.nonce,
      codeVerifier: transaction.code_verifier,
      appleUser: input.appleUser,
    });
  } catch (error) {
    if (error instanceof SocialAuthError) return errorPage(store, error.reason);
    throw error;
  }
  const landing = new URL(`${store.frontendUrl}${config.social.loginPath}`);
  if (transaction.return_url) landing.searchParams.set('returnUrl', transaction.return_url);
  if (transaction.link_user_id !== null) {
    const userId = transaction.link_user_id;
    try {
      await db.transaction().execute((trx) => linkIdentity(trx, config, userId, identity, transaction.language as Language, now));
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'conflict') return errorPage(store, 'identity_in_use');
      throw error;
    }
    landing.searchParams.set('linked', identity.provider);
    return landing.toString();
  }
  landing.searchParams.set('authId', await createAuthRecord(db, identity, store.code, transaction.language, now));
  return landing.toString();
}

/** The native app flow: checks the provider's token and answers an authId, or links with a bearer. */
export async function nativeSignIn(
  db: Kysely<Database>,
  social: SocialContext,
  input: { provider: string; id: string; token: string; nonce?: string; store: FlowStore; language: Language; linkUserId?: number },
  now: number,
): Promise<{ authId: string } | { linked: SocialProvider }> {
  const identity = await verifiedNativeIdentity(social, input);
  const { linkUserId } = input;
  if (linkUserId !== undefined) {
    await db.transaction().execute((trx) => linkIdentity(trx, social.config, linkUserId, identity, input.language, now));
    return { linked: identity.provider };
  }
  return { authId: await createAuthRecord(db, identity, input.store.code, input.language, now) };
}
