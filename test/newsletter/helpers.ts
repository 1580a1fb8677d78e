import type { ParsedMail } from 'mailparser';
import { expect } from 'vitest';
import { mailsTo, mailTo, type AccountsTestApp } from '../helpers/accounts.js';

/** POST /newsletter/subscribe. */
export const subscribe = (t: AccountsTestApp, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/newsletter/subscribe', headers, payload: payload as Record<string, unknown> });

export const confirm = (t: AccountsTestApp, token: unknown) =>
  t.app.inject({ method: 'POST', url: '/newsletter/confirm', payload: { token } as Record<string, unknown> });

/** The newest confirmation mail to `email`, after running the outbox. */
export async function confirmationMailTo(
  t: AccountsTestApp,
  email: string,
  subject = /newsletter|uudiskirja|рассылку/i,
): Promise<ParsedMail> {
  await mailTo(t, email, subject);
  return mailsTo(t, email).at(-1)!;
}

export function newsletterToken(mail: ParsedMail): string {
  const match = /[?&]newsletterToken=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
  expect(match, `no newsletterToken in: ${mail.text}`).not.toBeNull();
  return match![1]!;
}

/** A raw header of the mail, unfolded. */
export function rawHeader(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((header) => header.key === name.toLowerCase())?.line;
  return line?.replace(/\r?\n[ \t]+/g, ' ').replace(/^[^:]+:\s*/, '');
}

/** The one-click link of the List-Unsubscribe header, as a path and query of this service. */
export function oneClickPath(mail: ParsedMail): string {
  const header = rawHeader(mail, 'List-Unsubscribe');
  expect(header, 'no List-Unsubscribe header').toBeDefined();
  const url = new URL(/^<([^>]+)>$/.exec(header!.trim())![1]!);
  return `${url.pathname}${url.search}`;
}

/** RFC 8058's one-click POST, as a mail client sends it. */
export const oneClick = (t: AccountsTestApp, path: string) =>
  t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click',
  });

/** The same POST as multipart/form-data, which RFC 8058 says a mail client SHOULD send. */
export const oneClickMultipart = (t: AccountsTestApp, path: string) => {
  const boundary = '----one-click-7MA4YWxkTrZu0gW';
  return t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`,
  });
};

export async function subscriberRows(t: AccountsTestApp, email: string) {
  return t.database.db.selectFrom('newsletter_subscriber').selectAll().where('email', '=', email).execute();
}

/** Subscribes through the real mail: request, confirmation link, confirm. Returns the confirmation mail. */
export async function subscribeConfirmed(t: AccountsTestApp, email: string, language = 'en', store = 'WEB'): Promise<ParsedMail> {
  const response = await subscribe(t, { email, language }, { store });
  expect(response.statusCode, response.body).toBe(200);
  const mail = await confirmationMailTo(t, email);
  const confirmed = await confirm(t, newsletterToken(mail));
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return mail;
}
