import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAccountsTestApp, GOOD_PASSWORD, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';

// Failed logins are counted per (email, client address), with a per-email ceiling that slows a
// distributed guess without locking the owner out. Every test runs with the app's clock frozen a
// second into a 15-minute window of its own, in the past (the job worker keeps the real clock).
const WINDOW = 15 * 60_000;
let windowStart = Math.floor(Date.now() / WINDOW) * WINDOW - 200 * WINDOW;
beforeEach(() => {
  windowStart += WINDOW;
  vi.useFakeTimers({ toFake: ['Date'], now: windowStart + 1000 });
});
afterEach(() => {
  vi.useRealTimers();
});

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({
    env: { LOGIN_FAILURES_PER_ADDRESS: '5/15m', LOGIN_FAILURES_PER_EMAIL: '8/15m', AUTH_RATE_LIMIT_PER_EMAIL: '10/15m' },
  });
});
afterAll(() => t.close());

const loginFrom = (remoteAddress: string, email: string, password = GOOD_PASSWORD) =>
  t.app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email, password, web_store_nav_code: 'WEB' } });

function expectTooManyRequests(response: LightMyRequestResponse) {
  expectErrorBody(response, 429, 'Too Many Requests');
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
}

const ATTACKER = '203.0.113.66';
const OWNER = '198.51.100.10';

describe('failed logins per (email, address)', () => {
  // Each attempt is counted before its password is checked, in one atomic upsert: checked first and
  // counted after, parallel guesses all passed the check (the password hash takes tens of ms).
  it('20 wrong tries sent at once from one address get no more than the limit of password checks', async () => {
    const victim = uniqueEmail('parallel');
    await registerVerified(t, victim);

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, attempt) => loginFrom(ATTACKER, victim, `Wrong-guess-${attempt}x`).then((r) => r.statusCode)),
    );
    expect(answers.filter((status) => status === 422)).toHaveLength(5);
    expect(answers.filter((status) => status === 429)).toHaveLength(15);
    expect((await loginFrom(OWNER, victim)).statusCode).toBe(200);
  });

  it('a right password takes its attempt back, so the owner logging in often is never counted', async () => {
    const owner = uniqueEmail('often');
    await registerVerified(t, owner);
    for (let login = 1; login <= 8; login += 1) expect((await loginFrom(OWNER, owner)).statusCode).toBe(200);
    for (let attempt = 1; attempt <= 5; attempt += 1) expect((await loginFrom(OWNER, owner, 'Wrong-guess-x')).statusCode).toBe(422);
    expectTooManyRequests(await loginFrom(OWNER, owner));
  });

  it('10 wrong tries with the victim’s email from one address do not lock the victim out elsewhere', async () => {
    const victim = uniqueEmail('victim');
    await registerVerified(t, victim);

    const answers: number[] = [];
    for (let attempt = 1; attempt <= 10; attempt += 1)
      answers.push((await loginFrom(ATTACKER, victim, `Wrong-guess-${attempt}x`)).statusCode);
    expect(answers).toEqual([422, 422, 422, 422, 422, 429, 429, 429, 429, 429]);

    const owner = await loginFrom(OWNER, victim);
    expect(owner.statusCode, owner.body).toBe(200);
    expect(owner.json().accessToken).toEqual(expect.any(String));

    // The attacking address stays refused for this email, even with the right password…
    expectTooManyRequests(await loginFrom(ATTACKER, victim));
    expectTooManyRequests(await loginFrom(ATTACKER, victim.toUpperCase(), 'Wrong-guess-11x'));
    // …until its window ends.
    vi.setSystemTime(windowStart + WINDOW + 1000);
    expect((await loginFrom(ATTACKER, victim)).statusCode).toBe(200);
  });

  it('refuses only that email for that address: the same address logs in to another account', async () => {
    const victim = uniqueEmail('victim');
    const other = uniqueEmail('other');
    await registerVerified(t, victim);
    await registerVerified(t, other);
    for (let attempt = 1; attempt <= 5; attempt += 1) await loginFrom(ATTACKER, victim, 'Wrong-guess-1x');
    expectTooManyRequests(await loginFrom(ATTACKER, victim));
    expect((await loginFrom(ATTACKER, other)).statusCode).toBe(200);
  });

  it('does not count successful logins', async () => {
    const email = uniqueEmail('regular');
    await registerVerified(t, email);
    for (let attempt = 1; attempt <= 8; attempt += 1) expect((await loginFrom(OWNER, email)).statusCode).toBe(200);
    expect((await loginFrom(OWNER, email, 'Mistyped-once-1')).statusCode).toBe(422);
    expect((await loginFrom(OWNER, email)).statusCode).toBe(200);
  });

  it('counts an unknown email like a known one, so the limit tells nothing', async () => {
    const nobody = uniqueEmail('nobody');
    const answers: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt += 1) answers.push((await loginFrom(ATTACKER, nobody)).statusCode);
    expect(answers).toEqual([422, 422, 422, 422, 422, 429]);
  });

  it('leaves "not verified yet" out of the count: the password was right', async () => {
    const email = uniqueEmail('unverified');
    await t.app.inject({ method: 'POST', url: '/auth/register', payload: { email } });
    await t.drainJobs();
    const { hashPassword } = await import('../../src/infra/passwords.js');
    await t.database.db
      .updateTable('app_user')
      .set({ password_hash: await hashPassword(GOOD_PASSWORD) })
      .where('email', '=', email)
      .execute();
    for (let attempt = 1; attempt <= 6; attempt += 1) expect(expectFieldErrors(await loginFrom(OWNER, email))).toEqual(['email']);
  });
});

describe('the per-email ceiling (8 failures from all addresses)', () => {
  it('slows a guess from many addresses to one try per address, and the owner still logs in from a clean one', async () => {
    const victim = uniqueEmail('victim');
    await registerVerified(t, victim);
    const bots = Array.from({ length: 8 }, (_, i) => `192.0.2.${i + 10}`);
    for (const bot of bots) expect((await loginFrom(bot, victim, 'Wrong-guess-1x')).statusCode).toBe(422);

    // Past the ceiling an address that has failed for this email is refused at once…
    expectTooManyRequests(await loginFrom(bots[0]!, victim, 'Wrong-guess-2x'));
    expectTooManyRequests(await loginFrom(bots[1]!, victim));
    // …a new one gets its one try…
    expect((await loginFrom('192.0.2.99', victim, 'Wrong-guess-3x')).statusCode).toBe(422);
    expectTooManyRequests(await loginFrom('192.0.2.99', victim, 'Wrong-guess-4x'));
    // …and the owner, from an address that has not failed, logs in.
    const owner = await loginFrom(OWNER, victim);
    expect(owner.statusCode, owner.body).toBe(200);
  });

  it('below the ceiling an address that failed once keeps trying up to its own limit', async () => {
    const email = uniqueEmail('typo');
    await registerVerified(t, email);
    expect((await loginFrom(OWNER, email, 'Mistyped-once-1')).statusCode).toBe(422);
    expect((await loginFrom(OWNER, email, 'Mistyped-twice-2')).statusCode).toBe(422);
    expect((await loginFrom(OWNER, email)).statusCode).toBe(200);
  });
});
