import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { RESUBMIT_WINDOW_MS } from '../../src/infra/resubmit.js';
import { INVITATIONS_PER_COMPANY_AND_EMAIL } from '../../src/modules/companies/company-users.service.js';
import {
  createAccountsTestApp,
  login,
  mailsTo,
  mailTo,
  me,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { call, companyMaster, invite } from './fixtures.js';

// A person a company invited who let the link expire (VERIFICATION_TOKEN_TTL, 7 days) had no way
// back: a verified person's password reset mails only the reset link, and inviting them again was a
// 409 (the pending invitation counted as a company account). Inviting again now renews this
// company's invitation: the same company user, a new link mailed through the outbox (the real SMTP
// server), the old link dead at once. Another company's invitation and an accepted account stay a
// 409, and renewals count against the invitation limits.

const DAY_MS = 86_400_000;
// The app's clock, the worker's too (it mints links and runs the outbox by it). It is moved days on only
// to look at a link then, and back for the requests that queue mails. A test that asks
// again with the same form past the resubmit window starts that many windows back (startWindowsBack).
const clock = fixedClock(Date.now());
const startWindowsBack = (windows: number) => clock.set(Date.now() - windows * RESUBMIT_WINDOW_MS);
let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ clock });
});
beforeEach(() => clock.set(Date.now()));
afterAll(() => t.close());
const INVITATION = /^Teid kutsuti ettevõtte .+ kontole – Main store$/;
const EMAIL_HAS_ACCOUNT =
  'Selle e-posti aadressiga on selles veebipoes juba ettevõtte või hulgikliendi konto või kutse; seda ei saa kutsuda.';

const inviteAgain = (token: string, email: string, names = { firstName: 'Tiit', lastName: 'Töötaja' }, role = 'EMPLOYEE') =>
  call(t, 'POST', '/company-user', token, { email, ...names, role });

const invitationMails = (email: string) => mailsTo(t, email).filter((mail) => INVITATION.test(mail.subject ?? ''));

