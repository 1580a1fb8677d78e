import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  mailsTo,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { pastResubmitWindow } from '../helpers/resubmit.js';
import { companyMaster, invite } from '../companies/fixtures.js';

// The limits count in fixed one-minute windows. Each test runs with the app's clock frozen one
// second into a window of its own, so no test straddles a window edge or meets another test's
// counts. The windows lie in the past: the job worker keeps the real clock, so mails queued at a
// frozen time are due for it.
const MINUTE = 60_000;
let windowStart = Math.floor(Date.now() / MINUTE) * MINUTE - 100 * MINUTE;
beforeEach(() => {
  windowStart += MINUTE;
  vi.useFakeTimers({ toFake: ['Date'], now: windowStart + 1000 });
});
afterEach(() => {
  vi.useRealTimers();
});

function expectTooManyRequests(response: LightMyRequestResponse) {
  expectErrorBody(response, 429, 'Too Many Requests');
  const retryAfter = response.headers['retry-after'];
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

const resetPassword = (t: AccountsTestApp, email: string) =>
  t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email } });

describe('registration and reset per email (AUTH_RATE_LIMIT_PER_EMAIL=3/1m)', () => {
  let t: AccountsTestApp;
  beforeAll(async () => {
    t = await createAccountsTestApp({ env: { AUTH_RATE_LIMIT_PER_EMAIL: '3/1m' } });
  });
  afterAll(() => t.close());

  // Failed logins are limited per (email, address) instead: login-throttle.test.ts.

  // Past the ceiling a request is answered like any other and dropped in the worker: a 429 would
  // let anyone lock the owner out of their own reset, and each reset would kill the last link.
  it('sends no more than the ceiling of reset mails per email, and never refuses the owner', async () => {
    const email = uniqueEmail('reset');
    await registerVerified(t, email); // the registration is one of the three requests
    const mailsBefore = mailsTo(t, email).length;

    // Each asked apart (the same request within minutes is one double submit: resubmit.ts).
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await pastResubmitWindow(t.database.db);
      expect((await resetPassword(t, email)).statusCode).toBe(200);
    }
    await t.drainJobs();
    const resetMails = mailsTo(t, email).slice(mailsBefore);
    expect(resetMails).toHaveLength(2);
    // The last link mailed still works: no later request minted a token over it.
    const token = tokenFromMail(resetMails.at(-1)!, 'passwordResetToken');
    const set = await t.app.inject({
      method: 'POST',
      url: '/auth/set-new-password',
      payload: { passwordResetToken: token, password: `${GOOD_PASSWORD}!`, passwordRepeat: `${GOOD_PASSWORD}!` },
    });
    expect(set.statusCode, set.body).toBe(200);

    expect((await resetPassword(t, uniqueEmail('other'))).statusCode).toBe(200);
  });

  it('sends no more than the ceiling of registration mails per email, across the registration forms', async () => {
    const email = uniqueEmail('register');
    // Each asked apart (the same form within minutes is one double submit: resubmit.ts).
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await pastResubmitWindow(t.database.db);
      expect((await register(t, email)).statusCode).toBe(200);
    }
    const mailsAtCeiling = mailsTo(t, email).length;
    expect(mailsAtCeiling).toBe(3);
    await pastResubmitWindow(t.database.db);
    expect((await register(t, email)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/auth/register', payload: { email: email.toUpperCase() } })).statusCode).toBe(200);
    const business = await t.app.inject({
      method: 'POST',
      url: '/auth/register-business',
      payload: {
        companyName: 'Raamatukoi OÜ',
        registryCode: '12345678',
        address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
        contact: { firstName: 'Juku', lastName: 'Tamm', email, phone: '+3725551234' },
      },
    });
    expect(business.statusCode).toBe(200);
    await t.drainJobs();
    expect(mailsTo(t, email)).toHaveLength(mailsAtCeiling);
    expect(await t.database.db.selectFrom('company').select('id').where('registry_code', '=', '12345678').execute()).toEqual([]);

    await register(t, uniqueEmail('other'));
    expect(mailsTo(t, email)).toHaveLength(mailsAtCeiling);
  });

  it("counts a reset's second link (a retail registration's beside a company's invitation) against the ceiling", async () => {
    const email = uniqueEmail('both');
    await register(t, email); // hit 1
    await pastResubmitWindow(t.database.db);
    expect((await resetPassword(t, email)).statusCode).toBe(200); // hit 2: the retail link again
    await t.drainJobs();
    await invite(t, (await companyMaster(t, 'BUSINESS')).token, email);
    await t.drainJobs();
    const before = mailsTo(t, email).length;
    // Hit 3, the ceiling: its first link, the newer account's, goes; the retail one would be hit 4.
    await pastResubmitWindow(t.database.db);
    expect((await resetPassword(t, email)).statusCode).toBe(200);
    await t.drainJobs();
    const subjects = mailsTo(t, email)
      .slice(before)
      .map((mail) => (/kutsuti ettevõtte/.test(mail.subject ?? '') ? 'invitation' : 'verification'));
    expect(subjects).toEqual(['invitation']);
  });
});

