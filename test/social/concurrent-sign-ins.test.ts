import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { me, register, uniqueEmail } from '../helpers/accounts.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import { createSocialTestApp, newJti, newSubject, type SocialTestApp } from '../helpers/social.js';

// A person new to the shop signs in with Google on two devices (or the app sends its sign-in twice
// over a slow network) at the same moment: two authIds of one identity. Both read "no such identity,
// no such user" (PostgreSQL) and both made the user; the second insert hit a unique key and its
// sign-in was a 409 ("try again"). Both must log in, as the one user. On PostgreSQL the users'
// table is held until both have read, as the race has it; SQLite runs one write at a time.

let t: SocialTestApp;
beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(() => t.close());

async function googleAuthId(sub: string, email: string, verified: boolean): Promise<string> {
  const token = await t.google.idToken({ sub, email, email_verified: verified, jti: newJti() });
  const answer = await t.app.inject({ method: 'GET', url: `/auth/external?client=google&id=${sub}&token=${token}` });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json().authId as string;
}

const socialLogin = (authId: string) =>
  t.app.inject({ method: 'POST', url: '/auth/social-login', headers: { store: 'WEB' }, payload: { authId, isNativeForm: true } });

const identities = (subject: string) =>
  t.database.db.selectFrom('social_identity').select('user_id').where('provider', '=', 'google').where('subject', '=', subject).execute();

describe('two first sign-ins of one identity at once', () => {
  for (const verified of [true, false]) {
    it(`both log in as the one new user (email ${verified ? 'vouched for' : 'not vouched for'})`, async () => {
      const sub = newSubject();
      const email = uniqueEmail('twice');
      const authIds = [await googleAuthId(sub, email, verified), await googleAuthId(sub, email, verified)];
      const answers = await withTableHeld(t.database.db, 'app_user', () => Promise.all(authIds.map(socialLogin)));
      for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
      const users = await Promise.all(answers.map(async (answer) => (await me(t, answer.json().accessToken)).json().clientCode));
      expect(users[0]).toEqual(expect.any(String));
      expect(users[1]).toBe(users[0]);
      expect(await identities(sub)).toHaveLength(1);
    });
  }

  it('both log in and stay logged in when they take over a registration never verified', async () => {
    const sub = newSubject();
    const email = uniqueEmail('taken');
    await register(t, email);
    const authIds = [await googleAuthId(sub, email, true), await googleAuthId(sub, email, true)];
    const answers = await withTableHeld(t.database.db, 'app_user', () => Promise.all(authIds.map(socialLogin)));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    // The takeover ends the sessions of whoever registered; not the other sign-in's of the person who proved the address.
    const sessions = await Promise.all(answers.map((answer) => me(t, answer.json().accessToken)));
    for (const session of sessions) expect(session.statusCode, session.body).toBe(200);
    expect(sessions[1]!.json().clientCode).toBe(sessions[0]!.json().clientCode);
    expect(await identities(sub)).toHaveLength(1);
  });
});
