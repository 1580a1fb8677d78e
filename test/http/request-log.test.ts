import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedRequest, redactedQuery, withoutQueryValues } from '../../src/http/request-log.js';
import { GOOD_PASSWORD, mailTo, registerVerified, tokenFromMail, uniqueEmail } from '../helpers/accounts.js';
import { createLoggedTestApp, type LoggedTestApp } from './log-capture.js';

// Finding 2 of issue 12: the request log wrote whole URLs, and a reset token read from the log
// set a password. Every secret below travels the way real clients send it; none may reach the log.

let t: LoggedTestApp;
beforeAll(async () => {
  t = await createLoggedTestApp({}, (app) => {
    // A handler that fails with the URL in its message, and one that logs a request with its headers.
    app.get('/test/explode', { config: { storeScoped: false } }, async (request) => {
      throw new Error(`exploded while serving ${request.url}`);
    });
    app.get('/test/log-request', { config: { storeScoped: false } }, async (request) => {
      request.log.warn({ req: request, headers: request.headers }, 'a request worth a look');
      return { ok: true };
    });
  });
});
afterAll(() => t.close());

const entries = () => t.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
const requestLines = () => entries().filter((line) => line.msg === 'request');

describe('the request log', () => {
  it('never holds the verification or reset token of a real account flow, nor the new access token', async () => {
    const email = uniqueEmail('logged');
    const accessToken = await registerVerified(t, email);
    expect((await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email } })).statusCode).toBe(200);
    const resetToken = tokenFromMail(await mailTo(t, email, /parool|password|пароль/i), 'passwordResetToken');
    const password = 'Uus-parool-logist-puudu-9';
    const meta = await t.app.inject({ method: 'GET', url: `/auth/verify-email-meta?verificationToken=${resetToken}x` });
    expect(meta.statusCode).toBeGreaterThanOrEqual(400);
    const set = await t.app.inject({
      method: 'POST',
      url: `/auth/set-new-password?passwordResetToken=${encodeURIComponent(resetToken)}`,
      payload: { password, passwordRepeat: password },
    });
    expect(set.statusCode, set.body).toBe(200);

    const log = t.logText();
    expect(log).not.toContain(resetToken);
    expect(log).not.toContain(accessToken);
    expect(log).not.toContain(GOOD_PASSWORD);
    expect(log).not.toContain(password);
    const reset = requestLines().find((line) => line.route === '/auth/set-new-password');
    expect(reset).toMatchObject({ method: 'POST', query: 'passwordResetToken=[redacted]', statusCode: 200 });
    expect(reset).not.toHaveProperty('url');
  });

  it('never holds provider codes and states, app ID tokens, bearer tokens or Basic credentials', async () => {
    const secrets = {
      code: 'PROVIDER-CODE-4f1e9a',
      state: 'PROVIDER-STATE-77c2d0',
      idToken: 'eyJhbGciOiJSUzI1NiJ9.APP-ID-TOKEN.c2lnbmF0dXJl',
      bearer: 'BEARER-SECRET-0c9b7d6e5f',
      basic: Buffer.from('partner:BASIC-SECRET-99').toString('base64'),
      authId: 'AUTH-ID-SECRET-123',
    };
    await t.app.inject({ method: 'GET', url: `/auth/external?authclient=google&code=${secrets.code}&state=${secrets.state}` });
    await t.app.inject({ method: 'GET', url: `/auth/external?client=app&id=google&token=${secrets.idToken}` });
    await t.app.inject({ method: 'POST', url: `/auth/social-login?authId=${secrets.authId}`, payload: {} });
    await t.app.inject({ method: 'GET', url: '/user/me', headers: { authorization: `Bearer ${secrets.bearer}` } });
    await t.app.inject({ method: 'GET', url: '/export/shop?page=1', headers: { authorization: `Basic ${secrets.basic}` } });

    const log = t.logText();
    for (const [name, secret] of Object.entries(secrets)) expect(log, name).not.toContain(secret);
    expect(log).not.toContain('BASIC-SECRET');
    const external = requestLines().filter((line) => line.route === '/auth/external');
    expect(external.map((line) => line.query)).toEqual(
      expect.arrayContaining(['authclient=google&code=[redacted]&state=[redacted]', 'client=[redacted]&id=[redacted]&token=[redacted]']),
    );
    expect(requestLines().find((line) => line.route === '/export/shop')).toMatchObject({ query: 'page=1', statusCode: 401 });
  });

  it('logs the route pattern, not the values of path parameters, and keeps paging values', async () => {
    await t.app.inject({ method: 'GET', url: '/product/987654321?page=2&per-page=5&term=mari%20maasikas&cacheBuster=abc' });
    const line = requestLines().find((entry) => entry.route === '/product/:id');
    expect(line).toMatchObject({ method: 'GET', query: 'page=2&per-page=5&term=[redacted]&cacheBuster=[redacted]' });
    expect(t.logText()).not.toContain('987654321');
    expect(t.logText()).not.toContain('maasikas');
  });

  it('a 404 shows the path with token-like segments replaced, and no query values', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/auth/reset/Zm9vYmFyLXNlY3JldC10b2tlbg?token=NOT-FOUND-SECRET' });
    expect(response.statusCode).toBe(404);
    const log = t.logText();
    expect(log).not.toContain('Zm9vYmFyLXNlY3JldC10b2tlbg');
    expect(log).not.toContain('NOT-FOUND-SECRET');
    expect(requestLines().find((line) => String(line.route).startsWith('/auth/reset/'))).toMatchObject({
      route: '/auth/reset/:redacted',
      query: 'token=[redacted]',
      statusCode: 404,
    });
  });

  it('a malformed URL, answered before any hook, is logged the same way', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/product/%zz?passwordResetToken=BAD-URL-SECRET' });
    expect(response.statusCode).toBe(400);
    expect(t.logText()).not.toContain('BAD-URL-SECRET');
    expect(requestLines().find((line) => line.code === 'FST_ERR_BAD_URL')).toMatchObject({
      query: 'passwordResetToken=[redacted]',
      statusCode: 400,
    });
  });

  it('a 500 logs the error without the query values its message quotes', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/explode?passwordResetToken=FIVE-HUNDRED-SECRET&page=3' });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('FIVE-HUNDRED-SECRET');
    expect(t.logText()).not.toContain('FIVE-HUNDRED-SECRET');
    const failed = entries().find((line) => line.msg === 'request failed');
    expect(failed).toBeDefined();
    expect(JSON.stringify(failed)).toContain('passwordResetToken=[redacted]');
  });

  it('a line that carries the request or its headers shows neither the URL nor credentials', async () => {
    await t.app.inject({
      method: 'GET',
      url: '/test/log-request?verificationToken=HEADER-LINE-SECRET',
      headers: { authorization: 'Bearer HEADER-BEARER-SECRET', cookie: 'session=COOKIE-SECRET' },
    });
    const log = t.logText();
    for (const secret of ['HEADER-LINE-SECRET', 'HEADER-BEARER-SECRET', 'COOKIE-SECRET']) expect(log).not.toContain(secret);
    const line = entries().find((entry) => entry.msg === 'a request worth a look');
    expect(line).toMatchObject({ req: { method: 'GET', route: '/test/log-request', query: 'verificationToken=[redacted]' } });
    expect(line).toMatchObject({ headers: { authorization: '[redacted]', cookie: '[redacted]' } });
  });
});

