import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/infra/tokens.js';
import { createAccountsTestApp, GOOD_PASSWORD, login, mailTo, me, register, registerVerified, uniqueEmail } from '../helpers/accounts.js';
import {
  Browser,
  CALLBACK,
  createSocialTestApp,
  IOS_APP,
  newJti,
  newSubject,
  PUBLIC_URL,
  returnFromProvider,
  signInAtProvider,
  startWebFlow,
  webFlow as webFlowIn,
  type SocialTestApp,
  confirmLink,
} from '../helpers/social.js';
import type { TestIdp } from '../helpers/oidc-provider.js';
import type { FakeFacebook, FacebookUser } from '../helpers/facebook-graph.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';

let t: SocialTestApp;
let google: TestIdp;
let apple: TestIdp;
let facebookLimited: TestIdp;
let facebook: FakeFacebook;

beforeAll(async () => {
  t = await createSocialTestApp();
  ({ google, apple, facebookLimited, facebook } = t);
});
afterAll(async () => {
  await t.close();
});

let counter = 0;

/** Runs the whole web redirect flow in one browser and returns where the service sends it at the end. */
const webFlow = (
  provider: 'google' | 'apple' | 'facebook',
  as: { sub: string; facebookUser?: FacebookUser },
  options: { headers?: Record<string, string>; query?: string; deny?: boolean } = {},
) => webFlowIn(t, provider, as, options);

