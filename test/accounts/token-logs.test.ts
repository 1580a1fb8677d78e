import { readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { GOOD_PASSWORD, tokenFromMail, uniqueEmail } from '../helpers/accounts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// No log line of the account flows (requests, jobs, mails) may carry a verification or reset
// token: a token read from a log was replayed to set a password. The app runs without SMTP
// (mails are files, as in development, where the links used to be logged) and logs at debug.

interface LogLine {
  msg?: string;
  [key: string]: unknown;
}

/** Everything the app's logger (and so the worker's and the mailer's) writes from now on. */
function captureLogs(app: App): string[] {
  const stream = (app.log as unknown as Record<symbol, { write(chunk: string): boolean }>)[pino.symbols.streamSym]!;
  const lines: string[] = [];
  stream.write = (chunk: string) => {
    lines.push(String(chunk));
    return true;
  };
  return lines;
}

let t: TestApp;
let lines: string[];
beforeAll(async () => {
  t = await createTestApp({ env: { LOG_LEVEL: 'debug' } });
  lines = captureLogs(t.app);
});
afterAll(() => t.close());

/** The newest mail written for `to`, found through the mailer's log line. */
async function mailFileTo(to: string) {
  await t.drainJobs();
  const written = lines
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.msg === 'mail written to a file (no SMTP_URL)' && JSON.stringify(line.to).includes(to));
  expect(written.length, `no mail to ${to}`).toBeGreaterThan(0);
  return simpleParser(readFileSync(String(written.at(-1)!.file)));
}

const post = (url: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url, payload });
const logged = () => lines.map((line) => JSON.parse(line) as LogLine);

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
    for (const token of [verificationToken, passwordResetToken]) {
      expect(lines.filter((line) => line.includes(token))).toEqual([]);
    }
  });
});

describe('with the tokens in the query, as the spec gives them', () => {
  // The request-log line (src/app.ts) redacts the query in another change; until that is merged
  // the 'request' line may show the URL, so this checks every other line.
  it('the jobs, mails and handlers write no token', async () => {
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

    const notRequestLines = lines.filter((line) => (JSON.parse(line) as LogLine).msg !== 'request');
    expect(notRequestLines.length).toBeGreaterThan(0);
    for (const token of [verificationToken, passwordResetToken]) {
      expect(notRequestLines.filter((line) => line.includes(token))).toEqual([]);
    }
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
