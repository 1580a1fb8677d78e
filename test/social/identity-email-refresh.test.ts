import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientAccount } from '../../src/modules/accounts/index.js';
import { markLoginEmailUnconfirmed } from '../../src/modules/profile/index.js';
import { GOOD_PASSWORD, login, mailsTo, me, registerVerified, uniqueEmail } from '../helpers/accounts.js';
import { expectFieldErrors } from '../helpers/http.js';
import { createSocialTestApp, IOS_APP, newJti, newSubject, webFlow, type SocialTestApp } from '../helpers/social.js';
import { as } from '../profile/helpers.js';

// A linked identity keeps what its provider said of its email at the last sign-in (or link), not
// at the first: the address (normalised) and whether the provider vouched for it, which the
// person's export shows. What follows from the provider's word stays as it was: the account's login
// email is not the identity's and does not change with it; it is confirmed only by a provider that
// verified that very address, and a provider that no longer vouches for it un-confirms nothing.

let t: SocialTestApp;

beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(async () => {
  await t.close();
});

type Claims = { email?: string; email_verified?: boolean };

/** The app flow's authId for a Google sign-in of `sub`; the provider says `claims` of the email. */
async function appAuthId(sub: string, claims: Claims): Promise<string> {
  const token = await t.google.idToken({ sub, aud: IOS_APP, jti: newJti(), ...claims });
  const external = await t.app.inject({ method: 'GET', url: `/auth/external?client=google&id=${sub}&token=${token}` });
  expect(external.statusCode, external.body).toBe(200);
  return external.json().authId as string;
}

const socialLogin = (authId: string, extra: Record<string, unknown> = {}) =>
  t.app.inject({ method: 'POST', url: '/auth/social-login', payload: { authId, isNativeForm: true, ...extra } });

/** Signs in through the app flow; answers the access token. */
async function signIn(sub: string, claims: Claims): Promise<string> {
  const response = await socialLogin(await appAuthId(sub, claims));
  expect(response.statusCode, response.body).toBe(200);
  return response.json().accessToken as string;
}

/**
 * Links through the web redirect flow, started with `bearer`, the identity the provider knows as
 * `sub`, linked to that user before: it lands on the front-end with `linked=google`, nothing pending.
 */
async function webRelink(sub: string, bearer: string): Promise<void> {
  const landing = await webFlow(t, 'google', { sub }, { headers: { authorization: `Bearer ${bearer}` } });
  expect(landing.pathname).toBe('/social-login');
  expect(Object.fromEntries(landing.searchParams)).toEqual({ linked: 'google' });
}

/** Signs in through the web redirect flow as the person the provider knows as `sub` now. */
async function webSignIn(sub: string): Promise<string> {
  const landing = await webFlow(t, 'google', { sub });
  const response = await socialLogin(landing.searchParams.get('authId')!, { isNativeForm: false });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().accessToken as string;
}

/** What the user behind `token` is shown: their identities in the export, their login email and whether it is confirmed. */
async function seen(token: string) {
  const call = as(t, token);
  const exported = await call('GET', '/client-account/export');
  expect(exported.statusCode, exported.body).toBe(200);
  const user = await me(t, token);
  expect(user.statusCode, user.body).toBe(200);
  const profile = await call('GET', '/client-account');
  expect(profile.statusCode, profile.body).toBe(200);
  const data = exported.json();
  return {
    identities: (data.socialIdentities as Array<{ provider: string; email: string | null; emailVerified: boolean }>).map(
      ({ provider, email, emailVerified }) => ({ provider, email, emailVerified }),
    ),
    loginEmail: user.json().email as string,
    loginEmailConfirmed: data.profile.loginEmailConfirmed as boolean,
    emailConfirmed: profile.json().emailConfirmed as boolean,
  };
}

