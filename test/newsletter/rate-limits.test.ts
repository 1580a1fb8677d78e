import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAccountsTestApp, mailsTo, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { confirm } from './helpers.js';
import { pastResubmitWindow } from '../helpers/resubmit.js';

// Fixed one-minute windows: each test runs with the clock frozen one second into a window of its
// own (in the past, so the worker, on the real clock, finds the queued mails due).
const MINUTE = 60_000;
let windowStart = Math.floor(Date.now() / MINUTE) * MINUTE - 100 * MINUTE;
beforeEach(() => {
  windowStart += MINUTE;
  vi.useFakeTimers({ toFake: ['Date'], now: windowStart + 1000 });
});
afterEach(() => {
  vi.useRealTimers();
});

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_IP: '5/1m', NEWSLETTER_RATE_LIMIT_PER_EMAIL: '2/1m' } });
});
afterAll(() => t.close());

function expectTooManyRequests(response: LightMyRequestResponse) {
  expectErrorBody(response, 429, 'Too Many Requests');
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(60);
}

const from = (remoteAddress: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/newsletter/subscribe', remoteAddress, payload: payload as Record<string, unknown> });

describe('newsletter rate limits', () => {
  it('caps subscribe requests for one email (NEWSLETTER_RATE_LIMIT_PER_EMAIL=2/1m), whatever the address, so an inbox is not flooded', async () => {
    const email = uniqueEmail('limit-mail');
    expect((await from('10.0.0.1', { email, language: 'en' })).statusCode).toBe(200);
    // Asked apart (the same request within minutes is one double submit, mailed once).
    await pastResubmitWindow(t.database.db);
    expect((await from('10.0.0.2', { email: email.toUpperCase(), language: 'en' })).statusCode).toBe(200);
    expectTooManyRequests(await from('10.0.0.3', { email, language: 'en' }));
    // Another address is not affected.
    expect((await from('10.0.0.3', { email: uniqueEmail('limit-other'), language: 'en' })).statusCode).toBe(200);
    await t.drainJobs();
    expect(mailsTo(t, email)).toHaveLength(2);
    // The next window lets the owner in again.
    vi.setSystemTime(windowStart + MINUTE + 1000);
    expect((await from('10.0.0.4', { email, language: 'en' })).statusCode).toBe(200);
  });

  it('counts every spelling of one inbox as one address: sub-addresses (+tag) and, at Gmail, dots', async () => {
    const name = `inbox${Date.now()}`;
    expect((await from('10.2.0.1', { email: `${name}+1@gmail.com`, language: 'en' })).statusCode).toBe(200);
    expect((await from('10.2.0.2', { email: `${name.slice(0, 3)}.${name.slice(3)}+2@googlemail.com`, language: 'en' })).statusCode).toBe(
      200,
    );
    expectTooManyRequests(await from('10.2.0.3', { email: `${name}+3@gmail.com`, language: 'en' }));
    // Another domain's inbox of the same name is another inbox; dots count there.
    expect((await from('10.2.0.4', { email: `${name}+1@mail.ee`, language: 'en' })).statusCode).toBe(200);
    expect((await from('10.2.0.4', { email: `${name.slice(0, 3)}.${name.slice(3)}@mail.ee`, language: 'en' })).statusCode).toBe(200);
  });

  it('caps newsletter requests from one client address (NEWSLETTER_RATE_LIMIT_PER_IP=5/1m), malformed ones included', async () => {
    expect((await from('10.1.0.1', { email: 'broken' })).statusCode).toBe(422);
    for (let i = 0; i < 3; i += 1)
      expect((await from('10.1.0.1', { email: uniqueEmail('limit-ip'), language: 'et' })).statusCode).toBe(200);
    const guess = await t.app.inject({
      method: 'POST',
      url: '/newsletter/confirm',
      remoteAddress: '10.1.0.1',
      payload: { token: 'x'.repeat(43) },
    });
    expect(guess.statusCode).toBe(400);
    expectTooManyRequests(await from('10.1.0.1', { email: uniqueEmail('limit-ip'), language: 'et' }));
    const confirmed = await t.app.inject({
      method: 'POST',
      url: '/newsletter/confirm',
      remoteAddress: '10.1.0.1',
      payload: { token: 'x'.repeat(43) },
    });
    expectTooManyRequests(confirmed);
    const unsubscribed = await t.app.inject({
      method: 'POST',
      url: '/newsletter/unsubscribe?email=a%40b.ee&store=WEB&signature=00',
      remoteAddress: '10.1.0.1',
    });
    expectTooManyRequests(unsubscribed);
    expect((await from('10.1.0.2', { email: uniqueEmail('limit-ip'), language: 'et' })).statusCode).toBe(200);
    expect((await confirm(t, 'x')).statusCode).toBe(400);
  });
});
