import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailsTo,
  mailTo,
  me,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { pastResubmitWindow } from '../helpers/resubmit.js';

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const NEW_PASSWORD = 'Uus-parool-kuuse-all-77';

const requestReset = (email: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/auth/reset-password', headers, payload: { email } });

const setNewPassword = (token: string | undefined, form: Record<string, unknown> = {}) =>
  t.app.inject({
    method: 'POST',
    url: token === undefined ? '/auth/set-new-password' : `/auth/set-new-password?passwordResetToken=${encodeURIComponent(token)}`,
    payload: { password: NEW_PASSWORD, passwordRepeat: NEW_PASSWORD, ...form },
  });

const jobCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('job')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Asks for a reset, runs the outbox and returns the newest mail to `email` with its token. */
async function resetLink(email: string, headers: Record<string, string> = {}) {
  const response = await requestReset(email, headers);
  expect(response.statusCode, response.body).toBe(200);
  await t.drainJobs();
  const mail = mailsTo(t, email).at(-1)!;
  expect(mail.text).toContain('passwordResetToken=');
  return { mail, token: tokenFromMail(mail, 'passwordResetToken') };
}

/** A verified user with a fresh reset token. */
async function userWithResetToken() {
  const email = uniqueEmail('reset');
  const accessToken = await registerVerified(t, email);
  const { token } = await resetLink(email);
  return { email, accessToken, token };
}

describe('POST /auth/reset-password', () => {
  it('mails an activated user a link to the store front-end, in English when asked', async () => {
    const email = uniqueEmail('reset');
    await registerVerified(t, email);
    const response = await requestReset(email, { 'x-app-language': 'en' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});

    const mail = await mailTo(t, email, /password/);
    expect(mail.subject).toBe('Reset your password – Main store');
    expect(mail.text).toMatch(/^Hello Mari,/);
    expect(mail.text).toMatch(/http:\/\/localhost:5173\/set-new-password\?passwordResetToken=[A-Za-z0-9_-]{43}(\s|$)/);
    expect(mail.html).toContain('href="http://localhost:5173/set-new-password?passwordResetToken=');
  });

  it('writes the mail in Russian when asked', async () => {
    const email = uniqueEmail('reset');
    await registerVerified(t, email);
    await requestReset(email, { 'x-app-language': 'ru' });
    const mail = await mailTo(t, email, /пароля/);
    expect(mail.subject).toBe('Восстановление пароля – Main store');
    expect(mail.text).toContain('Здравствуйте, Mari!');
    expect(mail.text).toContain('Мы получили запрос на восстановление пароля');
  });

  it("links to the other store's front-end when asked there", async () => {
    const email = uniqueEmail('reset');
    await registerVerified(t, email, 'WEB2');
    const { mail } = await resetLink(email, { store: 'WEB2' });
    expect(mail.subject).toBe('Parooli taastamine – Outlet');
    expect(mail.text).toMatch(/http:\/\/localhost:5174\/set-new-password\?passwordResetToken=/);
  });

  it('answers the same 200 {} for an unknown email and sends nothing', async () => {
    const known = uniqueEmail('reset');
    await registerVerified(t, known);
    const unknown = uniqueEmail('nobody');
    const jobs = await jobCount();

    const forUnknown = await requestReset(unknown);
    const forKnown = await requestReset(known);
    expect(forUnknown.statusCode).toBe(200);
    expect(forUnknown.json()).toEqual({});
    expect(forKnown.statusCode).toBe(forUnknown.statusCode);
    expect(forKnown.body).toBe(forUnknown.body);

    // One job each, the same whether or not the email exists (existence.test.ts compares every table).
    expect(await jobCount()).toBe(jobs + 2);
    await t.drainJobs();
    expect(mailsTo(t, unknown)).toEqual([]);
    expect(mailsTo(t, known).at(-1)!.text).toContain('passwordResetToken=');
  });

  it.each([['not-an-email'], [''], ['mari@'], [`${'a'.repeat(250)}@example.ee`]])('refuses the email %j with a 422', async (email) => {
    expect(expectFieldErrors(await requestReset(email))).toEqual(['email']);
  });

  it('refuses a form without an email with a 422', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: {} });
    expect(expectFieldErrors(response)).toEqual(['email']);
  });

  it('sends an unverified user the verification mail again instead', async () => {
    const email = uniqueEmail('unverified');
    await register(t, email);
    await mailTo(t, email);
    expect((await requestReset(email)).statusCode).toBe(200);
    await t.drainJobs();

    const mails = mailsTo(t, email);
    expect(mails).toHaveLength(2);
    const again = mails[1]!;
    expect(again.subject).toBe('Kinnitage oma e-posti aadress – Main store');
    expect(again.subject).not.toBe('Parooli taastamine – Main store');
    expect(again.text).not.toContain('passwordResetToken');
    expect((await verify(t, tokenFromMail(again, 'verificationToken'))).statusCode).toBe(200);
  });
});

