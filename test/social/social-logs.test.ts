import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailTo, registerVerified, uniqueEmail } from '../helpers/accounts.js';
import { captureLogs, type LogCapture } from '../helpers/log-capture.js';
import {
  Browser,
  createSocialTestApp,
  IOS_APP,
  newJti,
  newSubject,
  PUBLIC_URL,
  returnFromProvider,
  signInAtProvider,
  startWebFlow,
  type SocialTestApp,
  type WebProvider,
  confirmLink,
} from '../helpers/social.js';

// Issue 12, point 2: no token, provider code or state in any log line, nor in an error answer.
// Every social flow runs here with the app logging at `trace`; the captured output is then
// searched for every secret the flows handled, the central request line (src/http/request-log.ts)
// included.

let t: SocialTestApp;
let logs: LogCapture;
const secrets = new Set<string>();
const answers: LightMyRequestResponse[] = [];

beforeAll(async () => {
  logs = captureLogs();
  t = await createSocialTestApp({ env: { LOG_LEVEL: 'trace' }, logStream: logs.stream });
});
afterAll(async () => {
  await t.close();
});

const keep = (...values: (string | null | undefined)[]) => {
  for (const value of values) if (value) secrets.add(value);
};
const seen = <T extends LightMyRequestResponse>(answer: T): T => {
  answers.push(answer);
  return answer;
};

/** A web flow in one browser, keeping the state, nonce, code, cookie and authId it handled. */
async function webFlow(provider: WebProvider, options: { bearer?: string; otherBrowser?: boolean } = {}) {
  const sub = newSubject();
  if (provider !== 'facebook')
    (provider === 'google' ? t.google : t.apple).addAccount({ sub, email: uniqueEmail(provider), email_verified: true });
  const browser = new Browser(t);
  const headers = options.bearer ? { authorization: `Bearer ${options.bearer}` } : undefined;
  const providerUrl = new URL(await startWebFlow(t, browser, provider, { headers }));
  keep(providerUrl.searchParams.get('state'), providerUrl.searchParams.get('nonce'), providerUrl.searchParams.get('code_challenge'));
  keep(...browser.values());
  const back = await signInAtProvider(t, provider, providerUrl.href, { sub, facebookUser: { id: sub, email: uniqueEmail('fb') } });
  const fields = new URLSearchParams(back.method === 'GET' ? new URL(back.url).search : back.body);
  keep(fields.get('code'), fields.get('state'));
  const callback = seen(await returnFromProvider(options.otherBrowser ? new Browser(t) : browser, back));
  const location = callback.headers.location === undefined ? undefined : new URL(String(callback.headers.location), PUBLIC_URL);
  keep(location?.searchParams.get('authId'));
  return { callback, location };
}

describe('the social flows', () => {
  it('write no token, code, state or nonce in the log, nor in an error answer', async () => {
    const bearerEmail = uniqueEmail('logged');
    const bearer = await registerVerified(t, bearerEmail);
    keep(bearer);

    // Web sign-ins with each provider, and their logins.
    for (const provider of ['google', 'apple', 'facebook'] as const) {
      const { location } = await webFlow(provider);
      const login = seen(
        await t.app.inject({
          method: 'POST',
          url: '/auth/social-login',
          payload: { authId: location!.searchParams.get('authId'), isNativeForm: false },
        }),
      );
      expect(login.statusCode, login.body).toBe(200);
      keep(login.json().accessToken);
    }
    // Facebook's own access tokens (the service got them for the codes above).
    for (const request of t.facebook.requests) keep(request.query.access_token, request.query.input_token, request.query.code);

    // A web link, confirmed; a callback in another browser (refused, logged as a warning).
    const link = await webFlow('google', { bearer });
    const confirm = seen(await confirmLink(t, link.location!.searchParams.get('authId'), bearer));
    expect(confirm.statusCode, confirm.body).toBe(200);
    await mailTo(t, bearerEmail, /Google/);
    expect((await webFlow('google', { otherBrowser: true })).callback.statusCode).toBe(403);
    expect((await webFlow('apple', { otherBrowser: true })).callback.statusCode).toBe(403);

    // App sign-ins: in the query, in a body, replayed (401), with a wrong nonce (401), a Facebook access token.
    const sub = newSubject();
    const idToken = await t.google.idToken({ sub, aud: IOS_APP, jti: newJti(), nonce: 'app-nonce-secret' });
    const fbToken = t.facebook.issueToken({ id: sub, email: uniqueEmail('fbapp') });
    keep(idToken, fbToken, 'app-nonce-secret');
    const query = (fields: Record<string, string>) => `/auth/external?${new URLSearchParams(fields).toString()}`;
    const byQuery = seen(await t.app.inject({ method: 'GET', url: query({ client: 'google', id: sub, token: idToken }) }));
    expect(byQuery.statusCode, byQuery.body).toBe(200);
    keep(byQuery.json().authId);
    expect(
      seen(await t.app.inject({ method: 'POST', url: '/auth/external', payload: { client: 'google', id: sub, token: idToken } }))
        .statusCode,
    ).toBe(401);
    expect(
      seen(await t.app.inject({ method: 'GET', url: query({ client: 'google', id: sub, token: idToken, nonce: 'x' }) })).statusCode,
    ).toBe(401);
    const facebook = seen(
      await t.app.inject({ method: 'POST', url: '/auth/external', payload: { client: 'facebook', id: sub, token: fbToken } }),
    );
    expect(facebook.statusCode, facebook.body).toBe(200);
    keep(facebook.json().authId);
    expect(seen(await t.app.inject({ method: 'GET', url: query({ client: 'facebook', id: 'another', token: fbToken }) })).statusCode).toBe(
      401,
    );
    await t.drainJobs();

    const lines = logs.lines();
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.some((line) => line.level === 40 && /another browser/.test(String(line.msg)))).toBe(true);
    const callbackLines = lines.filter(
      (line) => line.msg === 'request' && line.route === '/auth/external' && /code=/.test(String(line.query)),
    );
    expect(callbackLines.length).toBeGreaterThanOrEqual(3);
    const written = lines.map((line) => JSON.stringify(line)).join('\n');
    const errorBodies = answers.filter((answer) => answer.statusCode >= 400).map((answer) => answer.body);
    expect(errorBodies.length).toBeGreaterThanOrEqual(5);
    expect(secrets.size).toBeGreaterThan(25);
    for (const secret of secrets) {
      expect(written.includes(secret), `a log line holds ${secret.slice(0, 12)}…`).toBe(false);
      for (const body of errorBodies) expect(body.includes(secret), `an error answer holds ${secret.slice(0, 12)}…`).toBe(false);
    }
  });
});
