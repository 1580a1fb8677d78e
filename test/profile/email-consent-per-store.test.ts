import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, login, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { oneClick, oneClickPath, subscribeConfirmed } from '../newsletter/helpers.js';
import { as } from './helpers.js';

// The profile's email marketing consent is the newsletter subscription of the confirmed login email
// in the request's store: the newsletter is kept per store (newsletter_subscriber), and the switch a
// shopper sees in one store must say whether that store's newsletter comes, and turn it on and off.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_IP: '100000/1m', NEWSLETTER_RATE_LIMIT_PER_EMAIL: '100000/1m' } });
});
afterAll(() => t.close());

async function tokenIn(email: string, store: string): Promise<string> {
  const response = await login(t, email, undefined, store);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { accessToken: string }).accessToken;
}

async function emailConsent(token: string, store: string): Promise<boolean> {
  const response = await as(t, token, store)('GET', '/client-account');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { marketingConsents: { email: { granted: boolean } } }).marketingConsents.email.granted;
}

async function subscribedStores(email: string): Promise<string[]> {
  const rows = await t.database.db
    .selectFrom('newsletter_subscriber')
    .select('store_code')
    .where('email', '=', email)
    .where('withdrawn_at', 'is', null)
    .orderBy('store_code')
    .execute();
  return rows.map((row) => row.store_code);
}

describe('the email marketing consent of the profile, per store', () => {
  it("shows another store's switch off while only one store's newsletter comes, and turns that store's on", async () => {
    const email = uniqueEmail('consent-web');
    const web = await registerVerified(t, email);
    await subscribeConfirmed(t, email, 'en', 'WEB');
    const web2 = await tokenIn(email, 'WEB2');
    expect(await emailConsent(web, 'WEB')).toBe(true);
    // WEB2's newsletter does not come: its profile must not say it does.
    expect(await emailConsent(web2, 'WEB2')).toBe(false);
    const put = await as(t, web2, 'WEB2')('PUT', '/client-account', { marketingConsents: { email: true } });
    expect(put.statusCode, put.body).toBe(200);
    expect(await subscribedStores(email)).toEqual(['WEB', 'WEB2']);
    expect(await emailConsent(web2, 'WEB2')).toBe(true);
  });

  it("shows a store's switch off once that store's newsletter was left by its mail's unsubscribe link", async () => {
    const email = uniqueEmail('consent-unsub-one');
    const web = await registerVerified(t, email);
    const webMail = await subscribeConfirmed(t, email, 'en', 'WEB');
    await subscribeConfirmed(t, email, 'en', 'WEB2');
    const web2 = await tokenIn(email, 'WEB2');
    expect((await oneClick(t, oneClickPath(webMail))).statusCode).toBe(200);
    expect(await subscribedStores(email)).toEqual(['WEB2']);
    expect(await emailConsent(web, 'WEB')).toBe(false);
    expect(await emailConsent(web2, 'WEB2')).toBe(true);
    // And switching it off in WEB2 leaves nothing subscribed.
    expect((await as(t, web2, 'WEB2')('PUT', '/client-account', { marketingConsents: { email: false } })).statusCode).toBe(200);
    expect(await subscribedStores(email)).toEqual([]);
    expect(await emailConsent(web2, 'WEB2')).toBe(false);
  });

  it('withdraws only the store it is switched off in', async () => {
    const email = uniqueEmail('consent-off-one');
    const web = await registerVerified(t, email);
    await subscribeConfirmed(t, email, 'en', 'WEB');
    await subscribeConfirmed(t, email, 'en', 'WEB2');
    const web2 = await tokenIn(email, 'WEB2');
    expect((await as(t, web, 'WEB')('PUT', '/client-account', { marketingConsents: { email: false } })).statusCode).toBe(200);
    expect(await subscribedStores(email)).toEqual(['WEB2']);
    expect(await emailConsent(web, 'WEB')).toBe(false);
    expect(await emailConsent(web2, 'WEB2')).toBe(true);
  });
});
