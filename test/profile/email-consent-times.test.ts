import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { oneClick, oneClickPath, subscribeConfirmed } from '../newsletter/helpers.js';
import { as } from './helpers.js';

// GET /client-account tells when the email marketing consent was last given and last withdrawn
// ("null if never"). The consent is the newsletter subscription of the confirmed login email in the
// request's store, which the profile's switch, the subscribe form's link and the unsubscribe link
// of the store's mails all change: the times follow each of them, not only the profile's switch.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_IP: '100000/1m', NEWSLETTER_RATE_LIMIT_PER_EMAIL: '100000/1m' } });
});
afterAll(() => t.close());

type Consent = { granted: boolean; givenAt: string | null; withdrawnAt: string | null };
async function emailConsent(token: string): Promise<Consent> {
  const response = await as(t, token)('GET', '/client-account');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { marketingConsents: { email: Consent } }).marketingConsents.email;
}

describe('the email marketing consent of GET /client-account', () => {
  it('is withdrawn when the unsubscribe link of a mail was followed, and says when', async () => {
    const email = uniqueEmail('consent-unsub');
    const token = await registerVerified(t, email);
    const mail = await subscribeConfirmed(t, email);
    expect((await emailConsent(token)).granted).toBe(true);
    const before = Date.now();
    expect((await oneClick(t, oneClickPath(mail))).statusCode).toBe(200);
    const consent = await emailConsent(token);
    expect(consent.granted).toBe(false);
    expect(consent.withdrawnAt, JSON.stringify(consent)).not.toBeNull();
    expect(Date.parse(consent.withdrawnAt!)).toBeGreaterThanOrEqual(before);
  });

  it('is given when the link of the subscribe form was followed, and says when', async () => {
    const email = uniqueEmail('consent-form');
    const token = await registerVerified(t, email);
    await as(t, token)('PUT', '/client-account', { marketingConsents: { email: true } });
    await as(t, token)('PUT', '/client-account', { marketingConsents: { email: false } });
    const before = Date.now();
    await subscribeConfirmed(t, email, 'en', 'WEB');
    const consent = await emailConsent(token);
    expect(consent.granted).toBe(true);
    expect(Date.parse(consent.givenAt!), JSON.stringify(consent)).toBeGreaterThanOrEqual(before);
  });
});