describe('POST /auth/set-new-password', () => {
  it('replaces the password and revokes every access token of the user', async () => {
    const { email, accessToken: fromVerify, token } = await userWithResetToken();
    const fromLogin = (await login(t, email)).json().accessToken as string;
    const inWeb2 = (await login(t, email, GOOD_PASSWORD, 'WEB2')).json().accessToken as string;
    const stranger = await registerVerified(t, uniqueEmail('stranger'));
    for (const [accessToken, store] of [
      [fromVerify, 'WEB'],
      [fromLogin, 'WEB'],
      [inWeb2, 'WEB2'],
    ] as const) {
      expect((await me(t, accessToken, store)).statusCode).toBe(200);
    }

    const response = await setNewPassword(token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});

    for (const [accessToken, store] of [
      [fromVerify, 'WEB'],
      [fromLogin, 'WEB'],
      [inWeb2, 'WEB2'],
    ] as const) {
      expectErrorBody(await me(t, accessToken, store), 401, 'Unauthorized');
    }
    expect((await me(t, stranger)).statusCode).toBe(200);
    expect(expectFieldErrors(await login(t, email, GOOD_PASSWORD))).toEqual(['password']);
    const loggedIn = await login(t, email, NEW_PASSWORD);
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    expect((await me(t, loggedIn.json().accessToken)).json()).toMatchObject({ email });
  });

  it('is single use', async () => {
    const { token } = await userWithResetToken();
    expect((await setNewPassword(token)).statusCode).toBe(200);
    expectErrorBody(await setNewPassword(token, { password: 'Kolmas-parool-88', passwordRepeat: 'Kolmas-parool-88' }), 400, 'Bad Request');
  });

  it('refuses an expired token', async () => {
    const { email, token } = await userWithResetToken();
    await t.database.db
      .updateTable('app_user')
      .set({ reset_expires_at: Date.now() - 1 })
      .where('email', '=', email)
      .execute();
    expectErrorBody(await setNewPassword(token), 400, 'Bad Request');
    expect((await login(t, email, GOOD_PASSWORD)).statusCode).toBe(200);
  });

  it('accepts only the newest link when the user asked twice', async () => {
    const email = uniqueEmail('twice');
    await registerVerified(t, email);
    const first = (await resetLink(email)).token;
    // Asked again later: the same request within minutes is a double submit, which mails nothing more.
    await pastResubmitWindow(t.database.db);
    const second = (await resetLink(email)).token;
    expect(second).not.toBe(first);
    expectErrorBody(await setNewPassword(first), 400, 'Bad Request');
    expect((await setNewPassword(second)).statusCode).toBe(200);
  });

  it.each([
    ['no user has the token', 'A'.repeat(43)],
    ['the token is malformed', 'not a token'],
    ['the token is too short', 'abc'],
    ['the token is empty', ''],
    ['the token is missing', undefined],
  ])('answers 400 when %s, before looking at the form', async (_case, token) => {
    const response = await setNewPassword(token, { password: 1, passwordRepeat: 'short' });
    const body = expectErrorBody(response, 400, 'Bad Request');
    expect(body.message).toBe('Parooli taastamise link on vigane või aegunud.');
    expectErrorBody(await setNewPassword(token), 400, 'Bad Request');
  });

  const emailMarker = Symbol('the email');
  it.each([
    ['too short', { password: 'Lühike1', passwordRepeat: 'Lühike1' }, ['password']],
    ['longer than 128', { password: 'x'.repeat(129), passwordRepeat: 'x'.repeat(129) }, ['password']],
    ['common: password123', { password: 'password123', passwordRepeat: 'password123' }, ['password']],
    ['common: qwerty123', { password: 'qwerty123', passwordRepeat: 'qwerty123' }, ['password']],
    ['equal to the email', { password: emailMarker, passwordRepeat: emailMarker }, ['password']],
    ['repeated differently', { password: NEW_PASSWORD, passwordRepeat: `${NEW_PASSWORD}!` }, ['passwordRepeat']],
    ['short and repeated differently', { password: 'Lühike1', passwordRepeat: 'Lühike2' }, ['password', 'passwordRepeat']],
  ])('refuses a new password that is %s with a 422, and keeps the old one and the token', async (_case, form, fields) => {
    const { email, accessToken, token } = await userWithResetToken();
    const filled = Object.fromEntries(Object.entries(form).map(([key, value]) => [key, value === emailMarker ? email : value]));
    expect(expectFieldErrors(await setNewPassword(token, filled)).sort()).toEqual(fields);

    expect((await me(t, accessToken)).statusCode).toBe(200);
    expect((await login(t, email, GOOD_PASSWORD)).statusCode).toBe(200);
    expect((await setNewPassword(token)).statusCode).toBe(200);
  });

  it('refuses the email as the password whatever its case, in the language of the request', async () => {
    const { email, token } = await userWithResetToken();
    const response = await t.app.inject({
      method: 'POST',
      url: `/auth/set-new-password?passwordResetToken=${token}`,
      headers: { 'x-app-language': 'en' },
      payload: { password: email.toUpperCase(), passwordRepeat: email.toUpperCase() },
    });
    expect(expectFieldErrors(response)).toEqual(['password']);
    expect(response.json()[0].message).toBe('The password must not be your email address.');
  });
});
