import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usedIdTokenPruning } from '../../src/modules/social/index.js';
import { registerVerified, uniqueEmail } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { createSocialTestApp, IOS_APP, newJti, newSubject, type SocialTestApp } from '../helpers/social.js';

// Issue 12, point 9: an ID token an app signs in with is taken once; its nonce is checked whenever
// the app sends one; the fields come in the query (as existing apps send them) or in a POST body.

let t: SocialTestApp;

beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(async () => {
  await t.close();
});

const viaQuery = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/auth/external?${new URLSearchParams(fields).toString()}`, headers });

const socialLogin = (authId: string) =>
  t.app.inject({ method: 'POST', url: '/auth/social-login', payload: { authId, isNativeForm: true } });

async function googleToken(claims: Record<string, unknown> = {}) {
  const sub = newSubject();
  const token = await t.google.idToken({ sub, aud: IOS_APP, email: uniqueEmail('app'), email_verified: true, ...claims });
  return { sub, token };
}

describe('an ID token used twice', () => {
  it.each([
    ['with a jti', true],
    ['without a jti (kept by its hash)', false],
  ])('is refused the second time with a 401 (%s)', async (_, withJti) => {
    const { sub, token } = await googleToken(withJti ? { jti: newJti() } : {});
    const first = await viaQuery({ client: 'google', id: sub, token });
    expect(first.statusCode, first.body).toBe(200);
    const again = await viaQuery({ client: 'google', id: sub, token });
    expectErrorBody(again, 401, 'Unauthorized');
    expect(again.headers['www-authenticate']).toBe('Bearer realm="storefront"');
    // Over POST too: it is the same token.
    expectErrorBody(
      await t.app.inject({ method: 'POST', url: '/auth/external', payload: { client: 'google', id: sub, token } }),
      401,
      'Unauthorized',
    );
  });

  it('is refused when its signature is written differently (spare bits of the last character)', async () => {
    const respell = (token: string) => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(token.at(-1)!);
      // An RS256 signature of 256 bytes leaves 4 unused bits in its 342nd character.
      return token.slice(0, -1) + alphabet[(last & ~0b1111) | (~last & 0b1111)];
    };
    const a = await googleToken();
    expect((await viaQuery({ client: 'google', id: a.sub, token: a.token })).statusCode).toBe(200);
    expectErrorBody(await viaQuery({ client: 'google', id: a.sub, token: respell(a.token) }), 401, 'Unauthorized');
    // The respelt token verifies: first, it is taken, and then the original is the second use.
    const b = await googleToken();
    expect((await viaQuery({ client: 'google', id: b.sub, token: respell(b.token) })).statusCode).toBe(200);
    expectErrorBody(await viaQuery({ client: 'google', id: b.sub, token: b.token }), 401, 'Unauthorized');
  });

  it('Apple and Facebook Limited Login tokens too', async () => {
    const sub = newSubject();
    const apple = await t.apple.idToken({ sub, aud: IOS_APP, jti: newJti() });
    expect((await viaQuery({ client: 'apple', id: sub, token: apple })).statusCode).toBe(200);
    expectErrorBody(await viaQuery({ client: 'apple', id: sub, token: apple }), 401, 'Unauthorized');
    const limited = await t.facebookLimited.idToken({ sub, aud: t.facebook.appId, jti: newJti() });
    expect((await viaQuery({ client: 'facebook', id: sub, token: limited })).statusCode).toBe(200);
    expectErrorBody(await viaQuery({ client: 'facebook', id: sub, token: limited }), 401, 'Unauthorized');
  });

  it('sent twice at the same time gives exactly one login', async () => {
    const { sub, token } = await googleToken({ jti: newJti() });
    const answers = await Promise.all([1, 2, 3].map(() => viaQuery({ client: 'google', id: sub, token })));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 401, 401]);
    const logins = await Promise.all(answers.filter((a) => a.statusCode === 200).map((a) => socialLogin(a.json().authId)));
    expect(logins.map((l) => l.statusCode)).toEqual([200]);
    const records = await t.database.db.selectFrom('auth_record').select('id_hash').where('subject', '=', sub).execute();
    expect(records).toHaveLength(1);
  });

  it('is refused when it links with a bearer token, as when it signs in', async () => {
    const bearer = await registerVerified(t, uniqueEmail('linker'));
    const { sub, token } = await googleToken({ jti: newJti() });
    expect((await viaQuery({ client: 'google', id: sub, token })).statusCode).toBe(200);
    expectErrorBody(await viaQuery({ client: 'google', id: sub, token }, { authorization: `Bearer ${bearer}` }), 401, 'Unauthorized');
    expect(await t.database.db.selectFrom('social_identity').selectAll().where('subject', '=', sub).execute()).toEqual([]);
  });

  it('a token that was refused (wrong nonce) is not used up', async () => {
    const { sub, token } = await googleToken({ jti: newJti(), nonce: 'app-nonce-1' });
    expectErrorBody(await viaQuery({ client: 'google', id: sub, token, nonce: 'other' }), 401, 'Unauthorized');
    expect((await viaQuery({ client: 'google', id: sub, token, nonce: 'app-nonce-1' })).statusCode).toBe(200);
  });

  it('a Facebook access token is not single-use: the SDK keeps it and signs in with it again', async () => {
    const user = { id: newSubject(), email: uniqueEmail('fb') };
    const token = t.facebook.issueToken(user);
    expect((await viaQuery({ client: 'facebook', id: user.id, token })).statusCode).toBe(200);
    expect((await viaQuery({ client: 'facebook', id: user.id, token })).statusCode).toBe(200);
  });
});

describe('the app fields', () => {
  it('come in a JSON or form POST body as in the query, nonce included', async () => {
    const json = await googleToken({ jti: newJti(), nonce: 'n-json' });
    const byJson = await t.app.inject({
      method: 'POST',
      url: '/auth/external',
      payload: { client: 'google', id: json.sub, token: json.token, nonce: 'n-json' },
    });
    expect(byJson.statusCode, byJson.body).toBe(200);
    expect((await socialLogin(byJson.json().authId)).statusCode).toBe(200);

    const form = await googleToken({ jti: newJti(), nonce: 'n-form' });
    const byForm = await t.app.inject({
      method: 'POST',
      url: '/auth/external',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ client: 'google', id: form.sub, token: form.token, nonce: 'n-form' }).toString(),
    });
    expect(byForm.statusCode, byForm.body).toBe(200);

    const wrongNonce = await googleToken({ jti: newJti(), nonce: 'n-1' });
    const refused = await t.app.inject({
      method: 'POST',
      url: '/auth/external',
      payload: { client: 'google', id: wrongNonce.sub, token: wrongNonce.token, nonce: 'n-2' },
    });
    expectErrorBody(refused, 401, 'Unauthorized');
  });

  it('in a body of the wrong shape are a 422, not a 500', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/auth/external', payload: { client: 'facebook', id: 'x', token: 42 } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual([{ field: 'token', message: expect.any(String) }]);
  });
});

describe('pruning', () => {
  it('forgets the tokens that have expired, and keeps the others', async () => {
    const now = Date.now();
    await t.database.db
      .insertInto('used_id_token')
      .values([
        { token_key: 'a'.repeat(64), provider: 'google', created_at: now - 10_000, expires_at: now - 1 },
        { token_key: 'b'.repeat(64), provider: 'google', created_at: now - 10_000, expires_at: now + 60_000 },
      ])
      .execute();
    expect(await usedIdTokenPruning()(t.database.db, now)).toBeGreaterThanOrEqual(1);
    const left = await t.database.db
      .selectFrom('used_id_token')
      .select('token_key')
      .where('token_key', 'in', ['a'.repeat(64), 'b'.repeat(64)])
      .execute();
    expect(left.map((row) => row.token_key)).toEqual(['b'.repeat(64)]);
  });
});
