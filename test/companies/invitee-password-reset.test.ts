import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  login,
  mailsTo,
  mailTo,
  me,
  register,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { companyMaster, invite } from './fixtures.js';

// A person a company invited who has not accepted yet, and asks for a password reset (they have no
// password: the invitation's link sets it), gets the invitation mailed again, naming the company,
// with a new link that replaces the one mailed before; not the shop's generic "confirm your email"
// of a registration they never made. The reset's answer is the same for every address, and the
// mail goes through the real SMTP server.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const INVITATION = /^Teid kutsuti ettevõtte .+ kontole – Main store$/;
const VERIFICATION = /Kinnitage oma e-posti aadress/;

const requestReset = (email: string) =>
  t.app.inject({ method: 'POST', url: '/auth/reset-password', headers: { store: 'WEB' }, payload: { email } });

describe('a password reset asked for by a person invited to a company who has not accepted', () => {
  it('mails the invitation again, whose new link accepts it and sets the password; the old link is replaced', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('invitee');
    await invite(t, master.token, email);
    const first = await mailTo(t, email, INVITATION);
    const firstLink = tokenFromMail(first, 'verificationToken');

    const asked = await requestReset(email);
    const unknown = await requestReset(uniqueEmail('nobody'));
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toBe(unknown.body);
    await t.drainJobs();

    const mails = mailsTo(t, email);
    expect(mails).toHaveLength(2);
    const again = mails[1]!;
    expect(again.subject).toBe(first.subject);
    expect(again.subject).not.toMatch(VERIFICATION);
    expect(again.text).not.toContain('passwordResetToken');
    const link = tokenFromMail(again, 'verificationToken');
    expect(link).not.toBe(firstLink);

    expectErrorBody(await verify(t, firstLink), 400, 'Bad Request');
    const accepted = await verify(t, link);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect((await me(t, accepted.json().accessToken)).json()).toMatchObject({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
    expect((await login(t, email)).statusCode).toBe(200);
  });

  it('still sends a retail registrant who never verified the verification mail, not an invitation', async () => {
    const email = uniqueEmail('registrant');
    expect((await register(t, email)).statusCode).toBe(200);
    await mailTo(t, email, VERIFICATION);
    expect((await requestReset(email)).statusCode).toBe(200);
    await t.drainJobs();
    const again = mailsTo(t, email).at(-1)!;
    expect(again.subject).toMatch(VERIFICATION);
    expect((await verify(t, tokenFromMail(again, 'verificationToken'))).statusCode).toBe(200);
  });

  it('mails a person with both a retail registration and an invitation here both links, the newer first; each does its own', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('both');
    expect((await register(t, email)).statusCode).toBe(200);
    await invite(t, master.token, email);
    await mailTo(t, email, INVITATION);
    const before = mailsTo(t, email).length;

    expect((await requestReset(email)).statusCode).toBe(200);
    await t.drainJobs();
    const mails = mailsTo(t, email).slice(before);
    expect(
      mails.map((mail) =>
        INVITATION.test(mail.subject ?? '') ? 'invitation' : VERIFICATION.test(mail.subject ?? '') ? 'verification' : mail.subject,
      ),
    ).toEqual(['invitation', 'verification']);
    // The retail link confirms the address and logs in as the customer; the company's stays to be accepted.
    const retail = await verify(t, tokenFromMail(mails[1]!, 'verificationToken'));
    expect(retail.statusCode, retail.body).toBe(200);
    expect((await me(t, retail.json().accessToken)).json()).toMatchObject({ role: 'SIMPLE' });
    const accepted = await verify(t, tokenFromMail(mails[0]!, 'verificationToken'));
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect((await me(t, accepted.json().accessToken)).json()).toMatchObject({ role: 'BUSINESS' });
  });
});
