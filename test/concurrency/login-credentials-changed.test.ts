import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logIn } from '../../src/modules/accounts/accounts.use-cases.js';
import {
  changeEmailConfirmed,
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
import { afterFirstRead } from '../helpers/overlapping-writes.js';

// A password login checks the credentials before its transaction (the hash must not hold one open),
// and opens the session in it. A reset, a password change or an email change that commits in between
// ends every session it does not keep: a login whose credentials it made wrong must not open one
// after it, which would outlive the change nothing else ends.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t?.close());

const NEW_PASSWORD = 'Uus-parool-kuuse-all-77';
const noGuestBasket = { guestToken: undefined, language: 'et' as const };

/** POST /auth/login of `email` with the good password, whose read of the user hands back its row once `between` has committed. */
const loginAround = (email: string, between: () => Promise<unknown>) =>
  logIn(
    afterFirstRead(t.database.db, 'app_user', between),
    t.config,
    { form: { email, password: GOOD_PASSWORD, web_store_nav_code: 'WEB' }, address: '192.0.2.7', basket: noGuestBasket },
    Date.now(),
  );

const tokenCount = async (email: string) =>
  (
    await t.database.db
      .selectFrom('access_token')
      .innerJoin('app_user', 'app_user.id', 'access_token.user_id')
      .select('access_token.token_hash')
      .where('app_user.email', '=', email)
      .execute()
  ).length;

const refusedAsWrongPassword = { fields: [{ field: 'password', messageKey: 'auth.invalidCredentials' }] };

describe('a password login whose credentials were checked just before they changed', () => {
  it('opens no session after a password reset that committed meanwhile', async () => {
    const email = uniqueEmail('reset-race');
    await registerVerified(t, email);
    expect((await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email } })).statusCode).toBe(200);
    await t.drainJobs();
    const resetToken = tokenFromMail(mailsTo(t, email).at(-1)!, 'passwordResetToken');
    const reset = async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/auth/set-new-password',
        payload: { passwordResetToken: resetToken, password: NEW_PASSWORD, passwordRepeat: NEW_PASSWORD },
      });
      expect(response.statusCode, response.body).toBe(200);
    };

    await expect(loginAround(email, reset)).rejects.toMatchObject(refusedAsWrongPassword);
    expect(await tokenCount(email)).toBe(0);
    // The new password logs in.
    expect((await login(t, email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('opens no session after a password change that committed meanwhile (which kept only its own)', async () => {
    const email = uniqueEmail('change-race');
    const changer = await registerVerified(t, email);
    const change = async () => {
      const response = await t.app.inject({
        method: 'PUT',
        url: '/user/me',
        headers: { authorization: `Bearer ${changer}`, store: 'WEB' },
        payload: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD, newPasswordRepeat: NEW_PASSWORD },
      });
      expect(response.statusCode, response.body).toBe(200);
    };

    await expect(loginAround(email, change)).rejects.toMatchObject(refusedAsWrongPassword);
    expect(await tokenCount(email)).toBe(1);
    expect((await me(t, changer)).statusCode).toBe(200);
  });

  it('opens no session for the old email after an email change that committed meanwhile', async () => {
    const email = uniqueEmail('email-race');
    const newEmail = uniqueEmail('email-race-new');
    const changer = await registerVerified(t, email);

    await expect(loginAround(email, () => changeEmailConfirmed(t, changer, newEmail))).rejects.toMatchObject(refusedAsWrongPassword);
    expect(await tokenCount(newEmail)).toBe(1);
  });

  it('still opens the session when nothing changed', async () => {
    const email = uniqueEmail('no-race');
    await registerVerified(t, email);
    const session = await loginAround(email, async () => {});
    expect('accessToken' in session && (await me(t, session.accessToken)).statusCode).toBe(200);
  });
});
