import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { changeStore } from '../../src/modules/store/index.js';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  mailTo,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';

// A login and a switch name their store in the body, not in the `store` header the request hook
// checks: a locked store must still answer 423 and do nothing there (no token, no account made
// there, no basket merged).

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());
afterEach(async () => {
  await changeStore(t.database.db, 'WEB2', { isLocked: false, lockedUntil: null }, Date.now());
});

const lockWeb2 = (until: number | null) => changeStore(t.database.db, 'WEB2', { isLocked: true, lockedUntil: until }, Date.now());

async function web2State(email: string) {
  const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  const accounts = await t.database.db
    .selectFrom('client_account')
    .select('id')
    .where('user_id', '=', user.id)
    .where('store_code', '=', 'WEB2')
    .execute();
  const tokens = await t.database.db
    .selectFrom('access_token')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', user.id)
    .executeTakeFirstOrThrow();
  return { web2Accounts: accounts.length, tokens: Number(tokens.n) };
}

/** A login into WEB2 sent with the `store` header of WEB, the store the app is showing. */
const loginFromWeb = (email: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/login',
    headers: { store: 'WEB' },
    payload: { email, password: GOOD_PASSWORD, web_store_nav_code: 'WEB2' },
  });

const switchToWeb2 = (accessToken: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/switch-web-store',
    headers: { authorization: `Bearer ${accessToken}` },
    payload: { webStoreNavCode: 'WEB2' },
  });

describe('a locked store named in the body', () => {
  it('POST /auth/login into it from the other store: 423 with Retry-After, and nothing done there', async () => {
    const email = uniqueEmail('locked-login');
    await registerVerified(t, email, 'WEB');
    const before = await web2State(email);
    await lockWeb2(Date.now() + 60_000);

    const response = await loginFromWeb(email);
    expectErrorBody(response, 423, 'Locked');
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    expect(await web2State(email)).toEqual(before);

    await changeStore(t.database.db, 'WEB2', { isLocked: false, lockedUntil: null }, Date.now());
    const open = await loginFromWeb(email);
    expect(open.statusCode, open.body).toBe(200);
  });

  it('POST /auth/switch-web-store into it: 423, and nothing done there', async () => {
    const email = uniqueEmail('locked-switch');
    const accessToken = await registerVerified(t, email, 'WEB');
    const before = await web2State(email);
    await lockWeb2(null);

    const response = await switchToWeb2(accessToken);
    expectErrorBody(response, 423, 'Locked');
    expect(response.headers['retry-after']).toBeUndefined();
    expect(await web2State(email)).toEqual(before);

    await changeStore(t.database.db, 'WEB2', { isLocked: false, lockedUntil: null }, Date.now());
    const open = await switchToWeb2(accessToken);
    expect(open.statusCode, open.body).toBe(200);
  });

  it('POST /auth/verify-email of an account in it, sent without a store header: 423, and the link still good once it opens', async () => {
    const email = uniqueEmail('locked-verify');
    expect((await register(t, email, 'WEB2')).statusCode).toBe(200);
    const token = tokenFromMail(await mailTo(t, email, /./), 'verificationToken');
    const before = await web2State(email);
    await lockWeb2(Date.now() + 60_000);

    // As the link opens the front-end of the default store: no store header, so the request hook checks WEB.
    const response = await verify(t, token);
    expectErrorBody(response, 423, 'Locked');
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    expect(await web2State(email)).toEqual(before);
    const user = await t.database.db
      .selectFrom('app_user')
      .select(['email_verified', 'password_hash'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(Boolean(user.email_verified)).toBe(false);
    expect(user.password_hash).toBeNull();

    await changeStore(t.database.db, 'WEB2', { isLocked: false, lockedUntil: null }, Date.now());
    const open = await verify(t, token);
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json().webStoreNavCode).toBe('WEB2');
  });
});
