import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailTo,
  mailsTo,
  me,
  registerVerified,
  uniqueEmail,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { hashToken } from '../../src/infra/tokens.js';
import { createCustomer, userIdOf } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { pastResubmitWindow } from '../helpers/resubmit.js';
import { as } from './helpers.js';
import { MINUTE, keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow(15 * MINUTE);

// PUT /user/me and POST /user/me/confirm-email: the login email changes only once the new address
// confirms it (the old one is told), the password only with the current one; either ends the other
// sessions.
// Users are made through the real registration and mails go to a real SMTP server.

let t: AccountsTestApp;
const NEW_PASSWORD = 'Kuusk-sosistab-tuules-77';

beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(async () => t?.close());

function confirmToken(mail: ParsedMail): string {
  const match = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
  expect(match, mail.text).not.toBeNull();
  return match![1]!;
}

async function putMe(token: string, body: unknown, language = 'en') {
  return as(t, token)('PUT', '/user/me', body, language);
}

async function confirm(token: string, mailToken: string) {
  return as(t, token)('POST', '/user/me/confirm-email', { token: mailToken });
}

describe('email change', () => {
  it('takes effect only once the new address confirms it; the old address is told', async () => {
    const oldEmail = uniqueEmail('old');
    const newEmail = uniqueEmail('new');
    const access = await registerVerified(t, oldEmail);
    const asked = await putMe(access, { email: newEmail.toUpperCase(), currentPassword: GOOD_PASSWORD }, 'et');
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.headers['cache-control']).toBe('no-store');
    expect(asked.json()).toEqual({ email: oldEmail, pendingEmail: newEmail, passwordChanged: false });

    const mail = await mailTo(t, newEmail, /Kinnitage oma uus e-posti aadress/);
    expect(mail.text).toContain('/confirm-email?token=');
    // Nothing changed yet: the old email still logs in, the new one does not.
    expect((await me(t, access)).json().email).toBe(oldEmail);
    expect((await login(t, newEmail)).statusCode).toBe(422);
    const stored = await t.database.db.selectFrom('email_change').selectAll().executeTakeFirstOrThrow();
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.token_hash).not.toBe(confirmToken(mail));

    const confirmed = await confirm(access, confirmToken(mail));
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toEqual({ email: newEmail });
    expect((await me(t, access)).json().email).toBe(newEmail);
    expect((await login(t, newEmail)).statusCode).toBe(200);
    expect((await login(t, oldEmail)).statusCode).toBe(422);
    const told = await mailTo(t, oldEmail, /email address was changed/);
    expect(told.text).toContain(newEmail);
    // The marketing platform hears of the new address in the same transaction.
    const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', newEmail).executeTakeFirstOrThrow();
    const updates = await t.database.db
      .selectFrom('integration_event')
      .select('data')
      .where('stream', '=', `customer:${user.id}`)
      .where('type', '=', 'customer.updated')
      .execute();
    expect(updates.map((row) => JSON.parse(row.data).email)).toEqual([newEmail]);
    // The same link again soon after (a double click, the page reloaded) answers what the first did,
    // and changes and tells nothing more; later it is used up.
    const again = await confirm(access, confirmToken(mail));
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({ email: newEmail });
    await t.drainJobs();
    expect(mailsTo(t, oldEmail).filter((m) => /email address was changed/.test(m.subject ?? ''))).toHaveLength(1);
    await pastResubmitWindow(t.database.db);
    expectErrorBody(await confirm(access, confirmToken(mail)), 400, 'Bad Request');
  });

  it('answers a double click on the link (two confirmations at once) with the same change, made and told once', async () => {
    const oldEmail = uniqueEmail('double');
    const newEmail = uniqueEmail('doubled');
    const access = await registerVerified(t, oldEmail);
    expect((await putMe(access, { email: newEmail, currentPassword: GOOD_PASSWORD })).statusCode).toBe(200);
    const token = confirmToken(await mailTo(t, newEmail, /Confirm your new email/));
    const answers = await Promise.all([confirm(access, token), confirm(access, token)]);
    expect(answers.map((answer) => [answer.statusCode, answer.json()])).toEqual([
      [200, { email: newEmail }],
      [200, { email: newEmail }],
    ]);
    await t.drainJobs();
    expect(mailsTo(t, oldEmail).filter((m) => /email address was changed/.test(m.subject ?? ''))).toHaveLength(1);
    // Another user presenting the used link gets nothing from it.
    expectErrorBody(await confirm(await registerVerified(t, uniqueEmail('other')), token), 400, 'Bad Request');
  });

  it("ends the user's other sessions on confirmation and keeps the caller's", async () => {
    const oldEmail = uniqueEmail('moves');
    const newEmail = uniqueEmail('moved');
    const mine = await registerVerified(t, oldEmail);
    // Another device's session (or a token taken from one).
    const other = (await login(t, oldEmail)).json().accessToken as string;
    const bystander = await registerVerified(t, uniqueEmail('bystander'));
    expect((await putMe(mine, { email: newEmail, currentPassword: GOOD_PASSWORD })).statusCode).toBe(200);
    const mail = await mailTo(t, newEmail, /Confirm your new email/);
    // Asking alone ends nothing: the address is not the login yet.
    expect((await me(t, other)).statusCode).toBe(200);
    expect((await confirm(mine, confirmToken(mail))).statusCode).toBe(200);
    expectErrorBody(await me(t, other), 401, 'Unauthorized');
    expect((await me(t, mine)).json().email).toBe(newEmail);
    // Somebody else's sessions are not touched.
    expect((await me(t, bystander)).statusCode).toBe(200);
  });

  it('answers the same whether the address is taken, and refuses the confirmation with a 409', async () => {
    const taken = uniqueEmail('taken');
    await registerVerified(t, taken);
    const email = uniqueEmail('wants');
    const access = await registerVerified(t, email);
    const free = uniqueEmail('free');
    const answerTaken = await putMe(access, { email: taken, currentPassword: GOOD_PASSWORD });
    expect(answerTaken.statusCode).toBe(200);
    expect(answerTaken.json()).toEqual({ email, pendingEmail: taken, passwordChanged: false });
    const first = await mailTo(t, taken, /Confirm your new email/);
    const answerFree = await putMe(access, { email: free, currentPassword: GOOD_PASSWORD });
    expect(answerFree.statusCode).toBe(200);
    expect(answerFree.json()).toEqual({ email, pendingEmail: free, passwordChanged: false });
    const second = await mailTo(t, free, /Confirm your new email/);

    // The newer request replaced the older: the first link is dead.
    expectErrorBody(await confirm(access, confirmToken(first)), 400, 'Bad Request');
    await putMe(access, { email: taken, currentPassword: GOOD_PASSWORD });
    await t.drainJobs();
    const toTaken = mailsTo(t, taken).filter((m) => /Confirm your new email/.test(m.subject ?? ''));
    expect(toTaken).toHaveLength(2);
    expectErrorBody(await confirm(access, confirmToken(second)), 400, 'Bad Request');
    // Decided on confirmation: the address is another user's login.
    expectErrorBody(await confirm(access, confirmToken(toTaken[1]!)), 409, 'Conflict');
    expect((await me(t, access)).json().email).toBe(email);
  });

  it("refuses another user's token, a garbled one, and wrong input", async () => {
    const alice = await registerVerified(t, uniqueEmail('alice'));
    const bob = await registerVerified(t, uniqueEmail('bob'));
    const target = uniqueEmail('target');
    await putMe(alice, { email: target, currentPassword: GOOD_PASSWORD });
    const token = confirmToken(await mailTo(t, target, /Confirm/));
    expectErrorBody(await confirm(bob, token), 400, 'Bad Request');
    expectErrorBody(await confirm(alice, 'not-a-token'), 400, 'Bad Request');
    expectFieldErrors(await as(t, alice)('POST', '/user/me/confirm-email', {}));
    expectFieldErrors(await as(t, alice)('POST', '/user/me/confirm-email', { token: 42 }));

    expect(expectFieldErrors(await putMe(alice, { email: target }))).toEqual(['currentPassword']);
    expect(expectFieldErrors(await putMe(alice, { email: 'nope', currentPassword: GOOD_PASSWORD }))).toEqual(['email']);
    expect(expectFieldErrors(await putMe(alice, { email: 'someone@example.com', currentPassword: GOOD_PASSWORD }))).toEqual(['email']);
    expect(expectFieldErrors(await putMe(alice, {}))).toEqual(['email']);
    expect(expectFieldErrors(await putMe(alice, { email: uniqueEmail(), currentPassword: 'wrong-password-1' }))).toEqual([
      'currentPassword',
    ]);
    // The link still works after all that.
    expect((await confirm(alice, token)).statusCode).toBe(200);
  });
});

