import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailTo,
  me,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const switchStore = (accessToken: string | undefined, webStoreNavCode: unknown, store?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/switch-web-store',
    headers: { ...(accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` }), ...(store ? { store } : {}) },
    payload: { webStoreNavCode },
  });

const logout = (accessToken?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/logout',
    headers: accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` },
  });

const accountsOf = (email: string) =>
  t.database.db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['client_account.store_code', 'client_account.type'])
    .where('app_user.email', '=', email)
    .orderBy('client_account.id')
    .execute();

function expectUnauthorized(response: Awaited<ReturnType<typeof switchStore>>) {
  expectErrorBody(response, 401, 'Unauthorized');
  expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
}

/** A verified business customer in WEB and the BUSINESS token from the verification. */
async function businessToken(): Promise<{ email: string; accessToken: string }> {
  const email = uniqueEmail('biz');
  const response = await t.app.inject({
    method: 'POST',
    url: '/auth/register-business',
    payload: {
      companyName: 'Raamatukoi OÜ',
      registryCode: '12345678',
      address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
      contact: { firstName: 'Juku', lastName: 'Tamm', email, phone: '+3725551234' },
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  const verified = await verify(t, tokenFromMail(await mailTo(t, email, /Kinnitage/), 'verificationToken'));
  expect(verified.statusCode, verified.body).toBe(200);
  return { email, accessToken: verified.json().accessToken };
}

describe('POST /auth/switch-web-store', () => {
  it('answers 401 without a token', async () => {
    expectUnauthorized(await switchStore(undefined, 'WEB2'));
  });

  it.each([['garbage'], ['A'.repeat(43)], ['x'.repeat(500)]])('answers 401 for the unknown token %j', async (token) => {
    expectUnauthorized(await switchStore(token, 'WEB2'));
  });

  it('answers 401 for a revoked token', async () => {
    const accessToken = await registerVerified(t, uniqueEmail());
    expect((await logout(accessToken)).statusCode).toBe(200);
    expectUnauthorized(await switchStore(accessToken, 'WEB2'));
  });

  it('refuses the store the token is already in', async () => {
    const accessToken = await registerVerified(t, uniqueEmail());
    expect(expectFieldErrors(await switchStore(accessToken, 'WEB'))).toEqual(['webStoreNavCode']);
  });

  it.each([['SHOP'], ['web2'], [''], ['WEB3']])('refuses the unknown store code %j', async (code) => {
    const email = uniqueEmail();
    const accessToken = await registerVerified(t, email);
    expect(expectFieldErrors(await switchStore(accessToken, code))).toEqual(['webStoreNavCode']);
    expect(await accountsOf(email)).toEqual([{ store_code: 'WEB', type: 'SIMPLE' }]);
  });

  it('refuses a business token: only retail customers switch', async () => {
    const { email, accessToken } = await businessToken();
    expect((await me(t, accessToken)).json()).toMatchObject({ role: 'BUSINESS' });
    const response = await switchStore(accessToken, 'WEB2');
    expect(expectFieldErrors(response)).toEqual(['webStoreNavCode']);
    expect(await accountsOf(email)).toEqual([{ store_code: 'WEB', type: 'BUSINESS' }]);
  });

  it('issues a WEB2 token, creating the simple account there, and switches back', async () => {
    const email = uniqueEmail();
    const webToken = await registerVerified(t, email);
    expect(await accountsOf(email)).toEqual([{ store_code: 'WEB', type: 'SIMPLE' }]);

    const switched = await switchStore(webToken, 'WEB2');
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json()).toEqual({ accessToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), basket: expect.any(Object) });
    // The basket in the new store: none yet.
    expect(switched.json().basket).toMatchObject({ id: null, items: [], itemCount: 0, total: 0, currency: 'EUR' });
    const web2Token = switched.json().accessToken as string;
    expect(await accountsOf(email)).toEqual([
      { store_code: 'WEB', type: 'SIMPLE' },
      { store_code: 'WEB2', type: 'SIMPLE' },
    ]);

    const inWeb2 = await me(t, web2Token, 'WEB2');
    expect(inWeb2.statusCode, inWeb2.body).toBe(200);
    expect(inWeb2.json()).toMatchObject({ email, webStoreNavCode: 'WEB2', role: 'SIMPLE', roles: ['SIMPLE'] });
    // Each token belongs to its own store.
    expectUnauthorized(await me(t, webToken, 'WEB2'));
    expectUnauthorized(await me(t, web2Token, 'WEB'));

    const back = await switchStore(web2Token, 'WEB', 'WEB2');
    expect(back.statusCode, back.body).toBe(200);
    expect((await me(t, back.json().accessToken, 'WEB')).json()).toMatchObject({ email, webStoreNavCode: 'WEB', role: 'SIMPLE' });

    // Switching again uses the account that now exists.
    expect((await switchStore(webToken, 'WEB2')).statusCode).toBe(200);
    expect(await accountsOf(email)).toHaveLength(2);
  });

  it('keeps the WEB2 account the user already has', async () => {
    const email = uniqueEmail();
    const webToken = await registerVerified(t, email);
    expect((await login(t, email, GOOD_PASSWORD, 'WEB2')).statusCode).toBe(200);
    const before = await accountsOf(email);
    expect(before).toHaveLength(2);
    const switched = await switchStore(webToken, 'WEB2');
    expect(switched.statusCode).toBe(200);
    expect(await accountsOf(email)).toEqual(before);
    expect((await me(t, switched.json().accessToken, 'WEB2')).json()).toMatchObject({ webStoreNavCode: 'WEB2', role: 'SIMPLE' });
  });
});

describe('POST /auth/logout', () => {
  it('revokes only the presented token', async () => {
    const email = uniqueEmail();
    const first = await registerVerified(t, email);
    const second = (await login(t, email)).json().accessToken as string;

    const response = await logout(first);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expectUnauthorized(await me(t, first));
    expect((await me(t, second)).json()).toMatchObject({ email });
    expectUnauthorized(await logout(first));
  });

  it.each([[undefined], ['garbage'], ['A'.repeat(43)]])('answers 401 for the token %j', async (token) => {
    expectUnauthorized(await logout(token));
  });
});

describe('authentication comes first', () => {
  it('answers 401, not 422, to a request with neither token nor a valid body', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/auth/switch-web-store', payload: { webStoreNavCode: 42 } });
    expect(response.statusCode).toBe(401);
  });
});
