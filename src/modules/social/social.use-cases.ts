import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { inTransactionRetryingOnUniqueViolation, isUniqueViolation } from '../../db/unique-violation.js';
import type { SocialProvider } from './social.tables.js';
import { hashToken } from '../../infra/tokens.js';
import type { Language } from '../../i18n/index.js';
import { conflict } from '../../infra/domain-error.js';
import type { LoginResult } from '../accounts/index.js';
import { ProviderUnavailableError, SocialAuthError, type ProviderIdentity } from './providers.js';
import { isLiveTransaction, stashCallbackForm, takeTransaction } from './social.repository.js';
import {
  callbackUrl,
  createAuthRecord,
  linkIdentity,
  lockLinkingBearer,
  refuseStaleLinkingBearer,
  providerClient,
  socialLogin,
  useIdTokenOnce,
  verifiedNativeIdentity,
  webLinkStanding,
  type FlowStore,
  type LinkingBearer,
  type SocialContext,
} from './social.service.js';

// The social flows ask the provider (over the network) before they write, so no transaction is
// open while the provider answers: each flow opens its own for the writes that follow.

/** The provider's callback as it came: its URL at PUBLIC_URL, and the form of a POST (Apple). */
export interface ProviderCallback {
  url: URL;
  form?: string;
}

/**
 * How a callback ends: `landing` on the front-end (an authId, a pending link, or the error page);
 * `resume`, a form POST that came without the flow cookie, sent back here as a GET that carries
 * it; `otherBrowser`, a callback for a flow another browser started: refused, nothing changed.
 */
export type RedirectOutcome = { kind: 'landing'; location: string } | { kind: 'resume'; location: string } | { kind: 'otherBrowser' };

/**
 * The provider's answer to the redirect flow, taken only in the browser that started it (its flow
 * cookie's nonce). A sign-in lands on the social-login page with an authId; a link (the flow was
 * started with a bearer token) lands with `link=<provider>&authId=` and is made only when that
 * user confirms it, or, for an identity linked to that user before, lands with `linked=<provider>`
 * and keeps what the provider says now of its email (webLinkStanding); a failure lands on the
 * error page with a reason code.
 */
export async function finishRedirect(
  db: Kysely<Database>,
  social: SocialContext,
  input: { state: string | undefined; callback: ProviderCallback; browserNonce: string | undefined; defaultStore: FlowStore },
  storeOf: (code: string) => Promise<FlowStore>,
  now: number,
): Promise<RedirectOutcome> {
  const { config } = social;
  const errorPage = (store: FlowStore, reason: string): RedirectOutcome => ({
    kind: 'landing',
    location: `${store.frontendUrl}${config.social.errorPath}?reason=${encodeURIComponent(reason)}`,
  });
  const { state, callback, browserNonce } = input;
  if (state === undefined) return errorPage(input.defaultStore, 'state_mismatch');
  const stateHash = hashToken(state);
  // A cross-site form POST carries no SameSite=Lax cookie: keep the form, let the browser come back.
  if (browserNonce === undefined && callback.form !== undefined && (await stashCallbackForm(db, stateHash, callback.form, now))) {
    const back = new URL(callbackUrl(config));
    back.searchParams.set('state', state);
    return { kind: 'resume', location: back.toString() };
  }
  const transaction = browserNonce === undefined ? undefined : await takeTransaction(db, stateHash, hashToken(browserNonce), now);
  if (!transaction) {
    if (await isLiveTransaction(db, stateHash, now)) return { kind: 'otherBrowser' };
    return errorPage(input.defaultStore, 'state_mismatch');
  }
  const store = await storeOf(transaction.store_code);
  const form = transaction.callback_form ?? callback.form;
  let identity: ProviderIdentity;
  try {
    identity = await providerClient(social, transaction.provider).finishRedirect({
      callback: form === undefined ? callback.url : formPost(callbackUrl(config), form),
      redirectUri: callbackUrl(config),
      state,
      nonce: transaction.nonce,
      codeVerifier: transaction.code_verifier,
      appleUser: form === undefined ? undefined : (new URLSearchParams(form).get('user') ?? undefined),
    });
  } catch (error) {
    if (error instanceof SocialAuthError) return errorPage(store, error.reason);
    // The browser is sent back to the shop with a reason it can show ("try again"), not a 500.
    if (error instanceof ProviderUnavailableError) return errorPage(store, 'provider_unavailable');
    throw error;
  }
  const landing = new URL(`${store.frontendUrl}${config.social.loginPath}`);
  if (transaction.return_url) landing.searchParams.set('returnUrl', transaction.return_url);
  const linkUserId = transaction.link_user_id;
  if (linkUserId !== null) {
    const standing = await db.transaction().execute((trx) => webLinkStanding(trx, linkUserId, identity));
    if (standing === 'inUse') return errorPage(store, 'identity_in_use');
    if (standing === 'linked') {
      landing.searchParams.set('linked', identity.provider);
    } else {
      landing.searchParams.set('link', identity.provider);
      landing.searchParams.set('authId', await createAuthRecord(db, identity, store.code, transaction.language, now, linkUserId));
    }
    return { kind: 'landing', location: landing.toString() };
  }
  landing.searchParams.set('authId', await createAuthRecord(db, identity, store.code, transaction.language, now));
  return { kind: 'landing', location: landing.toString() };
}

function formPost(url: string, form: string): Request {
  return new Request(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
}

/**
 * The native app flow: checks the provider's token, takes an ID token only once, and answers an
 * authId, or links with a bearer (the app holds the token, so no other browser can slip it in).
 */
export async function nativeSignIn(
  db: Kysely<Database>,
  social: SocialContext,
  input: { provider: string; id: string; token: string; nonce?: string; store: FlowStore; language: Language; bearer?: LinkingBearer },
  now: number,
): Promise<{ authId: string } | { linked: SocialProvider }> {
  const verification = await verifiedNativeIdentity(social, input);
  const { identity } = verification;
  const { bearer } = input;
  // A link sent twice at once (a Facebook access token is not single-use) runs again on the identity's
  // unique key, and then finds it linked: to this user (answered as linked) or to another (409).
  return inTransactionRetryingOnUniqueViolation(db, async (trx) => {
    await useIdTokenOnce(trx, verification, now);
    if (bearer !== undefined) {
      await lockLinkingBearer(trx, bearer);
      await refuseStaleLinkingBearer(trx, bearer, now);
      await linkIdentity(trx, social.config, bearer.userId, identity, input.language, now);
      return { linked: identity.provider };
    }
    return { authId: await createAuthRecord(trx, identity, input.store.code, input.language, now) };
  });
}

/**
 * POST /auth/social-login in a transaction of its own. Two first sign-ins of one identity at once
 * (two devices, an app's retry; each with its own authId) both find no user: the second's insert hits
 * the first's unique key (the email, or the identity), and it runs again, finding the identity the
 * first linked: both log in as that one user. Before, the second was a 409 asking to try again.
 */
export async function signIn(
  db: Kysely<Database>,
  config: SocialContext['config'],
  input: Parameters<typeof socialLogin>[2],
  now: number,
): Promise<LoginResult> {
  try {
    return await inTransactionRetryingOnUniqueViolation(db, (trx) => socialLogin(trx, config, input, now));
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('auth.signInCollided');
    throw error;
  }
}
