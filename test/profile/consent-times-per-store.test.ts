import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newsletterCommand } from '../../src/modules/newsletter/index.js';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailTo,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { oneClick, oneClickPath, subscribeConfirmed } from '../newsletter/helpers.js';
import { as } from './helpers.js';

// The email marketing consent is per store (a store's newsletter subscription of the confirmed login
// email), and so are the times GET /client-account shows of it and the consent history the person's
// data export lists: a consent given or withdrawn in one store is not another store's. The history
// had no store, so WEB's profile showed a withdrawal made in WEB2, and the export could not say which
// store's newsletter a consent was given to. The newsletter's own links (the subscribe form's
// confirmation, the unsubscribe link of a store's mails) are consents too and are in the history.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_IP: '100000/1m', NEWSLETTER_RATE_LIMIT_PER_EMAIL: '100000/1m' } });
});
afterAll(() => t.close());

type Consent = { granted: boolean; givenAt: string | null; withdrawnAt: string | null };

async function tokenIn(email: string, store: string): Promise<string> {
  const response = await login(t, email, undefined, store);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { accessToken: string }).accessToken;
}

async function emailConsent(token: string, store: string): Promise<Consent> {
  const response = await as(t, token, store)('GET', '/client-account');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { marketingConsents: { email: Consent } }).marketingConsents.email;
}

async function switchEmail(token: string, store: string, wanted: boolean): Promise<Consent> {
  const response = await as(t, token, store)('PUT', '/client-account', { marketingConsents: { email: wanted } });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { marketingConsents: { email: Consent } }).marketingConsents.email;
}

/** `storefront newsletter export`'s consent time of the address in each store it is subscribed in. */
async function exportedConsentTimes(email: string): Promise<Record<string, string>> {
  const lines: string[] = [];
  await newsletterCommand(t.database.db, ['export'], (line) => lines.push(line));
  const rows = lines.map((line) => JSON.parse(line) as { email: string; store: string; consentedAt: string });
  return Object.fromEntries(rows.filter((row) => row.email === email).map((row) => [row.store, row.consentedAt]));
}

async function consentHistory(token: string) {
  const response = await as(t, token)('GET', '/client-account/export');
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { profile: { consentHistory: Array<Record<string, unknown>> } }).profile.consentHistory;
}

describe('the email consent times, per store', () => {
  it("shows each store its own times when the profile's switch gives it in one store and withdraws it in the other", async () => {
    const email = uniqueEmail('times-profile');
    const web = await registerVerified(t, email);
    const web2 = await tokenIn(email, 'WEB2');
    const givenInWeb = await switchEmail(web, 'WEB', true);
    expect(givenInWeb.givenAt).not.toBeNull();
    await sleep(5);
    const givenInWeb2 = await switchEmail(web2, 'WEB2', true);
    await sleep(5);
    const withdrawnInWeb2 = await switchEmail(web2, 'WEB2', false);
    expect(withdrawnInWeb2).toEqual({ granted: false, givenAt: givenInWeb2.givenAt, withdrawnAt: expect.any(String) });
    expect(Date.parse(withdrawnInWeb2.withdrawnAt!)).toBeGreaterThan(Date.parse(givenInWeb2.givenAt!));
    // WEB's newsletter still comes: nothing of WEB2's is WEB's.
    expect(await emailConsent(web, 'WEB')).toEqual({ granted: true, givenAt: givenInWeb.givenAt, withdrawnAt: null });
    expect(await emailConsent(web2, 'WEB2')).toEqual(withdrawnInWeb2);
    expect(await exportedConsentTimes(email)).toEqual({ WEB: givenInWeb.givenAt });
  });

  it("records the newsletter's links in their store, as the profile and the newsletter export show them", async () => {
    const email = uniqueEmail('times-links');
    const web = await registerVerified(t, email);
    const web2 = await tokenIn(email, 'WEB2');
    const web2Mail = await subscribeConfirmed(t, email, 'en', 'WEB2');
    const fromLink = await emailConsent(web2, 'WEB2');
    expect(fromLink).toEqual({ granted: true, givenAt: expect.any(String), withdrawnAt: null });
    expect(await emailConsent(web, 'WEB')).toEqual({ granted: false, givenAt: null, withdrawnAt: null });
    await sleep(5);
    const givenInWeb = await switchEmail(web, 'WEB', true);
    expect(await exportedConsentTimes(email)).toEqual({ WEB: givenInWeb.givenAt, WEB2: fromLink.givenAt });
    await sleep(5);
    expect((await oneClick(t, oneClickPath(web2Mail))).statusCode).toBe(200);
    const unsubscribed = await emailConsent(web2, 'WEB2');
    expect(unsubscribed).toEqual({ granted: false, givenAt: fromLink.givenAt, withdrawnAt: expect.any(String) });
    expect(await emailConsent(web, 'WEB')).toEqual({ granted: true, givenAt: givenInWeb.givenAt, withdrawnAt: null });
    expect(await exportedConsentTimes(email)).toEqual({ WEB: givenInWeb.givenAt });

    // The record of consent says which store's newsletter each was, and through what (the export's times to the second).
    const second = (at: string | null) => at!.replace(/\.\d{3}Z$/, 'Z');
    expect(await consentHistory(web)).toEqual([
      { consent: 'EMAIL', store: 'WEB2', granted: true, source: 'CONFIRMATION_LINK', at: second(fromLink.givenAt) },
      { consent: 'EMAIL', store: 'WEB', granted: true, source: 'PROFILE', at: second(givenInWeb.givenAt) },
      { consent: 'EMAIL', store: 'WEB2', granted: false, source: 'UNSUBSCRIBE_LINK', at: second(unsubscribed.withdrawnAt) },
    ]);

    // The erasure deletes them, the links' too.
    const userId = Number(
      (await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id,
    );
    expect((await as(t, web)('DELETE', '/client-account', { password: GOOD_PASSWORD })).statusCode).toBe(204);
    const left = await t.database.db.selectFrom('marketing_consent_event').select('id').where('user_id', '=', userId).execute();
    expect(left).toEqual([]);
  });

  it("records a registration's tick in the store registered in", async () => {
    const email = uniqueEmail('times-tick');
    expect((await register(t, email, 'WEB2', { newsletter: true })).statusCode).toBe(200);
    const verified = await verify(t, tokenFromMail(await mailTo(t, email, /./), 'verificationToken'), 'WEB2');
    expect(verified.statusCode, verified.body).toBe(200);
    const web2 = (verified.json() as { accessToken: string }).accessToken;
    const consent = await emailConsent(web2, 'WEB2');
    expect(consent).toEqual({ granted: true, givenAt: expect.any(String), withdrawnAt: null });
    expect(await exportedConsentTimes(email)).toEqual({ WEB2: consent.givenAt });
    const history = await as(t, web2, 'WEB2')('GET', '/client-account/export');
    expect(history.json().profile.consentHistory).toEqual([
      { consent: 'EMAIL', store: 'WEB2', granted: true, source: 'REGISTRATION', at: consent.givenAt!.replace(/\.\d{3}Z$/, 'Z') },
    ]);
    expect(await emailConsent(await tokenIn(email, 'WEB'), 'WEB')).toEqual({ granted: false, givenAt: null, withdrawnAt: null });
  });
});
