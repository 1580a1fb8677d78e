import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { Browser, createSocialTestApp, returnFromProvider, signInAtProvider, startWebFlow, type SocialTestApp } from '../helpers/social.js';

// A provider that cannot be reached, or answers with a server error, decides nothing about the user:
// the API says "try again later" (503 with Retry-After) and the web flow lands on the shop's error
// page with `provider_unavailable`, never a 500 and never "sign-in failed".

/**
 * A loopback port whose every connection is dropped at once, kept listening until the tests end: a
 * port merely closed again could be taken meanwhile by another file's server (the suite runs files in
 * parallel), which then answered the provider's requests (a 401, not the 503).
 */
async function droppingPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A JWT-shaped token (never checked: the keys cannot be fetched). */
const someIdToken = [{ alg: 'RS256', kid: 'k' }, { sub: 'x', iss: 'i' }, 'sig']
  .map((part) => Buffer.from(typeof part === 'string' ? part : JSON.stringify(part)).toString('base64url'))
  .join('.');

describe('providers that cannot be reached', () => {
  let t: SocialTestApp;
  let dropping: { port: number; close: () => Promise<void> };
  beforeAll(async () => {
    dropping = await droppingPort();
    const nobody = `http://127.0.0.1:${dropping.port}`;
    t = await createSocialTestApp({
      env: { GOOGLE_ISSUER: nobody, FACEBOOK_GRAPH_URL: nobody, FACEBOOK_LIMITED_LOGIN_JWKS_URL: `${nobody}/jwks` },
    });
  });
  afterAll(async () => {
    await t?.close();
    await dropping?.close();
  });

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
