import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailsTo, registerVerified, uniqueEmail } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import {
  Browser,
  confirmLink,
  createSocialTestApp,
  identitiesOf,
  newJti,
  newSubject,
  webFlow,
  type SocialTestApp,
} from '../helpers/social.js';
import { hashToken } from '../../src/infra/tokens.js';

// Linking a social identity adds a way into the account that outlives every token and every later
// password change. A token alone, stolen from a device or a log, must not make one: as for erasing
// the account or changing a password-less account's email, the person must have signed in within
// the last 10 minutes (a 403 tells the front-end to ask them to log in again).

let t: SocialTestApp;

beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(() => t?.close());

/** A verified customer whose token was signed in 11 minutes ago. */
async function customerSignedInLongAgo() {
  const email = uniqueEmail('stale-linker');
  const bearer = await registerVerified(t, email);
  const hash = hashToken(bearer);
  const signedIn = Date.now() - 11 * 60_000;
  const signInAt = (at: number) =>
    t.database.db.updateTable('access_token').set({ created_at: at, signed_in_at: at }).where('token_hash', '=', hash).execute();
  await signInAt(signedIn);
  const fresh = () => signInAt(Date.now());
  return { email, bearer, fresh };
}

async function appLink(bearer: string, sub: string) {
  const token = await t.google.idToken({ sub, email: uniqueEmail('attacker'), email_verified: true, jti: newJti() });
  return t.app.inject({
    method: 'GET',
    url: `/auth/external?client=google&id=${sub}&token=${token}`,
    headers: { authorization: `Bearer ${bearer}`, store: 'WEB', 'x-app-language': 'en' },
  });
}

describe('linking a social identity with a token signed in more than 10 minutes ago', () => {
  it('the app flow: is a 403 that says to log in again, links nothing and mails nothing; a fresh sign-in links', async () => {
    const { email, bearer, fresh } = await customerSignedInLongAgo();
    const sub = newSubject();
    const refused = await appLink(bearer, sub);
    expect(expectErrorBody(refused, 403, 'Forbidden').message).toMatch(/log in again/);
    expect(await identitiesOf(t, email)).toEqual([]);
    await t.drainJobs();
    expect(mailsTo(t, email).filter((mail) => /Google/.test(mail.subject ?? ''))).toEqual([]);

    await fresh();
    const linked = await appLink(bearer, sub);
    expect(linked.statusCode, linked.body).toBe(200);
    expect(await identitiesOf(t, email)).toEqual([{ subject: sub }]);
  });

  it('the web flow: its start is a 403 before the browser is sent to the provider; a fresh sign-in starts it', async () => {
    const { email, bearer, fresh } = await customerSignedInLongAgo();
    const start = await new Browser(t).request({
      method: 'GET',
      url: '/auth/external?authclient=google',
      headers: { authorization: `Bearer ${bearer}`, 'x-app-language': 'en' },
    });
    expect(expectErrorBody(start, 403, 'Forbidden').message).toMatch(/log in again/);
    expect(start.headers.location).toBeUndefined();

    await fresh();
    const sub = newSubject();
    t.google.addAccount({ sub, email: uniqueEmail('g'), email_verified: true });
    const landing = await webFlow(t, 'google', { sub }, { headers: { authorization: `Bearer ${bearer}` } });
    expect(landing.searchParams.get('link')).toBe('google');
    const confirm = await confirmLink(t, landing.searchParams.get('authId'), bearer);
    expect(confirm.statusCode, confirm.body).toBe(200);
    expect(await identitiesOf(t, email)).toEqual([{ subject: sub }]);
  });
});
