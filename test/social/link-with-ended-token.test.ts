import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_PASSWORD, login, me, registerVerified, uniqueEmail } from '../helpers/accounts.js';
import { createAuthRecord } from '../../src/modules/social/social.service.js';
import { expectErrorBody } from '../helpers/http.js';
import { confirmLink, createSocialTestApp, identitiesOf, newJti, newSubject, type SocialTestApp } from '../helpers/social.js';
import { nextReadHook } from '../helpers/overlapping-writes.js';
import { wrappedDatabase } from '../helpers/wrapped-database.js';

// A link of a social identity with a bearer token (the app flow's `/auth/external?client=` with a
// bearer, or the web flow's POST /auth/external/confirm-link) resolves the bearer before it asks the
// provider, and links in a transaction after. A password change that ended the token meanwhile (the
// owner shutting out a stolen device) must not see a new way into the account linked by that token:
// the identity signs in for good, past every later password change.

let t: SocialTestApp;
/** Runs what a test arms once, right after the next read of the access tokens (the request's look-up of its bearer). */
const tokenRead = nextReadHook('access_token');

beforeAll(async () => {
  t = await createSocialTestApp({ wrapDatabase: (database) => wrappedDatabase(database, tokenRead.plugin, () => {}) });
});
afterAll(() => t?.close());

const NEW_PASSWORD = 'Uus-parool-kuuse-all-77';

/** A verified customer of WEB: the owner's session and another one (a stolen device's). */
async function customerWithTwoSessions() {
  const email = uniqueEmail('link-race');
  const owner = await registerVerified(t, email);
  const other = (await login(t, email)).json().accessToken as string;
  return { email, owner, other };
}

/** The owner changes the password with their session, which ends every other one. */
const changePasswordAs = (owner: string) => async () => {
  const changed = await t.app.inject({
    method: 'PUT',
    url: '/user/me',
    headers: { authorization: `Bearer ${owner}`, store: 'WEB' },
    payload: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD, newPasswordRepeat: NEW_PASSWORD },
  });
  expect(changed.statusCode, changed.body).toBe(200);
};

const appLink = async (bearer: string, sub: string) => {
  const token = await t.google.idToken({ sub, email: uniqueEmail('attacker'), email_verified: true, jti: newJti() });
  return t.app.inject({
    method: 'GET',
    url: `/auth/external?client=google&id=${sub}&token=${token}`,
    headers: { authorization: `Bearer ${bearer}`, store: 'WEB' },
  });
};

describe('a link with a bearer token that a password change ends while the link runs', () => {
  it('the app flow: is a 401 and links nothing', async () => {
    const { email, owner, other } = await customerWithTwoSessions();
    tokenRead.arm(changePasswordAs(owner));
    const linked = await appLink(other, newSubject());
    expect(tokenRead.armed).toBe(false);
    expectErrorBody(linked, 401, 'Unauthorized');
    expect(await identitiesOf(t, email)).toEqual([]);
    expect((await me(t, owner)).statusCode).toBe(200);
  });

  it('the web flow: the confirmation is a 401 and links nothing', async () => {
    const { email, owner, other } = await customerWithTwoSessions();
    // A pending link of the web flow, started with the other session (as its landing page carries it).
    const sub = newSubject();
    const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const identity = {
      provider: 'google' as const,
      subject: sub,
      email: uniqueEmail('attacker'),
      emailVerified: true,
      firstName: null,
      lastName: null,
    };
    const authId = await createAuthRecord(t.database.db, identity, 'WEB', 'et', Date.now(), Number(user.id));
    tokenRead.arm(changePasswordAs(owner));
    const confirmed = await confirmLink(t, authId, other, { store: 'WEB' });
    expect(tokenRead.armed).toBe(false);
    expectErrorBody(confirmed, 401, 'Unauthorized');
    expect(await identitiesOf(t, email)).toEqual([]);
  });

  it('still links with a bearer nothing ended', async () => {
    const { email, other } = await customerWithTwoSessions();
    const sub = newSubject();
    const linked = await appLink(other, sub);
    expect(linked.statusCode, linked.body).toBe(200);
    expect(await identitiesOf(t, email)).toEqual([{ subject: sub }]);
  });
});