const identityRow = (sub: string) =>
  t.database.db
    .selectFrom('social_identity')
    .select(['email', 'email_verified'])
    .where('provider', '=', 'google')
    .where('subject', '=', sub)
    .executeTakeFirstOrThrow()
    .then((row) => ({ email: row.email, verified: Boolean(row.email_verified) }));

/**
 * A Google sign-up from before the provider's word was kept, or before it had to vouch: a user
 * without a password under `email`, a simple account, and the identity under the same address with
 * `email_verified` false; the login email unconfirmed when `confirmed` is false.
 */
async function olderAccount(email: string, confirmed: boolean): Promise<{ sub: string; userId: number }> {
  const db = t.database.db;
  const at = Date.now() - 86_400_000;
  const sub = newSubject();
  const user = await db
    .insertInto('app_user')
    .values({
      email,
      password_hash: null,
      email_verified: true,
      newsletter: false,
      activated_at: at,
      first_name: 'Ülle',
      language: 'et',
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const userId = Number(user.id);
  await createClientAccount(db, { userId, storeCode: 'WEB', type: 'SIMPLE' }, at);
  await db.insertInto('social_identity').values({ provider: 'google', subject: sub, user_id: userId, email, created_at: at }).execute();
  if (!confirmed) await markLoginEmailUnconfirmed(db, userId, at);
  return { sub, userId };
}

describe('a sign-in through a linked identity', () => {
  it("keeps the provider's new address (web flow), not the login email's: that stays, and another user's address is theirs", async () => {
    const sub = newSubject();
    const first = uniqueEmail('refresh-first');
    t.google.addAccount({ sub, email: first, email_verified: true });
    const before = await seen(await webSignIn(sub));
    expect(before).toEqual({
      identities: [{ provider: 'google', email: first, emailVerified: true }],
      loginEmail: first,
      loginEmailConfirmed: true,
      emailConfirmed: true,
    });

    // The person changes the address at the provider to one another user of the shop logs in with.
    const second = uniqueEmail('refresh-second');
    await registerVerified(t, second);
    t.google.addAccount({ sub, email: `  ${second.toUpperCase()} `, email_verified: true });
    const after = await seen(await webSignIn(sub));
    expect(after).toEqual({
      identities: [{ provider: 'google', email: second, emailVerified: true }],
      loginEmail: first,
      loginEmailConfirmed: true,
      emailConfirmed: true,
    });
    // The other user's account is untouched: their password still logs them in, as themselves.
    const other = await login(t, second, GOOD_PASSWORD);
    expect(other.statusCode, other.body).toBe(200);
    expect((await me(t, other.json().accessToken)).json().email).toBe(second);
  });

  it('confirms the login email when the provider now verifies that very address, and its identity says verified', async () => {
    const email = uniqueEmail('refresh-confirm');
    const { sub } = await olderAccount(email, false);

    expect(await seen(await signIn(sub, { email, email_verified: false }))).toEqual({
      identities: [{ provider: 'google', email, emailVerified: false }],
      loginEmail: email,
      loginEmailConfirmed: false,
      emailConfirmed: false,
    });

    // Another address, verified: the identity has it, the login email stays as it was and unconfirmed.
    const elsewhere = uniqueEmail('refresh-elsewhere');
    expect(await seen(await signIn(sub, { email: elsewhere, email_verified: true }))).toEqual({
      identities: [{ provider: 'google', email: elsewhere, emailVerified: true }],
      loginEmail: email,
      loginEmailConfirmed: false,
      emailConfirmed: false,
    });

    // The login email itself, verified: confirmed.
    expect(await seen(await signIn(sub, { email, email_verified: true }))).toEqual({
      identities: [{ provider: 'google', email, emailVerified: true }],
      loginEmail: email,
      loginEmailConfirmed: true,
      emailConfirmed: true,
    });
  });

  it('records an identity from before the provider was asked as verified once it says so (the login email was confirmed)', async () => {
    const email = uniqueEmail('refresh-older');
    const { sub } = await olderAccount(email, true);
    expect(await identityRow(sub)).toEqual({ email, verified: false });
    await signIn(sub, { email, email_verified: true });
    expect(await identityRow(sub)).toEqual({ email, verified: true });
  });

  it('records that the provider no longer vouches for the address, and un-confirms nothing', async () => {
    const sub = newSubject();
    const email = uniqueEmail('refresh-unvouched');
    await signIn(sub, { email, email_verified: true });

    expect(await seen(await signIn(sub, { email, email_verified: false }))).toEqual({
      identities: [{ provider: 'google', email, emailVerified: false }],
      loginEmail: email,
      loginEmailConfirmed: true,
      emailConfirmed: true,
    });
    // Without an address, the identity has none (nor a verified one), and the login email is as it was.
    expect(await seen(await signIn(sub, { email_verified: true }))).toEqual({
      identities: [{ provider: 'google', email: null, emailVerified: false }],
      loginEmail: email,
      loginEmailConfirmed: true,
      emailConfirmed: true,
    });
  });

  it('that is refused (a role the user does not hold) leaves the identity as it was', async () => {
    const sub = newSubject();
    const email = uniqueEmail('refresh-refused');
    await signIn(sub, { email, email_verified: true });

    const authId = await appAuthId(sub, { email: uniqueEmail('refresh-not-kept'), email_verified: false });
    expect(expectFieldErrors(await socialLogin(authId, { role: 'WHOLESALE' }))).toEqual(['role']);
    expect(await identityRow(sub)).toEqual({ email, verified: true });
  });
});

describe('a link of an identity linked to the same user before', () => {
  it("keeps the provider's new address and word on it (app flow with a bearer)", async () => {
    const sub = newSubject();
    const email = uniqueEmail('relink');
    const bearer = await signIn(sub, { email, email_verified: true });
    const changed = uniqueEmail('relink-changed');
    const token = await t.google.idToken({ sub, aud: IOS_APP, jti: newJti(), email: changed, email_verified: false });
    const linked = await t.app.inject({
      method: 'GET',
      url: `/auth/external?client=google&id=${sub}&token=${token}`,
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json()).toEqual({ linked: 'google' });
    expect(await seen(bearer)).toEqual({
      identities: [{ provider: 'google', email: changed, emailVerified: false }],
      loginEmail: email,
      loginEmailConfirmed: true,
      emailConfirmed: true,
    });
  });
  it("keeps the provider's new address and word on it (web flow with a bearer, landing with linked=)", async () => {
    const sub = newSubject();
    const first = uniqueEmail('web-relink');
    t.google.addAccount({ sub, email: first, email_verified: true });
    const bearer = await webSignIn(sub);

    // The person changes the address at the provider, which does not vouch for the new one yet.
    const changed = uniqueEmail('web-relink-changed');
    t.google.addAccount({ sub, email: `  ${changed.toUpperCase()} `, email_verified: false });
    await webRelink(sub, bearer);
    expect(await seen(bearer)).toEqual({
      identities: [{ provider: 'google', email: changed, emailVerified: false }],
      loginEmail: first,
      loginEmailConfirmed: true,
      emailConfirmed: true,
    });
    // The link is not made again: nobody is mailed of it.
    await t.drainJobs();
    expect(mailsTo(t, first).filter((mail) => /Google/.test(mail.subject ?? ''))).toEqual([]);
  });

  it('confirms the login email when the provider now verifies that very address (web flow with a bearer)', async () => {
    const email = uniqueEmail('web-relink-confirm');
    const { sub } = await olderAccount(email, false);
    const bearer = await signIn(sub, { email, email_verified: false });
    expect((await seen(bearer)).loginEmailConfirmed).toBe(false);
    t.google.addAccount({ sub, email, email_verified: true });
    await webRelink(sub, bearer);
    expect(await seen(bearer)).toEqual({
      identities: [{ provider: 'google', email, emailVerified: true }],
      loginEmail: email,
      loginEmailConfirmed: true,
      emailConfirmed: true,
    });
  });
});
