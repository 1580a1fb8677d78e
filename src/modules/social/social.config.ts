import { isHttpUrl, readPublicUrl, type EnvReader } from '../../infra/env.js';
import type { AccountsConfig } from '../accounts/index.js';

// What the social module reads of the configuration, under the names src/config.ts gives them
// (app.ts passes its whole Config, which has these fields), and how the `social` section is read.

export interface OidcProviderConfig {
  clientId: string;
  /** The web client's secret (Google); Apple's is made from `privateKey`. */
  clientSecret: string | undefined;
  /** Client ids of the native apps whose ID tokens are accepted too. */
  extraAudiences: string[];
  issuer: string;
}

export interface AppleConfig extends OidcProviderConfig {
  teamId: string;
  keyId: string;
  /** PKCS#8 PEM of the Sign in with Apple key; the client secret is an ES256 JWT signed with it. */
  privateKey: string;
}

export interface FacebookConfig {
  appId: string;
  appSecret: string;
  graphUrl: string;
  dialogUrl: string;
  /** Issuer and key set of Limited Login ID tokens (iOS). */
  limitedLoginIssuer: string;
  limitedLoginJwksUrl: string;
}

/** The `social` section: the providers that are configured and where their flows land. */
export interface SocialSection {
  /** Public base URL of this service (for the providers' redirect back), e.g. https://api.shop.example */
  publicUrl: string;
  /** Front-end paths after the store's front-end URL: where a finished or failed redirect flow lands. */
  loginPath: string;
  errorPath: string;
  google: OidcProviderConfig | undefined;
  facebook: FacebookConfig | undefined;
  apple: AppleConfig | undefined;
}

/** Social sign-in opens sessions and links identities like the accounts module, so it reads what that reads too. */
export interface SocialConfig extends AccountsConfig {
  social: SocialSection;
  /** The API's path prefix: the providers call back to PUBLIC_URL + basePath + /auth/external. */
  basePath: string;
}

/** The `social` section; a provider is configured when its client id is set, then the rest it needs must be too. */
export function readSocialConfig(env: EnvReader): SocialSection {
  const config: SocialSection = {
    publicUrl: readPublicUrl(env),
    loginPath: env.urlPath('SOCIAL_LOGIN_PATH', '/social-login'),
    errorPath: env.urlPath('SOCIAL_ERROR_PATH', '/social-login-error'),
    google: readOidcProvider(env, 'GOOGLE', 'https://accounts.google.com', true),
    facebook: readFacebook(env),
    apple: readApple(env),
  };
  if (!isHttpUrl(config.publicUrl)) env.problem(`PUBLIC_URL must be an http(s) URL, got "${config.publicUrl}"`);
  else if (!isBaseUrl(config.publicUrl))
    env.problem(`PUBLIC_URL must be an http(s) URL without a query, a fragment or a user name and password, got "${config.publicUrl}"`);
  return config;
}

/**
 * Whether a URL can have paths put after it: every link the service makes (the sitemap index, the
 * gateway's callbacks, sign-in redirects) is PUBLIC_URL and a path, so a query or fragment ended up
 * before the path (https://api.example/?v=1/sitemap/...), and a user name and password were handed out.
 * The text is checked too: URL drops an empty '?' or '#'.
 */
function isBaseUrl(text: string): boolean {
  const url = new URL(text);
  return !/[?#]/.test(text) && url.username === '' && url.password === '';
}

function readOidcProvider(env: EnvReader, prefix: string, defaultIssuer: string, needsSecret: boolean): OidcProviderConfig | undefined {
  const clientId = env.optional(`${prefix}_CLIENT_ID`);
  if (clientId === undefined) return undefined;
  const clientSecret = env.optional(`${prefix}_CLIENT_SECRET`);
  if (needsSecret && clientSecret === undefined) env.problem(`${prefix}_CLIENT_SECRET is required with ${prefix}_CLIENT_ID`);
  const issuer = env.read(`${prefix}_ISSUER`, defaultIssuer).replace(/\/+$/, '');
  if (!isHttpUrl(issuer)) env.problem(`${prefix}_ISSUER must be an http(s) URL, got "${issuer}"`);
  return { clientId, clientSecret, extraAudiences: env.list(`${prefix}_EXTRA_AUDIENCES`), issuer };
}

function readApple(env: EnvReader): AppleConfig | undefined {
  const base = readOidcProvider(env, 'APPLE', 'https://appleid.apple.com', false);
  if (base === undefined) return undefined;
  const teamId = env.optional('APPLE_TEAM_ID');
  const keyId = env.optional('APPLE_KEY_ID');
  const privateKey = env.optional('APPLE_PRIVATE_KEY')?.replace(/\\n/g, '\n');
  for (const [name, value] of [
    ['APPLE_TEAM_ID', teamId],
    ['APPLE_KEY_ID', keyId],
    ['APPLE_PRIVATE_KEY', privateKey],
  ] as const) {
    if (value === undefined) env.problem(`${name} is required with APPLE_CLIENT_ID`);
  }
  if (privateKey !== undefined && !privateKey.includes('BEGIN PRIVATE KEY')) env.problem('APPLE_PRIVATE_KEY must be a PKCS#8 PEM key');
  return { ...base, teamId: teamId ?? '', keyId: keyId ?? '', privateKey: privateKey ?? '' };
}

function readFacebook(env: EnvReader): FacebookConfig | undefined {
  const appId = env.optional('FACEBOOK_APP_ID');
  if (appId === undefined) return undefined;
  const appSecret = env.optional('FACEBOOK_APP_SECRET');
  if (appSecret === undefined) env.problem('FACEBOOK_APP_SECRET is required with FACEBOOK_APP_ID');
  const urls = {
    graphUrl: env.read('FACEBOOK_GRAPH_URL', 'https://graph.facebook.com/v19.0').replace(/\/+$/, ''),
    dialogUrl: env.read('FACEBOOK_DIALOG_URL', 'https://www.facebook.com/v19.0/dialog/oauth'),
    limitedLoginIssuer: env.read('FACEBOOK_LIMITED_LOGIN_ISSUER', 'https://www.facebook.com'),
    limitedLoginJwksUrl: env.read('FACEBOOK_LIMITED_LOGIN_JWKS_URL', 'https://limited.facebook.com/.well-known/oauth/openid/jwks/'),
  };
  for (const [name, value] of Object.entries(urls))
    if (!isHttpUrl(value)) env.problem(`FACEBOOK ${name} must be an http(s) URL, got "${value}"`);
  return { appId, appSecret: appSecret ?? '', ...urls };
}
