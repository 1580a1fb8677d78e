import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { me } from '../helpers/accounts.js';
import { createSocialTestApp, IOS_APP, newJti, newSubject, type SocialTestApp } from '../helpers/social.js';

// Issue 12, point 10: a provider user without an email gets a placeholder address. It was made from
// the subject, so registering `google.<sub>@users.invalid` first turned that person's sign-in into
// a 500 (unique email). The placeholder is random now, and no collision is a 500.

let t: SocialTestApp;

beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A user put straight into the table, as a registration of that address (before it was refused) did. */
async function insertUser(email: string): Promise<number> {
  const row = await t.database.db
    .insertInto('app_user')
    .values({
      email,
      password_hash: null,
      email_verified: true,
      newsletter: false,
      activated_at: 0,
      language: 'et',
      created_at: 0,
      updated_at: 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function authIdFor(provider: 'google' | 'facebook', sub: string): Promise<string> {
  const token =
    provider === 'google'
      ? await t.google.idToken({ sub, aud: IOS_APP, jti: newJti() })
      : await t.facebookLimited.idToken({ sub, aud: t.facebook.appId, jti: newJti() });
  const external = await t.app.inject({ method: 'GET', url: `/auth/external?client=${provider}&id=${sub}&token=${token}` });
  expect(external.statusCode, external.body).toBe(200);
  return external.json().authId;
}

const socialLogin = (authId: string) =>
  t.app.inject({ method: 'POST', url: '/auth/social-login', payload: { authId, isNativeForm: true } });

const signIn = async (provider: 'google' | 'facebook', sub: string) => socialLogin(await authIdFor(provider, sub));

describe('a provider user without an email', () => {
  it.each(['google', 'facebook'] as const)('%s: signs in although its old placeholder addresses were registered', async (provider) => {
    const sub = newSubject();
    const squatters = [await insertUser(`${provider}.${sub}@users.invalid`), await insertUser(`${provider}.nomail-${sub}@users.invalid`)];
    const response = await signIn(provider, sub);
    expect(response.statusCode, response.body).toBe(200);
    const profile = (await me(t, response.json().accessToken)).json();
    expect(profile.email).toMatch(new RegExp(`^${provider}\\.nomail-[0-9a-f]{32}@users\\.invalid$`));
    const identity = await t.database.db
      .selectFrom('social_identity')
      .select('user_id')
      .where('subject', '=', sub)
      .executeTakeFirstOrThrow();
    expect(squatters).not.toContain(identity.user_id);
    // And again: the identity is linked, the placeholder plays no part.
    const again = await signIn(provider, sub);
    expect((await me(t, again.json().accessToken)).json().email).toBe(profile.email);
  });

  it('first signing in twice at the same time never answers 500', async () => {
    const sub = newSubject();
    const authIds: string[] = [];
    for (let i = 0; i < 4; i += 1) authIds.push(await authIdFor('google', sub));
    const answers = await Promise.all(authIds.map(socialLogin));
    for (const answer of answers) expect([200, 409], answer.body).toContain(answer.statusCode);
    expect(answers.some((answer) => answer.statusCode === 200)).toBe(true);
    const identities = await t.database.db.selectFrom('social_identity').select('user_id').where('subject', '=', sub).execute();
    expect(identities).toHaveLength(1);
  });
});