describe('redaction', () => {
  it('keeps values only for the harmless keys and bounds what a client can put in the log', () => {
    expect(redactedQuery('page=2&per-page=50&sort=-name&limit=10&authclient=google&force=true')).toBe(
      'page=2&per-page=50&sort=-name&limit=10&authclient=google&force=true',
    );
    expect(redactedQuery('token=a&code=b&state=c&id=d&term=e&categoryId=f&flag')).toBe(
      'token=[redacted]&code=[redacted]&state=[redacted]&id=[redacted]&term=[redacted]&categoryId=[redacted]&flag',
    );
    expect(redactedQuery(`page=${'9'.repeat(100)}`)).toBe(`page=${'9'.repeat(40)}...`);
    expect(redactedQuery('page=%0Aforged%20line')).toBe('page=?forged line');
    expect(redactedQuery(Array.from({ length: 30 }, (_, i) => `k${i}=v`).join('&'))).toMatch(/k19=\[redacted\]&\(10 more\)$/);
  });

  it('replaces query values quoted in free text', () => {
    expect(withoutQueryValues('GET /auth/external?code=abc&state=def failed')).toBe(
      'GET /auth/external?code=[redacted]&state=[redacted] failed',
    );
  });

  it('describes a request that matched no route by its path alone', () => {
    expect(loggedRequest({ method: 'GET', url: '/a/b?x=1' })).toEqual({ method: 'GET', route: '/a/b', query: 'x=[redacted]' });
  });
});
