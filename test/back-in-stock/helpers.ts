import type { ParsedMail } from 'mailparser';
import { expect } from 'vitest';
import type { SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';

// A guest's back-in-stock request through the real mail: ask, run the outbox, follow the link.

export const askBackInStock = (t: TestApp, body: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/back-in-stock', payload: body, headers });

export const confirmBackInStock = (t: TestApp, token: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/back-in-stock/confirm', payload: { token } as Record<string, unknown>, headers });

export function recipientsOf(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((address) => address.value.map((v) => (v.address ?? '').toLowerCase()));
}

/** The token of the confirmation link in the mail's text. */
export function backInStockToken(mail: ParsedMail): string {
  const match = /[?&]backInStockToken=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
  expect(match, `no backInStockToken in: ${mail.text}`).not.toBeNull();
  return match![1]!;
}

/** The newest confirmation mail to `email`, after running the outbox. */
export async function confirmationMailTo(t: TestApp, smtp: SmtpCatcher, email: string): Promise<ParsedMail> {
  await t.drainJobs();
  await smtp.waitFor((mail) => recipientsOf(mail).includes(email) && /backInStockToken=/.test(mail.text ?? ''), 5000);
  return smtp.mails.filter((mail) => recipientsOf(mail).includes(email) && /backInStockToken=/.test(mail.text ?? '')).at(-1)!;
}

/** A guest's request, confirmed through the link mailed to it; the confirmation mail is then forgotten. */
export async function askConfirmed(t: TestApp, smtp: SmtpCatcher, body: { productId: number; email: string }, headers = {}) {
  const asked = await askBackInStock(t, body, headers);
  expect(asked.statusCode, asked.body).toBe(202);
  const mail = await confirmationMailTo(t, smtp, body.email);
  const confirmed = await confirmBackInStock(t, backInStockToken(mail));
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  smtp.mails.splice(smtp.mails.indexOf(mail), 1);
  return asked;
}
