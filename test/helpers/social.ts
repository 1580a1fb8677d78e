import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createAccountsTestApp, type AccountsTestApp } from './accounts.js';
import { startFakeFacebook, type FacebookUser, type FakeFacebook } from './facebook-graph.js';
import { startTestIdp, type TestIdp } from './oidc-provider.js';
import type { TestAppOptions } from './test-app.js';

export const PUBLIC_URL = 'http://127.0.0.1:3999';
export const CALLBACK = `${PUBLIC_URL}/auth/external`;
export const IOS_APP = 'ee.raamatupood.ios';

/** The app with every social provider configured against real local peers. */
export interface SocialTestApp extends AccountsTestApp {
  google: TestIdp;
  apple: TestIdp;
  /** Facebook Limited Login's issuer and key set. */
  facebookLimited: TestIdp;
  facebook: FakeFacebook;
}

export async function createSocialTestApp(options: TestAppOptions = {}): Promise<SocialTestApp> {
  const google = await startTestIdp({ redirectUris: [CALLBACK], responseModes: ['query'] });
  const apple = await startTestIdp({ redirectUris: [CALLBACK], responseModes: ['form_post'], appleStyle: true });
  const facebookLimited = await startTestIdp({ redirectUris: [CALLBACK] });
  const facebook = await startFakeFacebook();
  const t = await createAccountsTestApp({
    ...options,
    env: {
      PUBLIC_URL,
      GOOGLE_CLIENT_ID: google.clientId,
      GOOGLE_CLIENT_SECRET: google.clientSecret,
      GOOGLE_ISSUER: google.issuer,
      GOOGLE_EXTRA_AUDIENCES: IOS_APP,
      APPLE_CLIENT_ID: apple.clientId,
      APPLE_TEAM_ID: apple.apple!.teamId,
      APPLE_KEY_ID: apple.apple!.keyId,
      APPLE_PRIVATE_KEY: apple.apple!.privateKeyPem,
      APPLE_ISSUER: apple.issuer,
      APPLE_EXTRA_AUDIENCES: IOS_APP,
      FACEBOOK_APP_ID: facebook.appId,
      FACEBOOK_APP_SECRET: facebook.appSecret,
      FACEBOOK_GRAPH_URL: facebook.graphUrl,
      FACEBOOK_DIALOG_URL: facebook.dialogUrl,
      FACEBOOK_LIMITED_LOGIN_ISSUER: facebookLimited.issuer,
      FACEBOOK_LIMITED_LOGIN_JWKS_URL: facebookLimited.jwksUri,
      ...options.env,
    },
  });
  return {
    ...t,
    google,
    apple,
    facebookLimited,
    facebook,
    async close() {
      await t.close();
      await Promise.all([google.close(), apple.close(), facebookLimited.close(), facebook.close()]);
    },
  };
}

let counter = 0;
export const newSubject = () => `subject-${Date.now().toString(36)}-${++counter}`;
/** A fresh `jti`: two tokens minted in the same second with the same claims are otherwise one token. */
export const newJti = () => randomUUID();

type Answer = LightMyRequestResponse;

/**
 * One browser's cookies for the service (name -> value, with the path they were set for). Like a
 * browser with SameSite=Lax cookies, it sends them on GETs and same-site POSTs, not on a
 * cross-site POST (Apple's form_post).
 */
export class Browser {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  constructor(private readonly t: AccountsTestApp) {}

  async request(options: {
    method: 'GET' | 'POST' | 'HEAD';
    url: string;
    headers?: Record<string, string>;
    payload?: string | object;
    crossSite?: boolean;
  }): Promise<Answer> {
    const path = options.url.split('?', 1)[0]!;
    const cookie = options.method === 'POST' && options.crossSite ? '' : this.cookieHeader(path);
    const headers = { ...options.headers, ...(cookie ? { cookie } : {}) };
    const response = await this.t.app.inject({ method: options.method, url: options.url, headers, payload: options.payload });
    this.store(response.headers['set-cookie']);
    return response;
  }

  names(): string[] {
    return [...this.cookies.keys()];
  }