describe("inviting again a person who has not accepted this company's invitation", () => {
  it('renews an invitation a verified person let expire: a new link mailed, the old one dead, the same company user', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('expired');
    await registerVerified(t, email, 'WEB2');
    const invited = await invite(t, master.token, email);
    const expiredLink = tokenFromMail(await mailTo(t, email, INVITATION), 'verificationToken');
    clock.advance(8 * DAY_MS);
    expectErrorBody(await verify(t, expiredLink), 400, 'Bad Request');
    clock.set(Date.now());

    const renewed = await inviteAgain(master.token, email, { firstName: 'Tiina', lastName: 'Tamm' }, 'MASTER');
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect(renewed.json()).toMatchObject({ id: invited.id, clientCode: invited.clientCode, status: 'INVITED', role: 'MASTER' });
    expect(renewed.json()).toMatchObject({ firstName: 'Tiina', lastName: 'Tamm' });
    // The mail waits in the outbox, committed with the renewal; the worker sends it.
    expect(invitationMails(email)).toHaveLength(1);
    await t.drainJobs();
    await t.smtp.waitFor(() => invitationMails(email).length === 2, 5000);
    const link = tokenFromMail(invitationMails(email)[1]!, 'verificationToken');
    expect(link).not.toBe(expiredLink);
    expectErrorBody(await verify(t, expiredLink), 400, 'Bad Request');

    const accepted = await verify(t, link);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect((await me(t, accepted.json().accessToken)).json()).toMatchObject({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
    const users = (await call(t, 'GET', '/company-user?per-page=100', master.token)).json() as Array<{ id: number }>;
    expect(users).toContainEqual(expect.objectContaining({ id: invited.id, email, status: 'ACTIVE', role: 'MASTER' }));
    expect(users).toHaveLength(2);

    // Accepted, the account is a 409 again: nothing is renewed or mailed.
    expectErrorBody(await inviteAgain(master.token, email), 409, 'Conflict');
    await t.drainJobs();
    expect(invitationMails(email)).toHaveLength(2);
  });

  it('kills the link of an invitation still pending as soon as the renewal commits, before its mail is sent', async () => {
    const master = await companyMaster(t, 'WHOLESALE');
    const email = uniqueEmail('pending');
    startWindowsBack(1);
    await invite(t, master.token, email);
    const firstLink = tokenFromMail(await mailTo(t, email, INVITATION), 'verificationToken');

    clock.advance(RESUBMIT_WINDOW_MS);
    expect((await inviteAgain(master.token, email)).statusCode).toBe(200);
    expectErrorBody(await verify(t, firstLink), 400, 'Bad Request');
    await t.drainJobs();
    await t.smtp.waitFor(() => invitationMails(email).length === 2, 5000);
    const accepted = await verify(t, tokenFromMail(invitationMails(email)[1]!, 'verificationToken'));
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect((await me(t, accepted.json().accessToken)).json()).toMatchObject({ role: 'WHOLESALE' });
    expect((await login(t, email)).statusCode).toBe(200);
  });

  it("is a 409 for another company's master, whose invitation leaves the first company's link working", async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const other = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('other-company');
    startWindowsBack(1);
    const invited = await invite(t, master.token, email);
    const link = tokenFromMail(await mailTo(t, email, INVITATION), 'verificationToken');

    for (const token of [other.token, (await companyMaster(t, 'WHOLESALE')).token]) {
      const refused = expectErrorBody(await inviteAgain(token, email), 409, 'Conflict');
      expect(refused.message).toBe(EMAIL_HAS_ACCOUNT);
    }
    // Nor does another company's master reach the invitation by its id.
    expectErrorBody(await call(t, 'PUT', `/company-user/${invited.id}`, other.token, { role: 'MASTER' }), 404, 'Not Found');
    await t.drainJobs();
    expect(invitationMails(email)).toHaveLength(1);
    expect((await call(t, 'GET', '/company-user?per-page=100', other.token)).json()).toHaveLength(1);
    const linkMeta = () => t.app.inject({ method: 'GET', url: `/auth/verify-email-meta?verificationToken=${link}` });
    expect((await linkMeta()).statusCode).toBe(200);

    // The company that invited renews it (past the resubmit window: the same form as its first); the new link joins that company.
    clock.advance(RESUBMIT_WINDOW_MS);
    expect((await inviteAgain(master.token, email)).statusCode).toBe(200);
    await t.drainJobs();
    await t.smtp.waitFor(() => invitationMails(email).length === 2, 5000);
    expectErrorBody(await linkMeta(), 400, 'Bad Request');
    const accepted = await verify(t, tokenFromMail(invitationMails(email)[1]!, 'verificationToken'));
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect((await call(t, 'GET', '/company-user?per-page=100', master.token)).json()).toContainEqual(
      expect.objectContaining({ id: invited.id, status: 'ACTIVE' }),
    );
  });

  it('counts renewals against the invitations one company may send one address: past them a 429, nothing renewed or mailed', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('renewed-often');
    await invite(t, master.token, email);
    // Each with other names: the same form again within the resubmit window would be a repeat, not a renewal.
    for (let renewal = 1; renewal < INVITATIONS_PER_COMPANY_AND_EMAIL.max; renewal += 1) {
      expect((await inviteAgain(master.token, email, { firstName: `Tiit ${renewal}`, lastName: 'Töötaja' })).statusCode).toBe(200);
    }
    await t.drainJobs();
    await t.smtp.waitFor(() => invitationMails(email).length === INVITATIONS_PER_COMPANY_AND_EMAIL.max, 5000);
    const newest = tokenFromMail(invitationMails(email).at(-1)!, 'verificationToken');

    const limited = await inviteAgain(master.token, email);
    expectErrorBody(limited, 429, 'Too Many Requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    await t.drainJobs();
    expect(invitationMails(email)).toHaveLength(INVITATIONS_PER_COMPANY_AND_EMAIL.max);
    // The refused renewal left the newest link as it was.
    expect((await verify(t, newest)).statusCode).toBe(200);
  });

  it('renames a person its own invitation made with the names of the renewal: the link, the company and the person see them after accepting', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('renamed');
    // A new address: the first invitation makes the person's user, with the names typed (one a typo).
    const invited = await invite(t, master.token, email);
    expect(invited).toMatchObject({ firstName: 'Tiit', lastName: 'Töötaja' });
    const renewed = await inviteAgain(master.token, email, { firstName: 'Tiit', lastName: 'Tamm' });
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect(renewed.json()).toMatchObject({ id: invited.id, firstName: 'Tiit', lastName: 'Tamm', status: 'INVITED' });
    await t.drainJobs();
    await t.smtp.waitFor(() => invitationMails(email).length === 2, 5000);
    const link = tokenFromMail(invitationMails(email)[1]!, 'verificationToken');
    const meta = await t.app.inject({ method: 'GET', url: `/auth/verify-email-meta?verificationToken=${link}` });
    expect(meta.statusCode, meta.body).toBe(200);
    expect(meta.json()).toMatchObject({ firstName: 'Tiit', lastName: 'Tamm' });

    const accepted = await verify(t, link);
    expect(accepted.statusCode, accepted.body).toBe(200);
    const users = (await call(t, 'GET', '/company-user?per-page=100', master.token)).json() as Array<{ id: number }>;
    expect(users).toContainEqual(expect.objectContaining({ id: invited.id, status: 'ACTIVE', firstName: 'Tiit', lastName: 'Tamm' }));
    const profile = await call(t, 'GET', '/client-account', accepted.json().accessToken as string);
    expect(profile.json()).toMatchObject({ firstName: 'Tiit', lastName: 'Tamm' });
  });

  it('answers the same form again within the resubmit window as the first left it: no new link, no second mail', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('double-click');
    startWindowsBack(1);
    const invited = await invite(t, master.token, email);
    const link = tokenFromMail(await mailTo(t, email, INVITATION), 'verificationToken');
    clock.advance(RESUBMIT_WINDOW_MS - 1000);
    const repeated = await inviteAgain(master.token, email);
    expect(repeated.statusCode, repeated.body).toBe(200);
    expect(repeated.json()).toEqual(invited);
    await t.drainJobs();
    expect(invitationMails(email)).toHaveLength(1);
    expect((await verify(t, link)).statusCode).toBe(200);
  });
});
