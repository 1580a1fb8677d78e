import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  login,
  verify,
  mailsTo,
  mailTo,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { acceptInvitation, companyMaster, invite } from '../companies/fixtures.js';

// A password reset completed (POST /auth/set-new-password) replaced the password and ended every
// session, and told the account's address nothing: whoever had the link (a mailbox read over a
// shoulder, a forwarded mail) had the account and its owner did not learn of it. The login email
// is now told, in the user's language, by a mail queued in the transaction that replaces the
// password: no link and no token in it. A first password (a registration's verification, a company's
// invitation) is no change and is not told; a person erased before the mail went gets nothing.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const NEW_PASSWORD = 'Uus-parool-kuuse-all-77';
const CHANGED = /^(Your password was changed|Teie parool muudeti|Ваш пароль изменён) – /;

const notices = (email: string) => mailsTo(t, email).filter((mail) => CHANGED.test(mail.subject ?? ''));

const setNewPassword = (token: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/set-new-password',
    headers,
    payload: { passwordResetToken: token, password: NEW_PASSWORD, passwordRepeat: NEW_PASSWORD },
  });

/** A verified user (their mails in `language`) with the token of a reset link mailed to them. */
async function userWithResetLink(language: 'et' | 'en' | 'ru' = 'et') {
  const email = uniqueEmail('changed');
  await registerVerified(t, email);
  await t.database.db.updateTable('app_user').set({ language }).where('email', '=', email).execute();
  const asked = await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email } });
  expect(asked.statusCode, asked.body).toBe(200);
  const token = tokenFromMail(await mailTo(t, email, /Parooli taastamine/), 'passwordResetToken');
  return { email, token };
}

describe('a password reset completed', () => {
  it("mails the login email that the password was changed, in the user's language, with no link or token", async () => {
    const { email, token } = await userWithResetLink('en');
    // The request's language is the page's; the notice is in the language of the user's mails.
    const changed = await setNewPassword(token, { 'x-app-language': 'ru' });
    expect(changed.statusCode, changed.body).toBe(200);
    const mail = await mailTo(t, email, CHANGED);
    expect(mail.subject).toBe('Your password was changed – Main store');
    expect(mail.text).toMatch(/^Hello Mari,/);
    expect(mail.text).toContain('A new password was set for your account in Main store with the password reset link');
    expect(mail.text).toContain('If this was not you, reset your password at once and contact us.');
    for (const secret of [token, NEW_PASSWORD, 'passwordResetToken', 'verificationToken', 'http']) {
      expect(mail.text).not.toContain(secret);
      expect(mail.html).not.toContain(secret);
    }
    expect(notices(email)).toHaveLength(1);
  });

  it.each([
    ['et', 'Teie parool muudeti – Main store'],
    ['ru', 'Ваш пароль изменён – Main store'],
  ] as const)('writes it in %s for a user of that language', async (language, subject) => {
    const { email, token } = await userWithResetLink(language);
    expect((await setNewPassword(token)).statusCode).toBe(200);
    expect((await mailTo(t, email, CHANGED)).subject).toBe(subject);
  });

  it('mails once: the link used again is a 400 that mails nothing, as is a new password refused', async () => {
    const { email, token } = await userWithResetLink();
    const refused = await t.app.inject({
      method: 'POST',
      url: '/auth/set-new-password',
      payload: { passwordResetToken: token, password: 'Lühike1', passwordRepeat: 'Lühike1' },
    });
    expect(refused.statusCode).toBe(422);
    expect((await setNewPassword(token)).statusCode).toBe(200);
    expect((await setNewPassword(token)).statusCode).toBe(400);
    await t.drainJobs();
    expect(notices(email)).toHaveLength(1);
  });

  it('the same link sent twice at once: one 200, one 400, one mail', async () => {
    const { email, token } = await userWithResetLink();
    const statuses = (await Promise.all([setNewPassword(token), setNewPassword(token)])).map((r) => r.statusCode);
    expect(statuses.sort()).toEqual([200, 400]);
    await t.drainJobs();
    expect(notices(email)).toHaveLength(1);
  });

  it('mails nothing to a person erased before the mail went out', async () => {
    const { email, token } = await userWithResetLink();
    const { id: userId } = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    expect((await setNewPassword(token)).statusCode).toBe(200);
    const loggedIn = await login(t, email, NEW_PASSWORD);
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    const erased = await t.app.inject({
      method: 'DELETE',
      url: '/client-account',
      headers: { authorization: `Bearer ${loggedIn.json().accessToken}` },
      payload: { password: NEW_PASSWORD },
    });
    expect(erased.statusCode, erased.body).toBe(204);
    await t.drainJobs();
    expect(notices(email)).toEqual([]);
    const jobs = await t.database.db.selectFrom('job').select(['payload', 'result']).where('type', '=', 'account.mail').execute();
    const notice = jobs.filter((job) => {
      const mail = JSON.parse(job.payload) as { kind: string; userId?: number };
      return mail.kind === 'passwordChanged' && mail.userId === userId;
    });
    expect(notice.map((job) => job.result)).toEqual(['skipped']);
  });
});

describe('a first password', () => {
  it("set by a registration's verification is not told as a change", async () => {
    const email = uniqueEmail('first');
    await registerVerified(t, email);
    await t.drainJobs();
    expect(notices(email)).toEqual([]);
  });

  it("set by accepting a company's invitation is not told as a change", async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('invitee');
    await invite(t, master.token, email);
    await acceptInvitation(t, email);
    await t.drainJobs();
    expect(mailsTo(t, email)).toHaveLength(1);
    expect(notices(email)).toEqual([]);
  });
});

describe('a password replaced through a verification or invitation link', () => {
  // A person who has an account with a password is invited to a company: following the invitation
  // link sets a password, so it replaces theirs (and ends their sessions). Whoever held the link (a
  // forwarded invitation) had the account, and the owner was told nothing.
  it("by accepting a company's invitation tells the login email, naming the invitation", async () => {
    const email = uniqueEmail('invited-existing');
    await registerVerified(t, email);
    await t.database.db.updateTable('app_user').set({ language: 'en' }).where('email', '=', email).execute();
    const master = await companyMaster(t, 'BUSINESS');
    await invite(t, master.token, email);
    const invitation = await mailTo(t, email, /^You are invited to the account of /);
    const accepted = await verify(t, tokenFromMail(invitation, 'verificationToken'), undefined, {
      password: NEW_PASSWORD,
      passwordRepeat: NEW_PASSWORD,
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const notice = await mailTo(t, email, CHANGED);
    expect(notice.subject).toBe('Your password was changed – Main store');
    expect(notice.text).toContain("A new password was set for your account in Main store with a company's invitation link");
    expect(notice.text).not.toContain('password reset link');
    for (const secret of [NEW_PASSWORD, 'verificationToken', 'http']) expect(notice.text).not.toContain(secret);
    expect(notices(email)).toHaveLength(1);
    expect((await login(t, email, NEW_PASSWORD, 'WEB', 'BUSINESS')).statusCode).toBe(200);
  });
});
