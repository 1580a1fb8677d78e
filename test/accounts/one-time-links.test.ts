import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/infra/tokens.js';
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
import { as } from '../profile/helpers.js';

// A one-time link followed twice: a double click, a mail client or a browser that sends the form
// again, two sends at once. The second answers as the first did while the link would still be
// valid, and does none of the first's work again; it is no way to do anything else with a spent
// link (another password is not set with it, another user cannot use it). Each link of the
// accounts: the registration's verification, a password reset, an email change. (The newsletter's
// confirmation link: test/newsletter/double-opt-in.test.ts.)

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const OTHER_PASSWORD = 'Teine-parool-kasetohul-31';

const jobsOfType = async (type: string) => (await t.database.db.selectFrom('job').select('id').where('type', '=', type).execute()).length;

/** Moves a spent link's end (as the token would have expired) into the past. */
async function expireSpentLink(token: string) {
  const moved = await t.database.db
    .updateTable('spent_link')
    .set({ expires_at: Date.now() - 1 })
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirst();
  expect(moved.numUpdatedRows).toBe(1n);
}

describe('POST /auth/verify-email with a spent link', () => {
  async function verificationLink() {
    const email = uniqueEmail('twice');
    await register(t, email);
    return { email, token: tokenFromMail(await mailTo(t, email), 'verificationToken') };
  }

  it('answers the same form again as the first time, a session in the account, and does none of its work again', async () => {
    const { email, token } = await verificationLink();
    const first = await verify(t, token);
    expect(first.statusCode, first.body).toBe(200);
    const conversions = await jobsOfType('marketing.complete-registration');
    const again = await verify(t, token);
    expect(again.statusCode, again.body).toBe(200);
    const { accessToken, ...answer } = again.json();
    const { accessToken: firstToken, ...firstAnswer } = first.json();
    expect(answer).toEqual(firstAnswer);
    expect((await me(t, accessToken)).json().email).toBe(email);
    // The first session is not ended, as a password set again would end it; no second conversion.
    expect((await me(t, firstToken)).statusCode).toBe(200);
    expect(await jobsOfType('marketing.complete-registration')).toBe(conversions);
  });

  it("shows the link's page again (GET /auth/verify-email-meta) while the link would still be valid", async () => {
    const { email, token } = await verificationLink();
    const meta = () => t.app.inject({ method: 'GET', url: `/auth/verify-email-meta?verificationToken=${encodeURIComponent(token)}` });
    const before = await meta();
    expect(before.statusCode, before.body).toBe(200);
    expect((await verify(t, token)).statusCode).toBe(200);
    const after = await meta();
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json()).toEqual({ ...before.json(), email, hasPassword: true });
    await expireSpentLink(token);
    expectErrorBody(await meta(), 400, 'Bad Request');
  });

  it('answers three sends at once alike, with one verification', async () => {
    const { token } = await verificationLink();
    const before = await jobsOfType('marketing.complete-registration');
    const answers = await Promise.all([verify(t, token), verify(t, token), verify(t, token)]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    for (const answer of answers) expect((await me(t, answer.json().accessToken)).statusCode).toBe(200);
    expect(await jobsOfType('marketing.complete-registration')).toBe(before + 1);
  });

  it('refuses the spent link with another password (nothing set), in another store, and once it would have expired', async () => {
    const { email, token } = await verificationLink();
    expect((await verify(t, token)).statusCode).toBe(200);
    expectErrorBody(await verify(t, token, undefined, { password: OTHER_PASSWORD, passwordRepeat: OTHER_PASSWORD }), 400, 'Bad Request');
    expect(expectFieldErrors(await login(t, email, OTHER_PASSWORD))).toEqual(['password']);
    expectErrorBody(await verify(t, token, 'WEB2'), 400, 'Bad Request');
    await expireSpentLink(token);
    expectErrorBody(await verify(t, token), 400, 'Bad Request');
    expect((await login(t, email)).statusCode).toBe(200);
  });
});

