import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialTestApp, newSubject, webFlow, type SocialTestApp } from '../helpers/social.js';

// What a provider says about a person is kept (auth_record: subject varchar(255), email
// varchar(254)) before the sign-in is finished. A provider's email longer than any address can be, or a
// subject longer than OpenID Connect allows, did not fit on PostgreSQL: the sign-in was a 500 there.
// Such an email is no address (as if the provider gave none); such a subject vouches for nobody.

const LONG_EMAIL = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(40)}.ee`;

let t: SocialTestApp;
beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(async () => t?.close());

const authRecords = (sub: string) =>
  t.database.db.selectFrom('auth_record').select(['subject', 'email']).where('subject', '=', sub).execute();

describe("a provider's over-long values", () => {
  it('an ID token whose email is longer than 254 characters signs in as one without an email (the app flow)', async () => {
    expect(LONG_EMAIL.length).toBeGreaterThan(254);
    const sub = newSubject();
    const token = await t.google.idToken({ sub, email: LONG_EMAIL, email_verified: true });
    const response = await t.app.inject({ method: 'GET', url: `/auth/external?client=google&id=${sub}&token=${token}` });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ authId: expect.any(String) });
    expect(await authRecords(sub)).toEqual([{ subject: sub, email: null }]);
  });

  it('so does the web flow', async () => {
    const sub = newSubject();
    t.google.addAccount({ sub, email: LONG_EMAIL, email_verified: true });
    const landing = await webFlow(t, 'google', { sub });
    expect(landing.pathname).toBe('/social-login');
    expect(await authRecords(sub)).toEqual([{ subject: sub, email: null }]);
  });

  it('a subject longer than 255 characters is a failed sign-in, not a 500', async () => {
    const sub = `s${'x'.repeat(300)}`;
    t.google.addAccount({ sub, email: 'long.subject@example.com', email_verified: true });
    const landing = await webFlow(t, 'google', { sub });
    expect(landing.pathname).toBe('/social-login-error');
    expect(landing.searchParams.get('reason')).toBe('verification_failed');
  });
});
