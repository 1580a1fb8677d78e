import { readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_PASSWORD, tokenFromMail, uniqueEmail } from '../helpers/accounts.js';
import { captureLogs } from '../helpers/log-capture.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// No log line of the account flows (requests, jobs, mails) may carry a verification or reset
// token: a token read from a log was replayed to set a password. The app runs without SMTP
// (mails are files, as in development, where the links used to be logged) and logs at debug.

interface LogLine {
  msg?: string;
  [key: string]: unknown;
}

let t: TestApp;
const logs = captureLogs();
beforeAll(async () => {
  t = await createTestApp({ env: { LOG_LEVEL: 'debug' }, logStream: logs.stream });
});
afterAll(() => t.close());

/** The newest mail written for `to`, found through the mailer's log line. */
async function mailFileTo(to: string) {
  await t.drainJobs();
  const written = logged().filter((line) => line.msg === 'mail written to a file (no SMTP_URL)' && JSON.stringify(line.to).includes(to));
  expect(written.length, `no mail to ${to}`).toBeGreaterThan(0);
  return simpleParser(readFileSync(String(written.at(-1)!.file)));
}

const post = (url: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url, payload });
const logged = () => logs.lines() as LogLine[];

describe('with the tokens in the JSON body', () => {
  it('verification and reset write no token to any log line, request lines included', async () => {
    const email = uniqueEmail('logs');
    expect((await post('/auth/register', { email })).statusCode).toBe(200);
    const verificationToken = tokenFromMail(await mailFileTo(email), 'verificationToken');
    const verified = await post('/auth/verify-email', {
      verificationToken,
      password: GOOD_PASSWORD,
      passwordRepeat: GOOD_PASSWORD,
      termsAccepted: true,
    });
    expect(verified.statusCode, verified.body).toBe(200);

    expect((await post('/auth/reset-password', { email })).statusCode).toBe(200);
    const passwordResetToken = tokenFromMail(await mailFileTo(email), 'passwordResetToken');
    const reset = await post('/auth/set-new-password', {
      passwordResetToken,
      password: 'Uus-parool-77-kuusk',
      passwordRepeat: 'Uus-parool-77-kuusk',
    });
    expect(reset.statusCode, reset.body).toBe(200);
    // Used: the same token does not work twice.
    expect(
      (await post('/auth/set-new-password', { passwordResetToken, password: 'Kolmas-88-parool', passwordRepeat: 'Kolmas-88-parool' }))
        .statusCode,
    ).toBe(400);

    expect(logged().some((line) => line.msg === 'request')).toBe(true);
    for (const token of [verificationToken, passwordResetToken]) expect(logs.text()).not.toContain(token);
  });
});

describe('with the tokens in the query, as the spec gives them', () => {
  it('no log line writes a token, request lines included', async () => {
    const email = uniqueEmail('logs');
    await post('/auth/register', { email });
    const verificationToken = tokenFromMail(await mailFileTo(email), 'verificationToken');
    const meta = await t.app.inject({ method: 'GET', url: `/auth/verify-email-meta?verificationToken=${verificationToken}` });
    expect(meta.statusCode).toBe(200);
    const verified = await post(`/auth/verify-email?verificationToken=${verificationToken}`, {
      password: GOOD_PASSWORD,
      passwordRepeat: GOOD_PASSWORD,
      termsAccepted: true,
    });
    expect(verified.statusCode, verified.body).toBe(200);
    await post('/auth/reset-password', { email });
    const passwordResetToken = tokenFromMail(await mailFileTo(email), 'passwordResetToken');
    const reset = await post(`/auth/set-new-password?passwordResetToken=${passwordResetToken}`, {
      password: 'Uus-parool-77-kuusk',
      passwordRepeat: 'Uus-parool-77-kuusk',
    });
    expect(reset.statusCode, reset.body).toBe(200);

    expect(logged().some((line) => line.msg === 'request')).toBe(true);
    for (const token of [verificationToken, passwordResetToken]) expect(logs.text()).not.toContain(token);
  });
});

describe('where the token may be', () => {
  it('refuses a request whose query and body name different tokens, before the form', async () => {
    const response = await post(`/auth/set-new-password?passwordResetToken=${'A'.repeat(43)}`, {
      passwordResetToken: 'B'.repeat(43),
      password: 1,
    });
    expect(response.statusCode).toBe(400);
    const verify = await post(`/auth/verify-email?verificationToken=${'A'.repeat(43)}`, { verificationToken: 'B'.repeat(43) });
    expect(verify.statusCode).toBe(400);
  });

  it.each([[{ passwordResetToken: 42 }], [{ passwordResetToken: '' }], [{}]])('answers 400 for a body token %j', async (token) => {
    const response = await post('/auth/set-new-password', { ...token, password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD });
    expect(response.statusCode).toBe(400);
  });
});
