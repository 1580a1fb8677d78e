import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerVerified, uniqueEmail } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { createSocialTestApp, newSubject, webFlow, type SocialTestApp } from '../helpers/social.js';

// The ownership sweep (ownership-sweep.test.ts) for the social sign-in's ids, which need the app
// with its identity providers on fixed local addresses: a link to A's account that A's web flow
// left pending (its authId) is confirmed by nobody but A. Another customer of the store, a
// customer of WEB2 and a guest get the documented refusal (403 for another user's bearer, 401
// without one), /auth/social-login with it logs nobody in (400), and the link is still A's to make.

let t: SocialTestApp;
beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(() => t?.close());

const send = (url: string, payload: unknown, bearer?: string, store = 'WEB') =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { store, ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }) },
    payload: payload as object,
  });

describe("a pending social link's authId, sent by anybody but its owner", () => {
  it('is refused as documented, links nothing, and stays the owner’s to confirm', async () => {
    const ownerEmail = uniqueEmail('social-owner');
    const owner = await registerVerified(t, ownerEmail);
    const sub = newSubject();
    t.google.addAccount({ sub, email: uniqueEmail('g'), email_verified: true });
    const landing = await webFlow(t, 'google', { sub }, { headers: { authorization: `Bearer ${owner}` } });
    const authId = landing.searchParams.get('authId')!;
    const other = await registerVerified(t, uniqueEmail('social-other'));
    const web2 = await registerVerified(t, uniqueEmail('social-web2'), 'WEB2');
    const identities = () => t.database.db.selectFrom('social_identity').select('user_id').where('subject', '=', sub).execute();

    for (const [bearer, store, status, name] of [
      [other, 'WEB', 403, 'Forbidden'],
      [web2, 'WEB2', 403, 'Forbidden'],
      [undefined, 'WEB', 401, 'Unauthorized'],
    ] as const) {
      const refused = await send('/auth/external/confirm-link', { authId }, bearer, store);
      expectErrorBody(refused, status, name);
      expect(refused.body).not.toContain(ownerEmail);
    }
    for (const store of ['WEB', 'WEB2']) {
      const login = await send('/auth/social-login', { authId, isNativeForm: false }, undefined, store);
      expectErrorBody(login, 400, 'Bad Request');
      expect(login.body).not.toContain(ownerEmail);
    }
    expect(await identities()).toEqual([]);

    const confirmed = await send('/auth/external/confirm-link', { authId }, owner);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(await identities()).toHaveLength(1);
  });
});
