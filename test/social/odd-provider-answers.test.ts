import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { createSocialTestApp, newSubject, webFlow, type SocialTestApp } from '../helpers/social.js';

// A provider that answers, but with valid JSON that is not the object its API answers, has not vouched
// for anybody: that is a failed sign-in (the API's 401, the error page's verification_failed), never a
// 500, and not "try again later" either (it answered).

const ODD_BODIES = ['null', '[]', '42', '"x"'];

let t: SocialTestApp;
beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(async () => t?.close());

const native = (query: string) => t.app.inject({ method: 'GET', url: `/auth/external?${query}` });

function facebookUser() {
  return { id: newSubject(), email: uniqueEmail('fb'), first_name: 'Mari' };
}

describe('Facebook answering a Graph call with JSON that is not an object', () => {
  for (const path of ['/debug_token', '/me']) {
    it.each(ODD_BODIES)(`the app's access token is a 401 when ${path} answers %s`, async (body) => {
      const user = facebookUser();
      t.facebook.answerNextRaw(path, body);
      const response = await native(`client=facebook&id=${user.id}&token=${t.facebook.issueToken(user)}`);
      expectErrorBody(response, 401, 'Unauthorized');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="storefront"');
    });
  }

  for (const path of ['/oauth/access_token', '/debug_token', '/me']) {
    it.each(ODD_BODIES)(`the web flow lands on the error page when ${path} answers %s`, async (body) => {
      const user = facebookUser();
      t.facebook.answerNextRaw(path, body);
      const landing = await webFlow(t, 'facebook', { sub: user.id, facebookUser: user });
      expect(landing.pathname).toBe('/social-login-error');
      expect(landing.searchParams.get('reason')).toBe('verification_failed');
    });
  }

  it.each(ODD_BODIES)('a Graph error whose body is %s is a 401 for the app and the error page for the web', async (body) => {
    const user = facebookUser();
    t.facebook.answerNextRaw('/debug_token', body, 400);
    expectErrorBody(await native(`client=facebook&id=${user.id}&token=${t.facebook.issueToken(user)}`), 401, 'Unauthorized');
    t.facebook.answerNextRaw('/oauth/access_token', body, 400);
    const landing = await webFlow(t, 'facebook', { sub: user.id, facebookUser: user });
    expect(landing.searchParams.get('reason')).toBe('verification_failed');
  });

  it('a valid token that names no user is no sign-in, though /me names nobody either', async () => {
    // Two strangers answered so would otherwise both have signed in as the same identity, "undefined".
    const user = facebookUser();
    t.facebook.answerNextRaw('/debug_token', JSON.stringify({ data: { is_valid: true, app_id: t.facebook.appId, type: 'USER' } }));
    t.facebook.answerNextRaw('/me', JSON.stringify({ email: user.email }));
    const landing = await webFlow(t, 'facebook', { sub: user.id, facebookUser: user });
    expect(landing.searchParams.get('reason')).toBe('verification_failed');
  });
});

describe('an OpenID provider answering with JSON that is not an object', () => {
  it.each(ODD_BODIES)("the web flow lands on the error page when Google's token endpoint answers %s", async (body) => {
    const sub = newSubject();
    t.google.addAccount({ sub, email: uniqueEmail('google'), email_verified: true });
    t.google.answerNextRaw('/token', body);
    const landing = await webFlow(t, 'google', { sub });
    expect(landing.pathname).toBe('/social-login-error');
    expect(landing.searchParams.get('reason')).toBe('verification_failed');
  });

  it("an app's ID token is a 401 while Google's key set answers each of them, and signs in once it answers keys", async () => {
    const sub = newSubject();
    const token = () => t.google.idToken({ sub, email: uniqueEmail('google'), email_verified: true });
    for (const body of ODD_BODIES) {
      t.google.answerNextRaw('/jwks', body);
      const response = await native(`client=google&id=${sub}&token=${await token()}`);
      expectErrorBody(response, 401, 'Unauthorized');
    }
    // Each odd answer was taken by one of the requests above: none is left for this one.
    const signedIn = await native(`client=google&id=${sub}&token=${await token()}`);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
  });
});
