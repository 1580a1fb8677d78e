import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { subscribeConfirmed, subscriberRows } from '../newsletter/helpers.js';
import { as } from './helpers.js';

// A client's `newsletterLanguage` preference is the language its subscription in the store goes out
// in: setting it sets the subscription's (the list the newsletter is sent from), and a subscription
// made in another language through the subscribe form shows in the preference. Before, the two were
// kept apart: a client who chose Russian kept getting the newsletter in the language it subscribed in.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(async () => t?.close());

const languagesOf = async (email: string) =>
  Object.fromEntries((await subscriberRows(t, email)).map((row) => [row.store_code, row.language]));

async function setNewsletterLanguage(token: string, newsletterLanguage: string) {
  const saved = await as(t, token)('PUT', '/client-account/preferences', { newsletterLanguage });
  expect(saved.statusCode, saved.body).toBe(200);
  expect(saved.json().newsletterLanguage).toBe(newsletterLanguage);
}
const shownLanguage = async (token: string) => (await as(t, token)('GET', '/client-account/preferences')).json().newsletterLanguage;

describe("a client's newsletter language", () => {
  it("is its store subscription's: set by the preference, shown from a subscription made in the form", async () => {
    const email = uniqueEmail('newsletter-language');
    const token = await registerVerified(t, email);
    await setNewsletterLanguage(token, 'et');
    // The person subscribes through the form, in English: the preference shows it.
    await subscribeConfirmed(t, email, 'en', 'WEB');
    expect(await shownLanguage(token)).toBe('en');

    await setNewsletterLanguage(token, 'ru');
    expect(await languagesOf(email)).toEqual({ WEB: 'ru' });
    expect(await shownLanguage(token)).toBe('ru');

    // Withdrawn and given again in the profile: in the language the preference holds.
    for (const granted of [false, true]) {
      const consent = await as(t, token)('PUT', '/client-account', { marketingConsents: { email: granted } });
      expect(consent.statusCode, consent.body).toBe(200);
    }
    expect(await languagesOf(email)).toEqual({ WEB: 'ru' });

    // The preference of WEB sets WEB's subscription only.
    await subscribeConfirmed(t, email, 'et', 'WEB2');
    await setNewsletterLanguage(token, 'en');
    expect(await languagesOf(email)).toEqual({ WEB: 'en', WEB2: 'et' });
  });

  it('without a subscription, is only saved: nothing is subscribed', async () => {
    const email = uniqueEmail('newsletter-language-unsubscribed');
    const token = await registerVerified(t, email);
    await setNewsletterLanguage(token, 'ru');
    expect(await shownLanguage(token)).toBe('ru');
    expect(await subscriberRows(t, email)).toEqual([]);
  });
});