describe('POST /auth/set-new-password with a spent link', () => {
  const NEW_PASSWORD = 'Uus-parool-kuuse-all-77';
  const setNewPassword = (token: string, password = NEW_PASSWORD) =>
    t.app.inject({
      method: 'POST',
      url: '/auth/set-new-password',
      payload: { passwordResetToken: token, password, passwordRepeat: password },
    });

  /** A reset link to the user's mailbox, as the reset mail brings it. */
  async function resetToken(email: string) {
    expect((await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email } })).statusCode).toBe(200);
    await t.drainJobs();
    return tokenFromMail(mailsTo(t, email).at(-1)!, 'passwordResetToken');
  }

  async function resetLink() {
    const email = uniqueEmail('reset-twice');
    await registerVerified(t, email);
    return { email, token: await resetToken(email) };
  }

  const passwordHashOf = async (email: string) =>
    (await t.database.db.selectFrom('app_user').select('password_hash').where('email', '=', email).executeTakeFirstOrThrow()).password_hash;

  it('answers the same form again with the first 200 {} and sets nothing, ending no session again', async () => {
    const { email, token } = await resetLink();
    const first = await setNewPassword(token);
    expect(first.statusCode, first.body).toBe(200);
    const hash = await passwordHashOf(email);
    // A session opened after the reset: the repeat must not end it, as a reset does.
    const session = (await login(t, email, NEW_PASSWORD)).json().accessToken as string;
    const again = await setNewPassword(token);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await passwordHashOf(email)).toBe(hash);
    expect((await me(t, session)).statusCode).toBe(200);
  });

  it('answers three sends at once alike, with one password set', async () => {
    const { email, token } = await resetLink();
    const answers = await Promise.all([setNewPassword(token), setNewPassword(token), setNewPassword(token)]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    expect((await login(t, email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('sets no second password with the spent link (400), nor the same one once it would have expired', async () => {
    const { email, token } = await resetLink();
    expect((await setNewPassword(token)).statusCode).toBe(200);
    expectErrorBody(await setNewPassword(token, OTHER_PASSWORD), 400, 'Bad Request');
    expect(expectFieldErrors(await login(t, email, OTHER_PASSWORD))).toEqual(['password']);
    // Changed since (here by another reset): the spent link is no repeat of what the user has now.
    await pastResubmitWindow(t.database.db);
    const later = await resetToken(email);
    expect((await setNewPassword(later, OTHER_PASSWORD)).statusCode).toBe(200);
    expectErrorBody(await setNewPassword(token), 400, 'Bad Request');
    expect((await setNewPassword(later, OTHER_PASSWORD)).statusCode).toBe(200);
    await expireSpentLink(later);
    expectErrorBody(await setNewPassword(later, OTHER_PASSWORD), 400, 'Bad Request');
    expect((await login(t, email, OTHER_PASSWORD)).statusCode).toBe(200);
  });
});

describe('POST /user/me/confirm-email with a spent link', () => {
  function confirmToken(mail: ParsedMail): string {
    return /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '')![1]!;
  }

  async function emailChangeLink() {
    const oldEmail = uniqueEmail('change-twice');
    const newEmail = uniqueEmail('changed-twice');
    const access = await registerVerified(t, oldEmail);
    expect((await as(t, access)('PUT', '/user/me', { email: newEmail, currentPassword: GOOD_PASSWORD })).statusCode).toBe(200);
    return { oldEmail, newEmail, access, token: confirmToken(await mailTo(t, newEmail, /Confirm your new email/)) };
  }

  const confirm = (access: string, token: string) => as(t, access)('POST', '/user/me/confirm-email', { token });

  it('answers the link again as the first time and tells the old address once', async () => {
    const { oldEmail, newEmail, access, token } = await emailChangeLink();
    const first = await confirm(access, token);
    expect(first.statusCode, first.body).toBe(200);
    const again = await confirm(access, token);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.json()).toEqual({ email: newEmail });
    await t.drainJobs();
    expect(mailsTo(t, oldEmail).filter((mail) => /email address was changed/.test(mail.subject ?? ''))).toHaveLength(1);
  });

  it('answers two at once alike, with one change', async () => {
    const { oldEmail, newEmail, access, token } = await emailChangeLink();
    const answers = await Promise.all([confirm(access, token), confirm(access, token)]);
    expect(answers.map((answer) => [answer.statusCode, answer.json()])).toEqual([
      [200, { email: newEmail }],
      [200, { email: newEmail }],
    ]);
    await t.drainJobs();
    expect(mailsTo(t, oldEmail).filter((mail) => /email address was changed/.test(mail.subject ?? ''))).toHaveLength(1);
  });

  it('refuses the spent link to another user, and once it would have expired', async () => {
    const { access, token } = await emailChangeLink();
    expect((await confirm(access, token)).statusCode).toBe(200);
    const bob = await registerVerified(t, uniqueEmail('bob'));
    expectErrorBody(await confirm(bob, token), 400, 'Bad Request');
    await expireSpentLink(token);
    expectErrorBody(await confirm(access, token), 400, 'Bad Request');
  });
});
