import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HSTS } from '../../src/http/security-headers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Finding 11 of issue 12: no answer said nosniff or a referrer policy, and none asked for HTTPS.

const ANSWERS = [
  ['a success', 'GET', '/app/config', {}],
  ['a 404 of an unknown route', 'GET', '/no/such/route', {}],
  ['a 400 of an unknown store', 'GET', '/app/config', { store: 'NOPE' }],
  ['a 401 without a token', 'GET', '/user/me', {}],
  ['a 401 of the data export', 'GET', '/export/shop', {}],
  ['a 422', 'POST', '/auth/login', { 'content-type': 'application/json' }],
  ['a 415', 'POST', '/auth/login', { 'content-type': 'text/plain' }],
  ['an OPTIONS request', 'OPTIONS', '/app/config', {}],
  ['the API document', 'GET', '/openapi.json', {}],
  ['Swagger UI', 'GET', '/docs/', {}],
  ['a malformed URL', 'GET', '/product/%zz', {}],
] as const;

function expectSecurityHeaders(response: LightMyRequestResponse, hsts: boolean) {
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
  expect(response.headers['strict-transport-security']).toBe(hsts ? HSTS : undefined);
  // Nothing that names the software behind the API.
  expect(response.headers['x-powered-by']).toBeUndefined();
  expect(response.headers.server).toBeUndefined();
}

describe('over plain http (PUBLIC_URL http://...)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it.each(ANSWERS)('%s says nosniff and no-referrer, and no HSTS', async (_, method, url, headers) => {
    const response = await t.app.inject({ method, url, headers, ...(method === 'POST' ? { payload: '{}' } : {}) });
    expectSecurityHeaders(response, false);
  });

  it('answers a malformed URL in the documented error shape, without echoing it', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/product/%zz?token=x' });
    expectErrorBody(response, 400, 'Bad Request');
    expect(response.body).not.toContain('%zz');
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });
});

describe('over https (PUBLIC_URL https://...)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PUBLIC_URL: 'https://api.shop.example' } });
  });
  afterAll(() => t.close());

  it.each(ANSWERS)('%s also says Strict-Transport-Security', async (_, method, url, headers) => {
    const response = await t.app.inject({ method, url, headers, ...(method === 'POST' ? { payload: '{}' } : {}) });
    expectSecurityHeaders(response, true);
  });
});

describe('Cache-Control of answers that name the caller', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is no-store when the URL carries a single-use token, as with Authorization', async () => {
    for (const url of [
      '/auth/verify-email-meta?verificationToken=abc',
      '/app/config?passwordResetToken=abc',
      '/auth/external?authclient=google&code=abc&state=def',
      '/auth/external?client=app&id=google&token=abc',
    ]) {
      expect((await t.app.inject({ method: 'GET', url })).headers['cache-control'], url).toBe('no-store');
    }
    expect((await t.app.inject({ method: 'GET', url: '/app/config?page=2' })).headers['cache-control']).toBeUndefined();
  });
});
