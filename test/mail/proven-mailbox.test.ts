import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberRefused } from '../../src/infra/mail/refused-addresses.js';
import {
  changeEmailConfirmed,
  createAccountsTestApp,
  mailTo,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';

// An address kept as refused (a refusal at RCPT TO, or a late bounce, which a later accepted mail does
// not undo) is taken off once someone follows a link mailed to it: a verification, a password reset,
// an email change's confirmation. The mailbox exists, whatever was said of it before.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const refused = async (email: string) =>
  (await t.database.db.selectFrom('refused_mail_address').select('address').where('address', '=', email).execute()).length > 0;
/** As `mail bounce` keeps an address: a late bounce, which an accepted mail leaves in place. */
const lateBounce = (email: string) => rememberRefused(t.database.db, [email], Date.now(), true);

describe('a mailbox proven by its link', () => {
  it('a verification link followed takes the address off', async () => {
    const email = uniqueEmail('proven-verify');
    expect((await register(t, email)).statusCode).toBe(200);
    const token = tokenFromMail(await mailTo(t, email, /./), 'verificationToken');
    await lateBounce(email);
    expect((await verify(t, token)).statusCode).toBe(200);
    expect(await refused(email)).toBe(false);
  });

  it('a password reset followed takes it off', async () => {
    const email = uniqueEmail('proven-reset');
    await registerVerified(t, email);
    await lateBounce(email);
    const asked = await t.app.inject({ method: 'POST', url: '/auth/reset-password', headers: { store: 'WEB' }, payload: { email } });
    expect(asked.statusCode, asked.body).toBe(200);
    await t.drainJobs();
    // The relay took the reset mail: a late bounce stays for that.
    expect(await refused(email)).toBe(true);
    const token = tokenFromMail(await mailTo(t, email, /Parooli taastamine/), 'passwordResetToken');
    const password = 'Uus-parool-2026!';
    const set = await t.app.inject({
      method: 'POST',
      url: `/auth/set-new-password?passwordResetToken=${token}`,
      payload: { password, passwordRepeat: password },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(await refused(email)).toBe(false);
  });

  it("an email change's confirmation takes the new address off, not someone else's", async () => {
    const email = uniqueEmail('proven-change');
    const accessToken = await registerVerified(t, email);
    const moved = uniqueEmail('proven-new');
    const other = uniqueEmail('proven-other');
    await lateBounce(moved);
    await lateBounce(other);
    await changeEmailConfirmed(t, accessToken, moved);
    expect(await refused(moved)).toBe(false);
    expect(await refused(other)).toBe(true);
  });
});
