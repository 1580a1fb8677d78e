import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import {
  Browser,
  CALLBACK,
  createSocialTestApp,
  IOS_APP,
  newJti,
  newSubject,
  returnFromProvider,
  signInAtProvider,
  startWebFlow,
  type SocialTestApp,
} from '../helpers/social.js';
import { rowCount } from '../helpers/table-counts.js';

// A HEAD of /auth/external is answered without the GET's work: Fastify ran the GET's handler for it,
// which started a flow, spent a callback's state (and the provider's one-time code) or took an ID
// token, so a link checker, a prefetch or a mail scanner made the browser's or app's real request fail.

let t: SocialTestApp;

beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(async () => {
  await t.close();
});

const socialLogin = (authId: string) =>
  t.app.inject({ method: 'POST', url: '/auth/social-login', payload: { authId, isNativeForm: false } });

const rows = async () => ({
  flows: await rowCount(t.database.db, 'oauth_transaction'),
  records: await rowCount(t.database.db, 'auth_record'),
  usedTokens: await rowCount(t.database.db, 'used_id_token'),
});

describe('HEAD /auth/external', () => {
  it("of the provider's callback, with the flow's cookie, spends nothing: the browser's GET then signs in", async () => {
    const sub = newSubject();
    t.google.addAccount({ sub, email: uniqueEmail('head'), email_verified: true });
    const browser = new Browser(t);
    const providerUrl = await startWebFlow(t, browser, 'google');
    const back = await signInAtProvider(t, 'google', providerUrl, { sub });
    expect(back.method).toBe('GET');
    const before = await rows();
    const head = await browser.request({ method: 'HEAD', url: back.url.slice(CALLBACK.length - '/auth/external'.length) });
    const afterHead = await rows();

    const callback = await returnFromProvider(browser, back);
    expect(callback.statusCode, callback.body).toBe(302);
    const landing = new URL(String(callback.headers.location));
    expect(landing.pathname, landing.toString()).toBe('/social-login');
    const login = await socialLogin(landing.searchParams.get('authId')!);
    expect(login.statusCode, login.body).toBe(200);
    expect(afterHead).toEqual(before);
    expect(head.statusCode).toBe(204);
    expect(head.body).toBe('');
    expect(head.headers['set-cookie']).toBeUndefined();
  });

  it('of a start begins no flow and sets no cookie', async () => {
    const before = await rows();
    const browser = new Browser(t);
    const head = await browser.request({ method: 'HEAD', url: '/auth/external?authclient=google' });
    expect(await rows()).toEqual(before);
    expect(head.headers['set-cookie']).toBeUndefined();
    expect(head.headers.location).toBeUndefined();
    expect(head.statusCode).toBe(204);
  });

  it("of an app's ID token does not take it: the app's own request then signs in", async () => {
    const sub = newSubject();
    const token = await t.google.idToken({ sub, aud: IOS_APP, email: uniqueEmail('app'), email_verified: true, jti: newJti() });
    const url = `/auth/external?${new URLSearchParams({ client: 'google', id: sub, token }).toString()}`;
    const before = await rows();
    const head = await t.app.inject({ method: 'HEAD', url });
    const afterHead = await rows();
    const get = await t.app.inject({ method: 'GET', url });
    expect(get.statusCode, get.body).toBe(200);
    expect(get.json()).toHaveProperty('authId');
    expect(afterHead).toEqual(before);
    expect(head.statusCode).toBe(204);
  });

  it('is refused for its parameters as the GET is, and is never kept by a cache', async () => {
    // Validation (and the per-address limit) run before the handler, for HEAD as for GET.
    const url = '/auth/external?authclient=google&authclient=apple';
    const head = await t.app.inject({ method: 'HEAD', url });
    const get = await t.app.inject({ method: 'GET', url });
    expect(get.statusCode).toBe(400);
    expect(head.statusCode).toBe(400);
    const ok = await t.app.inject({ method: 'HEAD', url: '/auth/external?authclient=google' });
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(ok.headers['content-length']).toBeUndefined();
  });
});
