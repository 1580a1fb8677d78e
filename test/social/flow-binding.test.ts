import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailsTo, mailTo, me, registerVerified, uniqueEmail } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import {
  Browser,
  createSocialTestApp,
  newSubject,
  returnFromProvider,
  signInAtProvider,
  startWebFlow,
  webFlow,
  type SocialTestApp,
  type WebProvider,
  confirmLink,
} from '../helpers/social.js';

// Issue 12, point 1: the web flow is bound to the browser that started it, and a link to an
// existing account is made only when its owner confirms it with a bearer token.

let t: SocialTestApp;

beforeAll(async () => {
  t = await createSocialTestApp();
});
afterAll(async () => {
  await t.close();
});

const bearerOf = (token: string) => ({ authorization: `Bearer ${token}` });

const socialLogin = (authId: string) =>
  t.app.inject({ method: 'POST', url: '/auth/social-login', payload: { authId, isNativeForm: false } });

const identitiesOf = (subject: string) => t.database.db.selectFrom('social_identity').selectAll().where('subject', '=', subject).execute();
const countRows = async (table: 'auth_record' | 'social_identity') =>
  Number(
    (
      await t.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

function googleAccount(): string {
  const sub = newSubject();
  t.google.addAccount({ sub, email: uniqueEmail('g'), email_verified: true });
  return sub;
}

function accountAt(provider: WebProvider): { sub: string; facebookUser?: { id: string; email: string } } {
  const sub = newSubject();
  if (provider === 'facebook') return { sub, facebookUser: { id: sub, email: uniqueEmail('fb') } };
  (provider === 'google' ? t.google : t.apple).addAccount({ sub, email: uniqueEmail(provider), email_verified: true });
  return { sub };
}

describe('a callback in another browser than the one that started the flow', () => {
  it.each(['google', 'apple', 'facebook'] as const)(
    '%s: the attacker’s link flow completed in the victim’s browser links nothing (403)',
    async (provider) => {
      const attackerEmail = uniqueEmail('attacker');
      const attacker = await registerVerified(t, attackerEmail);
      const attackerBrowser = new Browser(t);
      const providerUrl = await startWebFlow(t, attackerBrowser, provider, { headers: bearerOf(attacker) });
      // The victim opens the provider URL the attacker sent and signs in there.
      const victim = accountAt(provider);
      const back = await signInAtProvider(t, provider, providerUrl, victim);
      const before = { records: await countRows('auth_record'), identities: await countRows('social_identity') };
      const callback = await returnFromProvider(new Browser(t), back);
      expectErrorBody(callback, 403, 'Forbidden');
      expect(callback.json().message).toMatch(/teises brauseris/); // the store's default language
      expect({ records: await countRows('auth_record'), identities: await countRows('social_identity') }).toEqual(before);
      expect(await identitiesOf(victim.sub)).toEqual([]);

      // The victim's own sign-in with that identity later lands in an account of their own.
      const landing = await webFlow(t, provider, victim);
      const login = await socialLogin(landing.searchParams.get('authId')!);
      expect(login.statusCode, login.body).toBe(200);
      const attackerUser = await t.database.db
        .selectFrom('app_user')
        .select('id')
        .where('email', '=', attackerEmail)
        .executeTakeFirstOrThrow();
      expect((await identitiesOf(victim.sub)).map((row) => row.user_id)).not.toContain(attackerUser.id);
      expect((await me(t, login.json().accessToken)).json().email).not.toBe(attackerEmail);
    },
  );

  it('login CSRF: a callback URL for the attacker’s own identity does not sign the victim in', async () => {
    const attackerBrowser = new Browser(t);
    const back = await signInAtProvider(t, 'google', await startWebFlow(t, attackerBrowser, 'google'), { sub: googleAccount() });
    const records = await countRows('auth_record');
    const inVictimsBrowser = await returnFromProvider(new Browser(t), back);
    expectErrorBody(inVictimsBrowser, 403, 'Forbidden');
    expect(inVictimsBrowser.headers.location).toBeUndefined();
    expect(await countRows('auth_record')).toBe(records);
    // Nothing was used up: the browser that started the flow still finishes it.
    const own = await returnFromProvider(attackerBrowser, back);
    expect(new URL(String(own.headers.location)).searchParams.has('authId')).toBe(true);
  });

  it('a cookie of another flow, or a forged one, does not do', async () => {
    const browser = new Browser(t);
    const back = await signInAtProvider(t, 'google', await startWebFlow(t, browser, 'google'), { sub: googleAccount() });
    const other = new Browser(t);
    await startWebFlow(t, other, 'google');
    const [name] = browser.names();
    const url = back.url.slice(back.url.indexOf('/auth/external'));
    for (const cookie of [`${other.names()[0]}=x`, `${name}=forged-${'a'.repeat(36)}`]) {
      expectErrorBody(await t.app.inject({ method: 'GET', url, headers: { cookie } }), 403, 'Forbidden');
    }
  });

  it('two flows started in two tabs of one browser both finish', async () => {
    const browser = new Browser(t);
    const first = await signInAtProvider(t, 'google', await startWebFlow(t, browser, 'google'), { sub: googleAccount() });
    const second = await signInAtProvider(t, 'google', await startWebFlow(t, browser, 'google'), { sub: googleAccount() });
    expect(browser.names()).toHaveLength(2);
    for (const back of [second, first]) {
      const callback = await returnFromProvider(browser, back);
      expect(new URL(String(callback.headers.location)).searchParams.has('authId'), callback.body).toBe(true);
    }
    expect(browser.names()).toEqual([]);
  });
});

describe('a link made in the web flow', () => {
  async function pendingLink(email: string) {
    const bearer = await registerVerified(t, email);
    const sub = googleAccount();
    const landing = await webFlow(t, 'google', { sub }, { headers: bearerOf(bearer) });
    expect(landing.pathname).toBe('/social-login');
    expect(landing.searchParams.get('link')).toBe('google');
    return { bearer, sub, authId: landing.searchParams.get('authId')! };
  }

  it('is not made by the callback: only the confirmation of the user who started it makes it, and mails them', async () => {
    const email = uniqueEmail('owner');
    const { bearer, sub, authId } = await pendingLink(email);
    expect(await identitiesOf(sub)).toEqual([]);
    const confirmed = await confirmLink(t, authId, bearer);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toEqual({ linked: 'google' });
    const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    expect((await identitiesOf(sub)).map((row) => row.user_id)).toEqual([user.id]);
    expect((await mailTo(t, email, /Google/)).subject).toContain('Google');
    expectErrorBody(await confirmLink(t, authId, bearer), 400, 'Bad Request');
  });

  it('is refused when another user confirms it, and stays pending for its owner', async () => {
    const { bearer, sub, authId } = await pendingLink(uniqueEmail('starter'));
    const otherEmail = uniqueEmail('other');
    const other = await registerVerified(t, otherEmail);
    await t.drainJobs();
    const refused = await confirmLink(t, authId, other);
    expectErrorBody(refused, 403, 'Forbidden');
    expect(await identitiesOf(sub)).toEqual([]);
    await t.drainJobs();
    expect(mailsTo(t, otherEmail).filter((mail) => /Google/.test(mail.subject ?? ''))).toEqual([]);
    expect((await confirmLink(t, authId, bearer)).statusCode).toBe(200);
  });

  it('needs a bearer token and a pending link: not a sign-in record, nor a made-up one', async () => {
    const { authId } = await pendingLink(uniqueEmail('nobearer'));
    expectErrorBody(await confirmLink(t, authId), 401, 'Unauthorized');
    const bearer = await registerVerified(t, uniqueEmail('someone'));
    expectErrorBody(await confirmLink(t, 'made-up', bearer), 400, 'Bad Request');
    const signIn = await webFlow(t, 'google', { sub: googleAccount() });
    expectErrorBody(await confirmLink(t, signIn.searchParams.get('authId'), bearer), 400, 'Bad Request');
    const bad = await t.app.inject({ method: 'POST', url: '/auth/external/confirm-link', headers: bearerOf(bearer), payload: {} });
    expect(bad.statusCode).toBe(422);
  });

  it('settles the caller before the body, as every bearer route: no token or an unknown one is a 401 whatever the body', async () => {
    for (const headers of [{}, { authorization: `Bearer ${'A'.repeat(43)}` }]) {
      for (const payload of [{}, { authId: 'x'.repeat(500) }, { authId: 42 }]) {
        const response = await t.app.inject({ method: 'POST', url: '/auth/external/confirm-link', headers, payload });
        expectErrorBody(response, 401, 'Unauthorized');
        expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
      }
    }
  });

  it('does not log anybody in through /auth/social-login', async () => {
    const { authId, bearer } = await pendingLink(uniqueEmail('nologin'));
    expectErrorBody(await socialLogin(authId), 400, 'Bad Request');
    expect((await confirmLink(t, authId, bearer)).statusCode).toBe(200);
  });

  it('answers 409 at the confirmation when the identity was linked to someone else meanwhile', async () => {
    const { bearer, sub, authId } = await pendingLink(uniqueEmail('late'));
    const signIn = await webFlow(t, 'google', { sub });
    expect((await socialLogin(signIn.searchParams.get('authId')!)).statusCode).toBe(200);
    expectErrorBody(await confirmLink(t, authId, bearer), 409, 'Conflict');
  });

  it('lands on the error page when the identity already belongs to another user', async () => {
    const sub = googleAccount();
    const signIn = await webFlow(t, 'google', { sub });
    expect((await socialLogin(signIn.searchParams.get('authId')!)).statusCode).toBe(200);
    const bearer = await registerVerified(t, uniqueEmail('second'));
    const landing = await webFlow(t, 'google', { sub }, { headers: bearerOf(bearer) });
    expect(landing.pathname).toBe('/social-login-error');
    expect(landing.searchParams.get('reason')).toBe('identity_in_use');
  });
});

describe('the flow cookie', () => {
  it('is Secure under an https PUBLIC_URL, and scoped to the callback path behind its prefix', async () => {
    const https = await createSocialTestApp({ env: { PUBLIC_URL: 'https://api.shop.example/api' } });
    try {
      const start = await https.app.inject({ method: 'GET', url: '/auth/external?authclient=google' });
      expect(start.statusCode).toBe(302);
      const cookie = String(start.headers['set-cookie']);
      expect(cookie).toMatch(/; Path=\/api\/auth\/external; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await https.close();
    }
  });
});