const socialLogin = (authId: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/auth/social-login', headers, payload: { authId, isNativeForm: false, ...extra } });

const native = (query: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/auth/external?${query}`, headers });

describe('the web redirect flow', () => {
  it('Google: to the provider with state, PKCE and nonce, back to the front-end with an authId that logs in', async () => {
    const sub = newSubject();
    const email = uniqueEmail('google');
    google.addAccount({ sub, email, email_verified: true, given_name: 'Kati', family_name: 'Karu' });
    const start = await t.app.inject({ method: 'GET', url: '/auth/external?authclient=google' });
    const url = new URL(String(start.headers.location));
    expect(url.origin).toBe(google.issuer);
    expect(String(start.headers['set-cookie'])).toMatch(
      /^sf_social_\w+=[\w-]{43}; Path=\/auth\/external; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );
    for (const parameter of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(parameter)).toBeTruthy();
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK);

    const landing = await webFlow('google', { sub });
    expect(`${landing.origin}${landing.pathname}`).toBe('http://localhost:5173/social-login');
    const authId = landing.searchParams.get('authId')!;
    const response = await socialLogin(authId);
    expect(response.statusCode, response.body).toBe(200);
    expect((await me(t, response.json().accessToken)).json()).toMatchObject({ email, firstName: 'Kati', lastName: 'Karu', role: 'SIMPLE' });
  });

  it('Apple: the form POST comes back cross-site and the name from the first authorization is kept', async () => {
    const sub = newSubject();
    apple.addAccount({ sub, email: uniqueEmail('apple'), email_verified: true, given_name: 'Jaan', family_name: 'Tamm' });
    const landing = await webFlow('apple', { sub });
    const response = await socialLogin(landing.searchParams.get('authId')!);
    expect(response.statusCode, response.body).toBe(200);
    expect((await me(t, response.json().accessToken)).json()).toMatchObject({ firstName: 'Jaan', lastName: 'Tamm' });
  });

  it("Apple: a name sent only in the form's user field on the first authorization is kept", async () => {
    const sub = newSubject();
    apple.addAccount({ sub, email: uniqueEmail('apple'), email_verified: true });
    const browser = new Browser(t);
    const back = await signInAtProvider(t, 'apple', await startWebFlow(t, browser, 'apple'), { sub });
    expect(back.method).toBe('POST');
    const user = JSON.stringify({ name: { firstName: 'Ülle', lastName: 'Õun' }, email: 'relay@privaterelay.example' });
    const callback = await returnFromProvider(browser, { ...back, body: `${back.body}&user=${encodeURIComponent(user)}` });
    const authId = new URL(String(callback.headers.location)).searchParams.get('authId')!;
    const response = await socialLogin(authId);
    expect((await me(t, response.json().accessToken)).json()).toMatchObject({ firstName: 'Ülle', lastName: 'Õun' });
  });

  it("Apple: control characters in the user field's name become spaces (the name goes into mails and exports)", async () => {
    const sub = newSubject();
    apple.addAccount({ sub, email: uniqueEmail('apple'), email_verified: true });
    const browser = new Browser(t);
    const back = await signInAtProvider(t, 'apple', await startWebFlow(t, browser, 'apple'), { sub });
    const user = JSON.stringify({ name: { firstName: 'Ülle\r\nBcc: x@example.com', lastName: '\u0007Õun\u001b[31m' } });
    const callback = await returnFromProvider(browser, { ...back, body: `${back.body}&user=${encodeURIComponent(user)}` });
    const response = await socialLogin(new URL(String(callback.headers.location)).searchParams.get('authId')!);
    expect((await me(t, response.json().accessToken)).json()).toMatchObject({ firstName: 'Ülle Bcc: x@example.com', lastName: 'Õun [31m' });
  });

  it('Facebook: the OAuth dialog with PKCE, then the Graph API', async () => {
    const user = { id: newSubject(), email: uniqueEmail('fb'), first_name: 'Liis', last_name: 'Lepp' };
    const landing = await webFlow('facebook', { sub: user.id, facebookUser: user });
    const response = await socialLogin(landing.searchParams.get('authId')!);
    expect(response.statusCode, response.body).toBe(200);
    // Facebook's addresses are not taken as verified: the account gets a placeholder until the person confirms one of their own.
    const profile = (await me(t, response.json().accessToken)).json();
    expect(profile).toMatchObject({ firstName: 'Liis', lastName: 'Lepp' });
    expect(profile.email).toMatch(/^facebook\.nomail-[0-9a-f]{32}@users\.invalid$/);
  });

  it('lands on the store that started it and keeps a returnUrl of that store', async () => {
    const sub = newSubject();
    google.addAccount({ sub, email: uniqueEmail('google'), email_verified: true });
    const landing = await webFlow(
      'google',
      { sub },
      { headers: { store: 'WEB2' }, query: `&returnUrl=${encodeURIComponent('http://localhost:5174/basket')}` },
    );
    expect(landing.origin).toBe('http://localhost:5174');
    expect(landing.searchParams.get('returnUrl')).toBe('http://localhost:5174/basket');
  });

  it('refuses a returnUrl outside the store', async () => {
    expectErrorBody(await native(`authclient=google&returnUrl=${encodeURIComponent('https://evil.example/')}`), 400, 'Bad Request');
  });

  it('sends a refusal by the user to the error page', async () => {
    const sub = newSubject();
    google.addAccount({ sub, email: uniqueEmail('google'), email_verified: true });
    const landing = await webFlow('google', { sub }, { deny: true });
    expect(landing.pathname).toBe('/social-login-error');
    expect(landing.searchParams.get('reason')).toBe('provider_refused');
  });

  it('sends a code the provider does not accept to the error page', async () => {
    const sub = newSubject();
    google.addAccount({ sub, email: uniqueEmail('google'), email_verified: true });
    const browser = new Browser(t);
    const back = new URL((await signInAtProvider(t, 'google', await startWebFlow(t, browser, 'google'), { sub })).url);
    back.searchParams.set('code', 'forged-code');
    const callback = await browser.request({ method: 'GET', url: `${back.pathname}${back.search}` });
    const landing = new URL(String(callback.headers.location));
    expect(landing.pathname).toBe('/social-login-error');
    expect(landing.searchParams.get('reason')).toBe('verification_failed');
  });

  it('sends an unknown or replayed state to the error page', async () => {
    const unknown = await native('state=made-up&code=abc');
    expect(unknown.statusCode).toBe(302);
    expect(new URL(String(unknown.headers.location)).searchParams.get('reason')).toBe('state_mismatch');

    const sub = newSubject();
    google.addAccount({ sub, email: uniqueEmail('google'), email_verified: true });
    const browser = new Browser(t);
    const back = await signInAtProvider(t, 'google', await startWebFlow(t, browser, 'google'), { sub });
    const path = back.url.slice(PUBLIC_URL.length);
    const first = await browser.request({ method: 'GET', url: path });
    expect(new URL(String(first.headers.location)).searchParams.has('authId')).toBe(true);
    expect(browser.names()).toEqual([]);
    const replay = await browser.request({ method: 'GET', url: path });
    expect(new URL(String(replay.headers.location)).searchParams.get('reason')).toBe('state_mismatch');
  });
});

describe('the native app flow', () => {
  it.each(['google', 'apple'] as const)('%s: a valid ID token for one of our audiences gives an authId', async (provider) => {
    const idp = provider === 'google' ? google : apple;
    const sub = newSubject();
    const token = await idp.idToken({ sub, aud: IOS_APP, email: uniqueEmail(provider), email_verified: true, nonce: 'n-1' });
    const response = await native(`client=${provider}&id=${sub}&token=${token}&nonce=n-1`);
    expect(response.statusCode, response.body).toBe(200);
    const login = await socialLogin(response.json().authId, { isNativeForm: true });
    expect(login.statusCode).toBe(200);
    const row = await t.database.db
      .selectFrom('access_token')
      .select(['login_method', 'native_form'])
      .where('token_hash', '=', hashToken(login.json().accessToken))
      .executeTakeFirstOrThrow();
    expect(row.login_method).toBe(provider);
    expect(Boolean(row.native_form)).toBe(true);
  });

  it('also over POST', async () => {
    const sub = newSubject();
    const token = await google.idToken({ sub, email: uniqueEmail('google'), email_verified: true });
    const response = await t.app.inject({ method: 'POST', url: `/auth/external?client=google&id=${sub}&token=${token}` });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().authId).toEqual(expect.any(String));
  });

  it.each([
    ['a wrong audience', { aud: 'someone-else' }, {}],
    ['a wrong issuer', { iss: 'https://accounts.google.example' }, {}],
    ['an expired token', { exp: Math.floor(Date.now() / 1000) - 60, iat: Math.floor(Date.now() / 1000) - 700 }, {}],
    ['a bad signature', {}, { foreignKey: true }],
    ['alg none', {}, { alg: 'none' as const }],
  ])('refuses %s with a 401', async (_, claims, options) => {
    const sub = newSubject();
    const token = await google.idToken({ sub, email: uniqueEmail(), email_verified: true, ...claims }, options);
    const response = await native(`client=google&id=${sub}&token=${token}`);
    expectErrorBody(response, 401, 'Unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="storefront"');
  });

  it('refuses a token whose subject is not the id given, or whose nonce differs', async () => {
    const token = await google.idToken({ sub: 'real-subject', nonce: 'abc' });
    expectErrorBody(await native(`client=google&id=other-subject&token=${token}`), 401, 'Unauthorized');
    expectErrorBody(await native(`client=google&id=real-subject&token=${token}&nonce=xyz`), 401, 'Unauthorized');
  });

  it('Facebook: an access token checked with debug_token for our app and the user', async () => {
    const user = { id: newSubject(), email: uniqueEmail('fb'), first_name: 'Mati' };
    const ok = await native(`client=facebook&id=${user.id}&token=${facebook.issueToken(user)}`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(facebook.requests.some((r) => r.path.endsWith('/debug_token'))).toBe(true);
    expectErrorBody(
      await native(`client=facebook&id=${user.id}&token=${facebook.issueToken(user, { appId: 'other-app' })}`),
      401,
      'Unauthorized',
    );
    expectErrorBody(
      await native(`client=facebook&id=${user.id}&token=${facebook.issueToken(user, { expired: true })}`),
      401,
      'Unauthorized',
    );
    expectErrorBody(await native(`client=facebook&id=someone-else&token=${facebook.issueToken(user)}`), 401, 'Unauthorized');
  });

  it('Facebook Limited Login: an ID token for our app id', async () => {
    const sub = newSubject();
    const token = await facebookLimited.idToken({ sub, aud: facebook.appId, email: uniqueEmail('fbl') });
    expect((await native(`client=facebook&id=${sub}&token=${token}`)).statusCode).toBe(200);
    const wrong = await facebookLimited.idToken({ sub, aud: 'another-app' });
    expectErrorBody(await native(`client=facebook&id=${sub}&token=${wrong}`), 401, 'Unauthorized');
  });

  it('answers 400 without the parameters of either flow', async () => {
    expectErrorBody(await native(''), 400, 'Bad Request');
    expectErrorBody(await native('client=google&id=x'), 400, 'Bad Request');
  });
});

describe('POST /auth/social-login', () => {
  async function googleAuthId(email: string, verified = true, sub = newSubject()) {
    const token = await google.idToken({ sub, email, email_verified: verified, jti: newJti() });
    return (await native(`client=google&id=${sub}&token=${token}`)).json().authId as string;
  }

  it('uses an authId once', async () => {
    const authId = await googleAuthId(uniqueEmail());
    expect((await socialLogin(authId)).statusCode).toBe(200);
    expectErrorBody(await socialLogin(authId), 400, 'Bad Request');
  });

  it('refuses an expired or unknown authId', async () => {
    const authId = await googleAuthId(uniqueEmail());
    await t.database.db
      .updateTable('auth_record')
      .set({ expires_at: Date.now() - 1 })
      .where('id_hash', '=', hashToken(authId))
      .execute();
    expectErrorBody(await socialLogin(authId), 400, 'Bad Request');
    expectErrorBody(await socialLogin('not-an-auth-id'), 400, 'Bad Request');
  });

  it('logs an identity linked before in as the same user', async () => {
    const sub = newSubject();
    const email = uniqueEmail();
    const first = await socialLogin(await googleAuthId(email, true, sub));
    const second = await socialLogin(await googleAuthId(email, true, sub));
    expect((await me(t, first.json().accessToken)).json().clientCode).toBe((await me(t, second.json().accessToken)).json().clientCode);
  });

  it('links to an existing user when the provider verified the email, and mails the user', async () => {
    const email = uniqueEmail('owner');
    await registerVerified(t, email);
    const response = await socialLogin(await googleAuthId(email));
    expect((await me(t, response.json().accessToken)).json().email).toBe(email);
    const mail = await mailTo(t, email, /Google/);
    expect(mail.subject).toContain('Uus sisselogimisviis: Google');
    expect((await login(t, email)).statusCode).toBe(200);
  });

  it('takes over an account that was registered but never verified, dropping its password and sessions', async () => {
    const email = uniqueEmail('victim');
    await register(t, email);
    // Whoever registered it set a password somehow and holds a session.
    const { hashPassword } = await import('../../src/infra/passwords.js');
    await t.database.db
      .updateTable('app_user')
      .set({ password_hash: await hashPassword(GOOD_PASSWORD) })
      .where('email', '=', email)
      .execute();
    const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const account = await t.database.db.selectFrom('client_account').select('id').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    await t.database.db
      .insertInto('access_token')
      .values({
        token_hash: 'x'.repeat(64),
        user_id: user.id,
        client_account_id: account.id,
        store_code: 'WEB',
        role: 'SIMPLE',
        created_at: 0,
        expires_at: Date.now() + 1e9,
        login_method: 'password',
        native_form: null,
      })
      .execute();

    const response = await socialLogin(await googleAuthId(email));
    expect(response.statusCode, response.body).toBe(200);
    const row = await t.database.db.selectFrom('app_user').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(Boolean(row.email_verified)).toBe(true);
    expect(row.password_hash).toBeNull();
    expect(
      await t.database.db.selectFrom('access_token').select('token_hash').where('token_hash', '=', 'x'.repeat(64)).executeTakeFirst(),
    ).toBeUndefined();
    expect(expectFieldErrors(await login(t, email))).toEqual(['password']);
  });

  it('does not link on an email the provider did not verify (Facebook), and asks for a password login', async () => {
    const email = uniqueEmail('fbowner');
    await registerVerified(t, email);
    const user = { id: newSubject(), email };
    const authId = (await native(`client=facebook&id=${user.id}&token=${facebook.issueToken(user)}`)).json().authId;
    expect(expectFieldErrors(await socialLogin(authId))).toEqual(['authId']);
    expect(await t.database.db.selectFrom('social_identity').selectAll().where('subject', '=', user.id).execute()).toEqual([]);
    const unverifiedGoogle = await googleAuthId(email, false);
    expect(expectFieldErrors(await socialLogin(unverifiedGoogle))).toEqual(['authId']);
  });

  it('asks for the role when the user holds several, without using up the authId', async () => {
    const email = uniqueEmail('roles');
    await registerVerified(t, email);
    const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    await t.database.db
      .insertInto('client_account')
      .values({
        code: `W7${++counter}${Date.now() % 1e6}`,
        user_id: user.id,
        store_code: 'WEB',
        type: 'BUSINESS',
        company_id: null,
        role: 'company_master',
        created_at: Date.now(),
      })
      .execute();
    const authId = await googleAuthId(email);
    expect((await socialLogin(authId)).json()).toEqual({ roles: ['SIMPLE', 'BUSINESS'] });
    const business = await socialLogin(authId, { role: 'BUSINESS' });
    expect((await me(t, business.json().accessToken)).json().role).toBe('BUSINESS');
  });

  it('refuses bad input with field errors and changes nothing', async () => {
    const authId = await googleAuthId(uniqueEmail());
    const records = () =>
      t.database.db.selectFrom('auth_record').select('used_at').where('id_hash', '=', hashToken(authId)).executeTakeFirstOrThrow();
    expect(expectFieldErrors(await t.app.inject({ method: 'POST', url: '/auth/social-login', payload: { authId } }))).toEqual([
      'isNativeForm',
    ]);
    expect(expectFieldErrors(await socialLogin(authId, { isNativeForm: 'yes' }))).toEqual(['isNativeForm']);
    expect(expectFieldErrors(await socialLogin(authId, { role: 'ADMIN' }))).toEqual(['role']);
    expect(
      expectFieldErrors(await t.app.inject({ method: 'POST', url: '/auth/social-login', payload: { authId: 42, isNativeForm: true } })),
    ).toEqual(['authId']);
    expect((await records()).used_at).toBeNull();
  });
});

describe('linking with a bearer token', () => {
  it('links the identity to the logged-in user (app flow), and the identity then logs in as that user', async () => {
    const email = uniqueEmail('linker');
    const bearer = await registerVerified(t, email);
    const sub = newSubject();
    const token = await google.idToken({ sub, email: uniqueEmail('other-address'), email_verified: true });
    const linked = await native(`client=google&id=${sub}&token=${token}`, { authorization: `Bearer ${bearer}` });
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json()).toEqual({ linked: 'google' });
    await mailTo(t, email, /Google/);
    const again = await native(`client=google&id=${sub}&token=${await google.idToken({ sub, jti: newJti() })}`);
    const response = await socialLogin(again.json().authId);
    expect((await me(t, response.json().accessToken)).json().email).toBe(email);
  });

  it('answers 409 when the identity belongs to another user', async () => {
    const sub = newSubject();
    await socialLogin(
      (await native(`client=google&id=${sub}&token=${await google.idToken({ sub, email: uniqueEmail(), email_verified: true })}`)).json()
        .authId,
    );
    const bearer = await registerVerified(t, uniqueEmail('second'));
    const token = await google.idToken({ sub, jti: newJti() });
    const response = await native(`client=google&id=${sub}&token=${token}`, { authorization: `Bearer ${bearer}` });
    expectErrorBody(response, 409, 'Conflict');
  });

  it('links in the web flow too, once the user confirms it, and refuses a bad bearer with a 401', async () => {
    const email = uniqueEmail('weblinker');
    const bearer = await registerVerified(t, email);
    const sub = newSubject();
    google.addAccount({ sub, email: uniqueEmail('g'), email_verified: true });
    const landing = await webFlow('google', { sub }, { headers: { authorization: `Bearer ${bearer}` } });
    expect(landing.searchParams.get('link')).toBe('google');
    const confirm = await confirmLink(t, landing.searchParams.get('authId'), bearer);
    expect(confirm.statusCode, confirm.body).toBe(200);
    expect(confirm.json()).toEqual({ linked: 'google' });
    await mailTo(t, email, /Google/);
    const again = await webFlow('google', { sub });
    expect((await me(t, (await socialLogin(again.searchParams.get('authId')!)).json().accessToken)).json().email).toBe(email);
    expectErrorBody(await native('authclient=google', { authorization: 'Bearer nonsense' }), 401, 'Unauthorized');
  });
});

describe('configuration', () => {
  it('answers 404 for a provider that is not configured', async () => {
    const bare = await createAccountsTestApp();
    try {
      expectErrorBody(await bare.app.inject({ method: 'GET', url: '/auth/external?authclient=google' }), 404, 'Not Found');
      expectErrorBody(await bare.app.inject({ method: 'GET', url: '/auth/external?client=apple&id=1&token=x' }), 404, 'Not Found');
      expectErrorBody(await t.app.inject({ method: 'GET', url: '/auth/external?authclient=myspace' }), 404, 'Not Found');
      // Names of every object's own members are unknown providers too (they were 500s), and start no flow.
      const flows = async () => (await t.database.db.selectFrom('oauth_transaction').select('state_hash').execute()).length;
      const before = await flows();
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        const url = `/auth/external?authclient=${name}`;
        expectErrorBody(await t.app.inject({ method: 'GET', url }), 404, 'Not Found');
        expectErrorBody(await t.app.inject({ method: 'POST', url: '/auth/external', payload: { authclient: name } }), 404, 'Not Found');
        expectErrorBody(await t.app.inject({ method: 'GET', url: `/auth/external?client=${name}&id=1&token=x` }), 404, 'Not Found');
      }
      expect(await flows()).toBe(before);
    } finally {
      await bare.close();
    }
  });
});