  values(): string[] {
    return [...this.cookies.values()].map((cookie) => cookie.value);
  }

  private cookieHeader(path: string): string {
    return [...this.cookies]
      .filter(([, cookie]) => path === cookie.path || path.startsWith(`${cookie.path}/`))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join('; ');
  }

  private store(setCookie: unknown): void {
    const lines = Array.isArray(setCookie) ? setCookie : typeof setCookie === 'string' ? [setCookie] : [];
    for (const line of lines as string[]) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      if (value === '' || attribute('max-age') === '0') this.cookies.delete(name);
      else this.cookies.set(name, { value, path: attribute('path') ?? '/' });
    }
  }
}

export type WebProvider = 'google' | 'apple' | 'facebook';

/** Starts a web flow in `browser` and answers the provider's page it is sent to. */
export async function startWebFlow(
  t: SocialTestApp,
  browser: Browser,
  provider: WebProvider,
  options: { headers?: Record<string, string>; query?: string } = {},
): Promise<string> {
  const start = await browser.request({
    method: 'GET',
    url: `/auth/external?authclient=${provider}${options.query ?? ''}`,
    headers: options.headers,
  });
  expect(start.statusCode, start.body).toBe(302);
  return String(start.headers.location);
}

/** The person signs in at the provider; answers the request their browser then makes back to the service. */
export async function signInAtProvider(
  t: SocialTestApp,
  provider: WebProvider,
  providerUrl: string,
  as: { sub: string; facebookUser?: FacebookUser },
  options: { deny?: boolean } = {},
): Promise<{ method: 'GET' | 'POST'; url: string; body?: string; contentType?: string }> {
  const back =
    provider === 'facebook'
      ? await t.facebook.authorize(providerUrl, as.facebookUser!, options)
      : await (provider === 'google' ? t.google : t.apple).authorize(providerUrl, as.sub, options);
  expect(back.url.startsWith(CALLBACK)).toBe(true);
  return back;
}

/**
 * The provider's redirect back, in `browser`: a GET (Google, Facebook), or Apple's cross-site form
 * POST, which the service answers with a 303 back to itself that the browser follows with its cookie.
 */
export async function returnFromProvider(
  browser: Browser,
  back: { method: 'GET' | 'POST'; url: string; body?: string; contentType?: string },
): Promise<Answer> {
  const url = back.url.slice(PUBLIC_URL.length);
  if (back.method === 'GET') return browser.request({ method: 'GET', url });
  const posted = await browser.request({
    method: 'POST',
    url,
    payload: back.body,
    headers: { 'content-type': back.contentType ?? 'application/x-www-form-urlencoded' },
    crossSite: true,
  });
  if (posted.statusCode !== 303) return posted;
  return browser.request({ method: 'GET', url: String(posted.headers.location).slice(PUBLIC_URL.length) });
}

/** The whole web flow in one browser; answers where the service sends it at the end. */
export async function webFlow(
  t: SocialTestApp,
  provider: WebProvider,
  as: { sub: string; facebookUser?: FacebookUser },
  options: { headers?: Record<string, string>; query?: string; deny?: boolean; browser?: Browser } = {},
): Promise<URL> {
  const browser = options.browser ?? new Browser(t);
  const providerUrl = await startWebFlow(t, browser, provider, options);
  const back = await signInAtProvider(t, provider, providerUrl, as, options);
  const callback = await returnFromProvider(browser, back);
  expect(callback.statusCode, callback.body).toBe(302);
  return new URL(String(callback.headers.location));
}

/** The subjects of the social identities linked to the user of that login email. */
export function identitiesOf(t: SocialTestApp, email: string) {
  return t.database.db
    .selectFrom('social_identity')
    .innerJoin('app_user', 'app_user.id', 'social_identity.user_id')
    .select('social_identity.subject')
    .where('app_user.email', '=', email)
    .execute();
}

/** POST /auth/external/confirm-link with the authId a web link flow landed with, and the bearer when one is given. */
export function confirmLink(t: SocialTestApp, authId: string | null, bearer?: string, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/auth/external/confirm-link',
    headers: { ...headers, ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }) },
    payload: { authId },
  });
}
