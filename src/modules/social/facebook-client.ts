import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { FacebookConfig } from './social.config.js';
import {
  idTokenUse,
  isJsonObject,
  isUnreachable,
  emailOrNull,
  nameOrNull,
  subjectOf,
  ProviderUnavailableError,
  SocialAuthError,
  type ProviderIdentity,
  type RedirectFinish,
  type RedirectStart,
  type SocialProviderClient,
} from './providers.js';

const TIMEOUT_MS = 10_000;

/**
 * Facebook Login: the OAuth dialog with PKCE for the web, and for the app either an access token
 * (checked with debug_token: valid, issued to our app, for this user) or a Limited Login ID token
 * (checked by signature, issuer, audience). Facebook's email is never taken as verified.
 */
export function facebookClient(config: FacebookConfig): SocialProviderClient {
  const graph = async (path: string, query: Record<string, string>) => {
    const url = new URL(`${config.graphUrl}${path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new ProviderUnavailableError(`facebook ${path}: ${(error as Error).message}`, { cause: error });
    }
    const answer: unknown = await response.json().catch(() => undefined);
    if (response.status >= 500) throw new ProviderUnavailableError(`facebook ${path}: HTTP ${response.status}`);
    // Graph answers objects; anything else (null, an array, a number, a text) vouches for nobody.
    const body = isJsonObject(answer) ? answer : undefined;
    if (!response.ok) {
      const error = body?.error;
      const message = isJsonObject(error) && typeof error.message === 'string' ? error.message : `HTTP ${response.status}`;
      throw new SocialAuthError('verification_failed', `facebook ${path}: ${message}`);
    }
    if (body === undefined) throw new SocialAuthError('verification_failed', `facebook ${path}: the answer is not a JSON object`);
    return body;
  };

  /** The user behind an access token, once it is shown to be valid, ours, and (when given) for `id`. */
  const profile = async (accessToken: string, id?: string): Promise<ProviderIdentity> => {
    const debug = (await graph('/debug_token', { input_token: accessToken, access_token: `${config.appId}|${config.appSecret}` })).data;
    if (!isJsonObject(debug) || debug.is_valid !== true) throw new SocialAuthError('verification_failed', 'facebook: token is not valid');
    if (debug.app_id !== config.appId) throw new SocialAuthError('verification_failed', 'facebook: token was issued to another app');
    // Without the user's id, a /me that names nobody either would match it: every such token one identity.
    if (typeof debug.user_id !== 'string' || debug.user_id === '')
      throw new SocialAuthError('verification_failed', 'facebook: token names no user');
    if (id !== undefined && debug.user_id !== id) throw new SocialAuthError('verification_failed', 'facebook: token is for another user');
    const me = await graph('/me', { fields: 'id,email,first_name,last_name', access_token: accessToken });
    if (me.id !== debug.user_id) throw new SocialAuthError('verification_failed', 'facebook: profile does not match the token');
    return {
      provider: 'facebook',
      subject: subjectOf('facebook', debug.user_id),
      email: emailOrNull(me.email),
      emailVerified: false,
      firstName: nameOrNull(me.first_name),
      lastName: nameOrNull(me.last_name),
    };
  };

  let limitedJwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  return {
    name: 'facebook',
    async authorizationUrl(start: RedirectStart) {
      const url = new URL(config.dialogUrl);
      url.search = new URLSearchParams({
        client_id: config.appId,
        redirect_uri: start.redirectUri,
        state: start.state,
        response_type: 'code',
        scope: 'email,public_profile',
        code_challenge: start.codeChallenge,
        code_challenge_method: 'S256',
      }).toString();
      return url;
    },

    async finishRedirect(finish: RedirectFinish) {
      const params = finish.callback instanceof URL ? finish.callback.searchParams : new URLSearchParams(await finish.callback.text());
      if (params.get('state') !== finish.state) throw new SocialAuthError('state_mismatch', 'facebook: state mismatch');
      if (params.has('error')) throw new SocialAuthError('provider_refused', `facebook: ${params.get('error')}`);
      const code = params.get('code');
      if (!code) throw new SocialAuthError('verification_failed', 'facebook: no code');
      const token = await graph('/oauth/access_token', {
        client_id: config.appId,
        client_secret: config.appSecret,
        redirect_uri: finish.redirectUri,
        code,
        code_verifier: finish.codeVerifier,
      });
      if (typeof token.access_token !== 'string') throw new SocialAuthError('verification_failed', 'facebook: no access token');
      return profile(token.access_token);
    },

    async verifyNativeToken(id: string, token: string, nonce?: string) {
      // An access token is not single-use: the SDK keeps it and signs in with it again; debug_token
      // shows it is valid, ours and this user's. A Limited Login ID token is single-use.
      if (token.split('.').length !== 3) return { identity: await profile(token, id) };
      limitedJwks ??= createRemoteJWKSet(new URL(config.limitedLoginJwksUrl));
      try {
        const { payload } = await jwtVerify(token, limitedJwks, {
          issuer: config.limitedLoginIssuer,
          audience: config.appId,
          algorithms: ['RS256'],
          requiredClaims: ['sub', 'exp'],
        });
        if (payload.sub !== id) throw new Error('token subject is not the given id');
        if (nonce !== undefined && payload.nonce !== nonce) throw new Error('nonce mismatch');
        const identity: ProviderIdentity = {
          provider: 'facebook',
          subject: id,
          email: emailOrNull(payload.email),
          emailVerified: false,
          firstName: nameOrNull(payload.given_name),
          lastName: nameOrNull(payload.family_name),
        };
        return { identity, singleUse: idTokenUse(payload, token) };
      } catch (error) {
        if (isUnreachable(error))
          throw new ProviderUnavailableError(`facebook limited login: ${(error as Error).message}`, { cause: error });
        throw new SocialAuthError('verification_failed', `facebook limited login: ${(error as Error).message}`, { cause: error });
      }
    },
  };
}
