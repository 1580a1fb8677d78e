import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailsTo,
  me,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { nextReadHook } from '../helpers/overlapping-writes.js';
import { wrappedDatabase } from '../helpers/wrapped-database.js';

// POST /auth/switch-web-store resolves its bearer token before its transaction, and re-issues it for
// the other store in it. A password change, a reset or an email change that ends the token commits
// in between: the switch must not mint a new token from the ended one (which also counted as a
// fresh sign-in), as it would not for a switch sent after it.

let t: AccountsTestApp;
/** Runs what a test arms once, right after the next read of the access tokens (the request's look-up of its bearer). */
const tokenRead = nextReadHook('access_token');

beforeAll(async () => {
  t = await createAccountsTestApp({ wrapDatabase: (database) => wrappedDatabase(database, tokenRead.plugin, () => {}) });
});
afterAll(() => t?.close());

const NEW_PASSWORD = 'Uus-parool-kuuse-all-77';

const switchToWeb2 = (accessToken: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/switch-web-store',
    headers: { authorization: `Bearer ${accessToken}`, store: 'WEB' },
    payload: { webStoreNavCode: 'WEB2' },
  });

/** A verified retail customer of WEB: the owner's session and another one (a stolen device's). */
async function customerWithTwoSessions() {
  const email = uniqueEmail('switch-race');
  const owner = await registerVerified(t, email);
  const other = (await login(t, email)).json().accessToken as string;
  return { email, owner, other };
}

const tokensOf = async (email: string) =>
  (
    await t.database.db
      .selectFrom('access_token')
      .innerJoin('app_user', 'app_user.id', 'access_token.user_id')
      .select('access_token.token_hash')
      .where('app_user.email', '=', email)
      .execute()
  ).length;

describe('a switch of store whose token an owner ends while the switch runs', () => {
  it('is a 401 after a password change that ended the token, and mints none', async () => {
    const { email, owner, other } = await customerWithTwoSessions();
    tokenRead.arm(async () => {
      const changed = await t.app.inject({
        method: 'PUT',
        url: '/user/me',
        headers: { authorization: `Bearer ${owner}`, store: 'WEB' },
        payload: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD, newPasswordRepeat: NEW_PASSWORD },
      });
      expect(changed.statusCode, changed.body).toBe(200);
    });
    const switched = await switchToWeb2(other);
    expect(tokenRead.armed).toBe(false);
    expectErrorBody(switched, 401, 'Unauthorized');
    expect(await tokensOf(email)).toBe(1);
    expect((await me(t, owner)).statusCode).toBe(200);
  });

  it('is a 401 after a password reset that ended every token, and mints none', async () => {
    const { email, other } = await customerWithTwoSessions();
    expect((await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email } })).statusCode).toBe(200);
    await t.drainJobs();
    const resetToken = tokenFromMail(mailsTo(t, email).at(-1)!, 'passwordResetToken');
    tokenRead.arm(async () => {
      const reset = await t.app.inject({
        method: 'POST',
        url: '/auth/set-new-password',
        payload: { passwordResetToken: resetToken, password: NEW_PASSWORD, passwordRepeat: NEW_PASSWORD },
      });
      expect(reset.statusCode, reset.body).toBe(200);
    });
    const switched = await switchToWeb2(other);
    expect(tokenRead.armed).toBe(false);
    expectErrorBody(switched, 401, 'Unauthorized');
    expect(await tokensOf(email)).toBe(0);
  });

  it('still switches when nothing ended the token', async () => {
    const { other } = await customerWithTwoSessions();
    const switched = await switchToWeb2(other);
    expect(switched.statusCode, switched.body).toBe(200);
    expect((await me(t, switched.json().accessToken, 'WEB2')).statusCode).toBe(200);
  });
});
