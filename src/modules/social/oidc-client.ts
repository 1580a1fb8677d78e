import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { OidcProviderConfig } from './social.config.js';
import type { SocialProvider } from './social.tables.js';
import {
  idTokenUse,
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

export interface OidcClientOptions {
  name: Extract<SocialProvider, 'google' | 'apple'>;
  config: OidcProviderConfig;
  scope: string;
  /** Apple answers with a cross-site form POST. */
  responseMode?: 'form_post';
  /** The client secret for a token request (Apple's is a short-lived JWT made per request). */
  clientSecret: () => Promise<string>;
}

/**
 * Google and Apple through openid-client (discovery, PKCE, state, nonce, ID-token checks) for the
 * redirect flow, and jose for the ID tokens native apps send (signature by the provider's JWKS,
 * exact issuer, audience among our client ids, expiry, nonce, subject).
 */
export function oidcClient(options: OidcClientOptions): SocialProviderClient {
  const { name, config } = options;
  const insecure = config.issuer.startsWith('http:');
  let discovered: Promise<client.Configuration> | undefined;
  const discover = () => {
    discovered ??= client
      .discovery(
        new URL(config.issuer),
        config.clientId,
        undefined,
        undefined,
        insecure ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        discovered = undefined; // try again next time
        // Without its metadata the provider cannot be used at all, whatever the reason.
        throw new ProviderUnavailableError(`${name}: discovery failed: ${(error as Error).message}`, { cause: error });
      });
    return discovered;
  };
  // Per token request: Apple's secret expires, so the configuration is rebuilt with a fresh one.
  const withSecret = async () => {
    const base = await discover();
    const configuration = new client.Configuration(
      base.serverMetadata(),
      config.clientId,
      undefined,
      client.ClientSecretPost(await options.clientSecret()),
    );
    if (insecure) client.allowInsecureRequests(configuration);
    return configuration;
  };
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const keySet = async () => {
    const jwksUri = (await discover()).serverMetadata().jwks_uri;
    if (!jwksUri) throw new Error(`${name}: no jwks_uri in discovery`);
    jwks ??= createRemoteJWKSet(new URL(jwksUri));
    return jwks;
  };

  const identity = (claims: JWTPayload, appleUser?: string): ProviderIdentity => {
    const user = parseAppleUser(appleUser);
    return {
      provider: name,
      subject: subjectOf(name, claims.sub),
      email: emailOrNull(claims.email),
      // Apple sends "true" as a string.
      emailVerified: claims.email_verified === true || claims.email_verified === 'true',
      firstName: nameOrNull(claims.given_name) ?? user.firstName,
      lastName: nameOrNull(claims.family_name) ?? user.lastName,
    };
  };

  return {
    name,
    async authorizationUrl(start: RedirectStart) {
      const parameters: Record<string, string> = {
        redirect_uri: start.redirectUri,
        scope: options.scope,
        response_type: 'code',
        state: start.state,
        nonce: start.nonce,
        code_challenge: start.codeChallenge,
        code_challenge_method: 'S256',
      };
      if (options.responseMode) parameters.response_mode = options.responseMode;
      return client.buildAuthorizationUrl(await discover(), parameters);
    },

    async finishRedirect(finish: RedirectFinish) {
      let claims: JWTPayload | undefined;
      try {
        const tokens = await client.authorizationCodeGrant(await withSecret(), finish.callback, {
          pkceCodeVerifier: finish.codeVerifier,
          expectedState: finish.state,
          expectedNonce: finish.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims();
      } catch (error) {
        if (isUnreachable(error)) throw new ProviderUnavailableError(`${name}: ${(error as Error).message}`, { cause: error });
        const refused = error instanceof client.AuthorizationResponseError;
        throw new SocialAuthError(refused ? 'provider_refused' : 'verification_failed', `${name}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      if (!claims?.sub) throw new SocialAuthError('verification_failed', `${name}: no ID token subject`);
      return identity(claims, finish.appleUser);
    },

    async verifyNativeToken(id: string, token: string, nonce?: string) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await keySet(), {
          issuer: config.issuer,
          audience: [config.clientId, ...config.extraAudiences],
          algorithms: ['RS256', 'ES256'],
          requiredClaims: ['sub', 'exp', 'iat'],
        }));
      } catch (error) {
        if (isUnreachable(error)) throw new ProviderUnavailableError(`${name}: ${(error as Error).message}`, { cause: error });
        throw new SocialAuthError('verification_failed', `${name}: ${(error as Error).message}`, { cause: error });
      }
      if (payload.sub !== id) throw new SocialAuthError('verification_failed', `${name}: token subject is not the given id`);
      if (nonce !== undefined && payload.nonce !== nonce) throw new SocialAuthError('verification_failed', `${name}: nonce mismatch`);
      return { identity: identity(payload), singleUse: idTokenUse(payload, token) };
    },
  };
}

function parseAppleUser(raw: string | undefined): { firstName: string | null; lastName: string | null } {
  if (raw === undefined) return { firstName: null, lastName: null };
  try {
    const user = JSON.parse(raw) as { name?: { firstName?: unknown; lastName?: unknown } };
    return { firstName: nameOrNull(user.name?.firstName), lastName: nameOrNull(user.name?.lastName) };
  } catch {
    return { firstName: null, lastName: null };
  }
}
