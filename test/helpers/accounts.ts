import type { ParsedMail } from 'mailparser';
import { expect } from 'vitest';
import { startHttpReceiver, type HttpReceiver } from './http-receiver.js';
import { startSmtpCatcher, type SmtpCatcher } from './smtp.js';
import { createTestApp, type TestApp, type TestAppOptions } from './test-app.js';

export interface AccountsTestApp extends TestApp {
  smtp: SmtpCatcher;
  conversions: HttpReceiver;
}

export const BACKOFFICE = 'office@shop.example';

/** A test app whose mail goes to a real SMTP server and whose conversion events to a real receiver. */
export async function createAccountsTestApp(options: TestAppOptions = {}): Promise<AccountsTestApp> {
  const smtp = await startSmtpCatcher();
  const conversions = await startHttpReceiver();
  const t = await createTestApp({
    ...options,
    env: {
      SMTP_URL: smtp.url,
      BACKOFFICE_EMAILS: BACKOFFICE,
      CONVERSIONS_API_URL: conversions.url,
      CONVERSIONS_PIXEL_ID: 'pixel-1',
      CONVERSIONS_ACCESS_TOKEN: 'capi-secret',
      ...options.env,
    },
  });
  return {
    ...t,
    smtp,
    conversions,
    async close() {
      await t.close();
      await smtp.close();
      await conversions.close();
    },
  };
}

let counter = 0;
/** A fresh address for each test, so tests in a file do not meet each other's users. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}.${Date.now().toString(36)}.${counter}@example.ee`;
}

let companies = 0;
/** A wholesale registration form (POST /auth/register-wholesale) of a new company, with `email` as its contact. */
export function wholesaleForm(email: string) {
  companies += 1;
  return {
    companyName: `Hulgiraamat ${companies} OÜ`,
    registryCode: String(14_000_000 + companies),
    vatNumber: 'EE100000002',
    address: { street: 'Lai 5', city: 'Tartu', postcode: '51005', countryCode: 'EE' },
    contact: { firstName: 'Kati', lastName: 'Kask', email, phone: '+372 5123 4567' },
    expectedYearlyTurnover: 250_000,
    message: 'We supply school libraries in southern Estonia.',
  };
}

export const GOOD_PASSWORD = 'Mets-kohiseb-vaikselt-42';

/** Runs the outbox and returns the mail that reached `to` and matches `subject`. */
export async function mailTo(t: AccountsTestApp, to: string, subject?: RegExp): Promise<ParsedMail> {
  await t.drainJobs();
  return t.smtp.waitFor(
    (mail) => recipients(mail).includes(to.toLowerCase()) && (subject === undefined || subject.test(mail.subject ?? '')),
    5000,
  );
}

export function mailsTo(t: AccountsTestApp, to: string): ParsedMail[] {
  return t.smtp.mails.filter((mail) => recipients(mail).includes(to.toLowerCase()));
}

function recipients(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((address) => address.value.map((v) => (v.address ?? '').toLowerCase()));
}

/** The value of a query parameter in the first link of the mail's text that carries it. */
export function tokenFromMail(mail: ParsedMail, parameter: 'verificationToken' | 'passwordResetToken'): string {
  const match = new RegExp(`[?&]${parameter}=([A-Za-z0-9_-]+)`).exec(mail.text ?? '');
  expect(match, `no ${parameter} in: ${mail.text}`).not.toBeNull();
  return match![1]!;
}

/**
 * Registers through /auth/register-simple. The worker applies the registration (the request only
 * queues it, so the answer costs the same whether the email is known): the outbox is run here, so
 * the user exists, and the mail is sent, when this returns.
 */
export async function register(t: AccountsTestApp, email: string, store = 'WEB', extra: Record<string, unknown> = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/auth/register-simple',
    headers: { store },
    payload: { email, firstName: 'Mari', lastName: 'Maasikas', ...extra },
  });
  await t.drainJobs();
  return response;
}

export async function verify(t: AccountsTestApp, token: string, store?: string, form: Record<string, unknown> = {}) {
  return t.app.inject({
    method: 'POST',
    url: `/auth/verify-email?verificationToken=${encodeURIComponent(token)}`,
    headers: store ? { store } : {},
    payload: { password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD, termsAccepted: true, ...form },
  });
}

/** Registers, takes the token from the real mail, verifies; returns the access token. */
export async function registerVerified(t: AccountsTestApp, email: string, store = 'WEB'): Promise<string> {
  expect((await register(t, email, store)).statusCode).toBe(200);
  const token = tokenFromMail(await mailTo(t, email, /./), 'verificationToken');
  const verified = await verify(t, token, store);
  expect(verified.statusCode, verified.body).toBe(200);
  return verified.json().accessToken;
}

export async function login(t: AccountsTestApp, email: string, password = GOOD_PASSWORD, store = 'WEB', role?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/auth/login',
    headers: { store },
    payload: { email, password, web_store_nav_code: store, ...(role ? { role } : {}) },
  });
}

/** PUT /user/me asking for a new email address, with the current password (as the English app sends it). */
export function askEmailChange(t: AccountsTestApp, accessToken: string, email: string) {
  return t.app.inject({
    method: 'PUT',
    url: '/user/me',
    headers: { authorization: `Bearer ${accessToken}`, store: 'WEB', 'x-app-language': 'en' },
    payload: { email, currentPassword: GOOD_PASSWORD },
  });
}

/** PUT /user/me with the new address, then the link from the mail to it, as the same client: the change is confirmed. */
export async function changeEmailConfirmed(t: AccountsTestApp, accessToken: string, newEmail: string): Promise<void> {
  expect((await askEmailChange(t, accessToken, newEmail)).statusCode).toBe(200);
  const mail = await mailTo(t, newEmail, /Confirm your new email/);
  const token = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '')![1]!;
  const confirmed = await t.app.inject({
    method: 'POST',
    url: '/user/me/confirm-email',
    headers: { authorization: `Bearer ${accessToken}`, store: 'WEB', 'x-app-language': 'en' },
    payload: { token },
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
}

export function me(t: AccountsTestApp, accessToken: string, store = 'WEB') {
  return t.app.inject({ method: 'GET', url: '/user/me', headers: { authorization: `Bearer ${accessToken}`, store } });
}