describe('email change of a user without a password', () => {
  it('needs a sign-in of the last 10 minutes: an old token alone cannot move the account to another address', async () => {
    const db = t.database.db;
    const user = await createCustomer(db);
    const stale = { created_at: Date.now() - 11 * 60_000 };
    await db.updateTable('access_token').set(stale).where('token_hash', '=', hashToken(user.token)).execute();
    const refused = await putMe(user.token, { email: uniqueEmail('elsewhere') });
    expectErrorBody(refused, 403, 'Forbidden');
    expect(
      await db
        .selectFrom('email_change')
        .selectAll()
        .where('user_id', '=', await userIdOf(db, user))
        .execute(),
    ).toEqual([]);
    await db.updateTable('access_token').set({ created_at: Date.now() }).where('token_hash', '=', hashToken(user.token)).execute();
    expect((await putMe(user.token, { email: uniqueEmail('elsewhere') })).statusCode).toBe(200);
  });
});

describe('password change', () => {
  it('needs the current password, keeps the caller logged in and ends the other sessions', async () => {
    const email = uniqueEmail('pw');
    const mine = await registerVerified(t, email);
    const other = (await login(t, email)).json().accessToken as string;
    expect((await me(t, other)).statusCode).toBe(200);

    expect(expectFieldErrors(await putMe(mine, { newPassword: NEW_PASSWORD, newPasswordRepeat: NEW_PASSWORD }))).toEqual([
      'currentPassword',
    ]);
    expect(
      expectFieldErrors(
        await putMe(mine, { currentPassword: 'Wrong-password-99', newPassword: NEW_PASSWORD, newPasswordRepeat: NEW_PASSWORD }),
      ),
    ).toEqual(['currentPassword']);
    expect(
      expectFieldErrors(await putMe(mine, { currentPassword: GOOD_PASSWORD, newPassword: 'short', newPasswordRepeat: 'short' })),
    ).toEqual(['newPassword']);
    expect(
      expectFieldErrors(await putMe(mine, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD, newPasswordRepeat: 'other' })),
    ).toEqual(['newPasswordRepeat']);
    expect(expectFieldErrors(await putMe(mine, { currentPassword: GOOD_PASSWORD, newPassword: email, newPasswordRepeat: email }))).toEqual([
      'newPassword',
    ]);
    expect((await me(t, other)).statusCode).toBe(200);

    const changed = await putMe(mine, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD, newPasswordRepeat: NEW_PASSWORD });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toEqual({ email, pendingEmail: null, passwordChanged: true });
    expect((await me(t, mine)).statusCode).toBe(200);
    expectErrorBody(await me(t, other), 401, 'Unauthorized');
    expect((await login(t, email)).statusCode).toBe(422);
    expect((await login(t, email, NEW_PASSWORD)).statusCode).toBe(200);
    await mailTo(t, email, /password was changed/);
  });

  it('counts wrong current passwords with the login throttle: past the limit a 429', async () => {
    const limited = await createAccountsTestApp({ env: { LOGIN_FAILURES_PER_ADDRESS: '3/15m' } });
    try {
      const email = uniqueEmail('throttle');
      const access = await registerVerified(limited, email);
      const put = (body: unknown) => as(limited, access)('PUT', '/user/me', body);
      const wrong = { currentPassword: 'Wrong-password-99', newPassword: NEW_PASSWORD, newPasswordRepeat: NEW_PASSWORD };
      for (let i = 0; i < 3; i += 1) expect((await put(wrong)).statusCode).toBe(422);
      const refused = await put(wrong);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBeDefined();
      // The login from this address is refused too: it is the same count.
      expect((await login(limited, email)).statusCode).toBe(429);
      expect(mailsTo(limited, email).filter((m) => /password was changed/.test(m.subject ?? ''))).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});
