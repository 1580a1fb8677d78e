import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerVerified, uniqueEmail } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import { confirmLink, createSocialTestApp, newSubject, webFlow, type SocialTestApp } from '../helpers/social.js';

// An app links a Facebook identity with the user's bearer token, and sends it twice at once (a
// double tap, a retry over a slow network): a Facebook access token is not single-use, so both are
// checked and both link. The identity is linked once and both are answered as a link made, and a
// link of one identity by two users at once is the second's 409. Before, both read "not linked"
// (PostgreSQL) and the second insert hit the identity's unique key: a 500. On PostgreSQL the
// identities are held until both have read, as the race has it; SQLite runs one write at a time.

let t: SocialTestApp;
beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(() => t.close());

function linkFacebook(user: { id: string; email: string }, bearer: string) {
  const token = t.facebook.issueToken(user);
  return t.app.inject({
    method: 'POST',
    url: '/auth/external',
    headers: { authorization: `Bearer ${bearer}` },
    payload: { client: 'facebook', id: user.id, token },
  });
}

const identities = (subject: string) =>
  t.database.db.selectFrom('social_identity').select('user_id').where('provider', '=', 'facebook').where('subject', '=', subject).execute();

describe('linking one identity twice at once', () => {
  it('by the same user: linked once, both answered as linked', async () => {
    const bearer = await registerVerified(t, uniqueEmail('linker'));
    const user = { id: newSubject(), email: uniqueEmail('fb') };
    const answers = await withTableHeld(t.database.db, 'social_identity', () =>
      Promise.all([linkFacebook(user, bearer), linkFacebook(user, bearer)]),
    );
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toEqual({ linked: 'facebook' });
    }
    expect(await identities(user.id)).toHaveLength(1);
  });

  it("by two users: one links, the other is the identity's 409", async () => {
    const first = await registerVerified(t, uniqueEmail('first'));
    const second = await registerVerified(t, uniqueEmail('second'));
    const user = { id: newSubject(), email: uniqueEmail('fb') };
    const answers = await withTableHeld(t.database.db, 'social_identity', () =>
      Promise.all([linkFacebook(user, first), linkFacebook(user, second)]),
    );
    expect(
      answers.filter((answer) => answer.statusCode === 200),
      answers.map((answer) => answer.body).join('\n'),
    ).toHaveLength(1);
    expectErrorBody(
      answers.find((answer) => answer.statusCode !== 200)!,
      409,
      'Conflict',
    );
    expect(await identities(user.id)).toHaveLength(1);
  });

  it('two pending web links of it confirmed at once by their user: linked once, both answered as linked', async () => {
    const bearer = await registerVerified(t, uniqueEmail('weblinker'));
    const sub = newSubject();
    t.google.addAccount({ sub, email: uniqueEmail('g'), email_verified: true });
    const authIds: string[] = [];
    for (const _ of [1, 2]) {
      const landing = await webFlow(t, 'google', { sub }, { headers: { authorization: `Bearer ${bearer}` } });
      expect(landing.searchParams.get('link')).toBe('google');
      authIds.push(landing.searchParams.get('authId')!);
    }
    const confirm = (authId: string) => confirmLink(t, authId, bearer);
    const answers = await withTableHeld(t.database.db, 'social_identity', () => Promise.all(authIds.map(confirm)));
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toEqual({ linked: 'google' });
    }
    const rows = await t.database.db
      .selectFrom('social_identity')
      .select('id')
      .where('provider', '=', 'google')
      .where('subject', '=', sub)
      .execute();
    expect(rows).toHaveLength(1);
  });
});
