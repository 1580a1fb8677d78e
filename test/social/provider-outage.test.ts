import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { Browser, createSocialTestApp, returnFromProvider, signInAtProvider, startWebFlow, type SocialTestApp } from '../helpers/social.js';

// A provider that cannot be reached, or answers with a server error, decides nothing about the user:
// the API says "try again later" (503 with Retry-After) and the web flow lands on the shop's error
// page with `provider_unavailable`, never a 500 and never "sign-in failed".

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A JWT-shaped token (never checked: the keys cannot be fetched). */
const someIdToken = [{ alg: 'RS256', kid: 'k' }, { sub: 'x', iss: 'i' }, 'sig']
  .map((part) => Buffer.from(typeof part === 'string' ? part : JSON.stringify(part)).toString('base64url'))
  .join('.');

describe('providers that cannot be reached', () => {
  let t: SocialTestApp;
  beforeAll(async () => {
    const nobody = `http://127.0.0.1:${await closedPort()}`;
    t = await createSocialTestApp({
      env: { GOOGLE_ISSUER: nobody, FACEBOOK_GRAPH_URL: nobody, FACEBOOK_LIMITED_LOGIN_JWKS_URL: `${nobody}/jwks` },
    });
  });
  afterAll(async () => t?.close());

  it('are a 503 with Retry-After for the web start and for app tokens of every kind', async () => {
    for (const url of [
      '/auth/external?authclient=google',
      `/auth/external?client=google&id=x&token=${someIdToken}`,
      '/auth/external?client=facebook&id=1234&token=EAAB-not-checkable-now',
      `/auth/external?client=facebook&id=1234&token=${someIdToken}`,
    ]) {
      const response = await t.app.inject({ method: 'GET', url });
      const body = expectErrorBody(response, 503, 'Service Unavailable');
      expect(body.message, url).toMatch(/google|facebook/i);
      expect(response.headers['retry-after'], url).toBe('30');
    }
  });
});

describe('a provider that goes away during the web flow', () => {
  let t: SocialTestApp;
  beforeAll(async () => {
    t = await createSocialTestApp();
  });
  afterAll(async () => t?.close().catch(() => {}));

  it('lands on the error page with provider_unavailable', async () => {
    t.google.addAccount({ sub: 'gone-subject', email: 'gone@example.com', email_verified: true });
    const browser = new Browser(t);
    const providerUrl = await startWebFlow(t, browser, 'google');
    const back = await signInAtProvider(t, 'google', providerUrl, { sub: 'gone-subject' });
    await t.google.close();
    const callback = await returnFromProvider(browser, back);
    expect(callback.statusCode, callback.body).toBe(302);
    expect(new URL(String(callback.headers.location)).searchParams.get('reason')).toBe('provider_unavailable');
  });
});