describe('per IP (AUTH_RATE_LIMIT_PER_IP=5/1m)', () => {
  let t: AccountsTestApp;
  beforeAll(async () => {
    t = await createAccountsTestApp({ env: { AUTH_RATE_LIMIT_PER_IP: '5/1m' } });
  });
  afterAll(() => t.close());

  const from = (remoteAddress: string) => ({
    login: (email = uniqueEmail()) =>
      t.app.inject({
        method: 'POST',
        url: '/auth/login',
        remoteAddress,
        payload: { email, password: GOOD_PASSWORD, web_store_nav_code: 'WEB' },
      }),
    register: () => t.app.inject({ method: 'POST', url: '/auth/register', remoteAddress, payload: { email: uniqueEmail() } }),
    reset: () => t.app.inject({ method: 'POST', url: '/auth/reset-password', remoteAddress, payload: { email: uniqueEmail() } }),
    meta: () => t.app.inject({ method: 'GET', url: `/auth/verify-email-meta?verificationToken=${'A'.repeat(43)}`, remoteAddress }),
    verify: () =>
      t.app.inject({
        method: 'POST',
        url: `/auth/verify-email?verificationToken=${'A'.repeat(43)}`,
        remoteAddress,
        payload: { password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD, termsAccepted: true },
      }),
    setNewPassword: () =>
      t.app.inject({
        method: 'POST',
        url: `/auth/set-new-password?passwordResetToken=${'A'.repeat(43)}`,
        remoteAddress,
        payload: { password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD },
      }),
  });

  it('refuses the 6th request to the auth endpoints from one IP; another IP gets through', async () => {
    const ip = from('127.0.0.1');
    expect((await ip.login()).statusCode).toBe(422);
    expect((await ip.register()).statusCode).toBe(200);
    expect((await ip.reset()).statusCode).toBe(200);
    expect((await ip.meta()).statusCode).toBe(400);
    expect((await ip.setNewPassword()).statusCode).toBe(400);

    expectTooManyRequests(await ip.login());
    for (const request of [ip.register, ip.reset, ip.meta, ip.verify, ip.setNewPassword]) expectTooManyRequests(await request());

    const other = from('10.20.30.40');
    expect((await other.login()).statusCode).toBe(422);
    expect((await other.register()).statusCode).toBe(200);
  });

  it('counts malformed requests too', async () => {
    const remoteAddress = '192.0.2.7';
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const response = await t.app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email: 42 } });
      expect(response.statusCode).toBe(422);
    }
    expectTooManyRequests(await from(remoteAddress).login());
  });

  it('counts an IPv6 client by its /64, so taking a new address for each request does not get around the limit', async () => {
    for (let host = 1; host <= 5; host += 1) expect((await from(`2001:db8:7:1::${host}`).reset()).statusCode).toBe(200);
    expectTooManyRequests(await from('2001:db8:7:1:abcd::6').reset());
    expect((await from('2001:db8:7:2::1').reset()).statusCode).toBe(200);
  });

  it('uses inject’s default address, 127.0.0.1, as the same IP as an explicit one', async () => {
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      expect((await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email: uniqueEmail() } })).statusCode).toBe(200);
    }
    expectTooManyRequests(await from('127.0.0.1').reset());
    expect((await from('198.51.100.1').reset()).statusCode).toBe(200);
  });
});
