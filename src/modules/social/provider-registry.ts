import { importPKCS8, SignJWT } from 'jose';
import type { SocialProvider } from './social.tables.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { facebookClient } from './facebook-client.js';
import { oidcClient } from './oidc-client.js';
import type { SocialProviderClient } from './providers.js';
import type { AppleConfig, SocialSection } from './social.config.js';

export type SocialProviders = Partial<Record<SocialProvider, SocialProviderClient>>;

/** The providers that are configured; one that is not answers 404 on its flow. */
export function createSocialProviders(config: SocialSection, clock: Clock = systemClock): SocialProviders {
  const providers: SocialProviders = {};
  if (config.google) {
    const google = config.google;
    providers.google = oidcClient({
      name: 'google',
      config: google,
      scope: 'openid email profile',
      clientSecret: async () => google.clientSecret ?? '',
    });
  }
  if (config.apple) {
    providers.apple = oidcClient({
      name: 'apple',
      config: config.apple,
      scope: 'openid name email',
      responseMode: 'form_post',
      clientSecret: appleClientSecret(config.apple, clock),
    });
  }
  if (config.facebook) providers.facebook = facebookClient(config.facebook);
  return providers;
}

const APPLE_SECRET_TTL_S = 3600;

/** Apple's client secret: an ES256 JWT signed with the team's key, remade before it expires. */
function appleClientSecret(config: AppleConfig, clock: Clock): () => Promise<string> {
  let cached: { jwt: string; expires: number } | undefined;
  return async () => {
    const now = Math.floor(clock.now() / 1000);
    if (cached && cached.expires - 60 > now) return cached.jwt;
    const key = await importPKCS8(config.privateKey, 'ES256');
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: config.keyId })
      .setIssuer(config.teamId)
      .setSubject(config.clientId)
      .setAudience(config.issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + APPLE_SECRET_TTL_S)
      .sign(key);
    cached = { jwt, expires: now + APPLE_SECRET_TTL_S };
    return jwt;
  };
}
