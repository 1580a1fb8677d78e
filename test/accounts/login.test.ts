import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyHashValue } from '../../src/infra/passwords.js';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  me,
  register,
  registerVerified,
  uniqueEmail,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';

const SALT = 'legacy-salt';
let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { LEGACY_PASSWORD_SALT: SALT } });
});
afterAll(() => t.close());

async function addAccount(email: string, store: string, type: 'SIMPLE' | 'BUSINESS' | 'WHOLESALE') {
  const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  await t.database.db
    .insertInto('client_account')
    .values({
      code: `W9${Math.floor(Math.random() * 1e7)}`,
      user_id: user.id,
      store_code: store,
      type,
      company_id: null,
      role: 'x',
      created_at: Date.now(),
    })
    .execute();
}

describe('POST /auth/login', () => {
  it('logs in with the only role and returns the token and the basket', async () => {
    const email = uniqueEmail();
    await registerVerified(t, email);
    const response = await login(t, email);
    expect(response.statusCode).toBe(200);
    const { accessToken, basket } = response.json();
    expect(basket).toMatchObject({ id: null, items: [], itemCount: 0, total: 0, currency: 'EUR' });
    expect((await me(t, accessToken)).json()).toMatchObject({
      email,
      role: 'SIMPLE',
      roles: ['SIMPLE'],
      clientCode: expect.stringMatching(/^W\d+$/),
    });
  });

  it('gives the same 422 for a wrong password, an unknown email and a user without a password', async () => {
    const email = uniqueEmail();
    await registerVerified(t, email);
    const passwordless = uniqueEmail();
    await register(t, passwordless);
    await t.database.db.updateTable('app_user').set({ email_verified: true }).where('email', '=', passwordless).execute();

    const answers = await Promise.all([
      login(t, email, 'Wrong-password-99'),
      login(t, uniqueEmail('nobody'), GOOD_PASSWORD),
      login(t, passwordless, GOOD_PASSWORD),
    ]);
    for (const answer of answers) {
      expect(answer.statusCode).toBe(422);
      expect(answer.json()).toEqual([{ field: 'password', message: 'Vale e-posti aadress või parool.' }]);
    }
  });

  it('tells an unverified user so, but only after the password was right', async () => {
    const email = uniqueEmail();
    await register(t, email);
    const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const { hashPassword } = await import('../../src/infra/passwords.js');
    await t.database.db
      .updateTable('app_user')
      .set({ password_hash: await hashPassword(GOOD_PASSWORD) })
      .where('id', '=', user.id)
      .execute();
    expect(expectFieldErrors(await login(t, email, 'Wrong-password-99'))).toEqual(['password']);
    expect(expectFieldErrors(await login(t, email))).toEqual(['email']);
  });

  it('asks for a role when the user holds several, and logs in as the one chosen', async () => {
    const email = uniqueEmail();
    await registerVerified(t, email);
    await addAccount(email, 'WEB', 'BUSINESS');
    expect((await login(t, email)).json()).toEqual({ roles: ['SIMPLE', 'BUSINESS'] });
    const business = await login(t, email, GOOD_PASSWORD, 'WEB', 'BUSINESS');
    expect((await me(t, business.json().accessToken)).json()).toMatchObject({ role: 'BUSINESS', roles: ['SIMPLE', 'BUSINESS'] });
    expect(expectFieldErrors(await login(t, email, GOOD_PASSWORD, 'WEB', 'WHOLESALE'))).toEqual(['role']);
  });

  it('does not let a wholesale account log in to WEB2', async () => {
    const email = uniqueEmail();
    await registerVerified(t, email);
    await t.database.db
      .deleteFrom('client_account')
      .where('user_id', 'in', t.database.db.selectFrom('app_user').select('id').where('email', '=', email))
      .execute();
    await addAccount(email, 'WEB', 'WHOLESALE');
    await addAccount(email, 'WEB2', 'WHOLESALE');
    expect((await login(t, email, GOOD_PASSWORD, 'WEB')).statusCode).toBe(200);
    expect(expectFieldErrors(await login(t, email, GOOD_PASSWORD, 'WEB2'))).toEqual(['web_store_nav_code']);
  });

  it('lets a retail customer of one store log in to the other with the same credentials', async () => {
    const email = uniqueEmail();
    await registerVerified(t, email, 'WEB');
    const response = await login(t, email, GOOD_PASSWORD, 'WEB2');
    expect(response.statusCode).toBe(200);
    expect((await me(t, response.json().accessToken, 'WEB2')).json()).toMatchObject({ webStoreNavCode: 'WEB2', role: 'SIMPLE' });
  });

  it('refuses an unknown store code', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: 'a@b.ee', password: 'x', web_store_nav_code: 'SHOP' },
    });
    expect(expectFieldErrors(response)).toEqual(['web_store_nav_code']);
  });

  it('accepts an imported legacy password once, then keeps only an argon2id hash', async () => {
    const email = uniqueEmail('legacy');
    await register(t, email);
    const legacy = createHash('sha512').update(`${SALT}-Vana-parool-7-`).digest('hex');
    await t.database.db
      .updateTable('app_user')
      .set({ email_verified: true, password_hash: legacyHashValue(legacy) })
      .where('email', '=', email)
      .execute();
    expect(expectFieldErrors(await login(t, email, 'wrong-one-123'))).toEqual(['password']);
    expect((await login(t, email, 'Vana-parool-7')).statusCode).toBe(200);
    const user = await t.database.db.selectFrom('app_user').select('password_hash').where('email', '=', email).executeTakeFirstOrThrow();
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    expect((await login(t, email, 'Vana-parool-7')).statusCode).toBe(200);
  });
});

describe('access tokens', () => {
  it('are stored only as hashes', async () => {
    const email = uniqueEmail();
    const token = await registerVerified(t, email);
    const rows = await t.database.db.selectFrom('access_token').select('token_hash').execute();
    expect(rows.map((r) => r.token_hash)).toContain(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('expire', async () => {
    const token = await registerVerified(t, uniqueEmail());
    const hash = createHash('sha256').update(token).digest('hex');
    await t.database.db
      .updateTable('access_token')
      .set({ expires_at: Date.now() - 1 })
      .where('token_hash', '=', hash)
      .execute();
    expectErrorBody(await me(t, token), 401, 'Unauthorized');
  });

  it('are refused when malformed', async () => {
    for (const authorization of ['Bearer', 'Basic abc', 'Bearer a b', `Bearer ${'x'.repeat(5000)}`]) {
      const response = await t.app.inject({ method: 'GET', url: '/user/me', headers: { authorization } });
      expectErrorBody(response, 401, 'Unauthorized');
      expect(response.headers['www-authenticate']).toContain('Bearer');
    }
  });
});
