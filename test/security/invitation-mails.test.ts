import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITATIONS_PER_COMPANY, INVITATIONS_PER_COMPANY_AND_EMAIL } from '../../src/modules/companies/company-users.service.js';
import { createAccountsTestApp, mailsTo, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { call, companyMaster } from '../companies/fixtures.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// An invitation mails its address a link under the company's name, which the master typed. Anyone
// can register a company and so become a master: without a limit the shop mailed any address that
// text as often as a master liked, to one address too by removing and inviting it again.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const invitation = (email: string) => ({ email, firstName: 'Tiit', lastName: 'Töötaja', role: 'EMPLOYEE' });

async function invitedUsers(token: string): Promise<number> {
  const response = await call(t, 'GET', '/company-user?per-page=100', token);
  expect(response.statusCode, response.body).toBe(200);
  return Number(response.headers['x-pagination-total-count']);
}

function expectLimited(response: Awaited<ReturnType<typeof call>>) {
  expectErrorBody(response, 429, 'Too Many Requests');
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
}

describe('invitations into a company', () => {
  it('mail one address at most INVITATIONS_PER_COMPANY_AND_EMAIL times an hour from one company, however often it is removed and invited again', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const victim = uniqueEmail('invited-again');
    for (let i = 0; i < INVITATIONS_PER_COMPANY_AND_EMAIL.max; i++) {
      const invited = await call(t, 'POST', '/company-user', master.token, invitation(victim));
      expect(invited.statusCode, invited.body).toBe(200);
      await t.drainJobs();
      const removed = await call(t, 'DELETE', `/company-user/${invited.json().id}`, master.token);
      expect(removed.statusCode, removed.body).toBe(200);
    }
    await t.smtp.waitFor(() => mailsTo(t, victim).length === INVITATIONS_PER_COMPANY_AND_EMAIL.max, 5000);
    const users = await invitedUsers(master.token);

    expectLimited(await call(t, 'POST', '/company-user', master.token, invitation(victim)));
    // The refused one invited nobody and mailed nothing; another address is served.
    const stranger = uniqueEmail('served');
    expect((await call(t, 'POST', '/company-user', master.token, invitation(stranger))).statusCode).toBe(200);
    await t.drainJobs();
    await t.smtp.waitFor(() => mailsTo(t, stranger).length === 1, 5000);
    expect(mailsTo(t, victim)).toHaveLength(INVITATIONS_PER_COMPANY_AND_EMAIL.max);
    expect(await invitedUsers(master.token)).toBe(users + 1);

    // Another company still invites the address: one company cannot keep a person from their employer's invitation.
    const employer = await companyMaster(t, 'WHOLESALE');
    expect((await call(t, 'POST', '/company-user', employer.token, invitation(victim))).statusCode).toBe(200);
    await t.drainJobs();
    await t.smtp.waitFor(() => mailsTo(t, victim).length === INVITATIONS_PER_COMPANY_AND_EMAIL.max + 1, 5000);
  });

  it("are documented as counted: the cap of one address is each company's own, not every company's together", async () => {
    const openapi = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const description = String(openapi.json().paths['/company-user'].post.description);
    expect(description).not.toContain('every company together');
    expect(description).toContain(
      `${INVITATIONS_PER_COMPANY.max} invitations an hour, and ${INVITATIONS_PER_COMPANY_AND_EMAIL.max} of them`,
    );
    expect(description).toContain('each company counts its own');
  });

  it('are at most INVITATIONS_PER_COMPANY an hour from one company, and another company still invites', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    for (let i = 0; i < INVITATIONS_PER_COMPANY.max; i++) {
      const invited = await call(t, 'POST', '/company-user', master.token, invitation(uniqueEmail('many')));
      expect(invited.statusCode, invited.body).toBe(200);
    }
    const users = await invitedUsers(master.token);
    const refused = uniqueEmail('one-too-many');
    expectLimited(await call(t, 'POST', '/company-user', master.token, invitation(refused)));
    expect(await invitedUsers(master.token)).toBe(users);
    await t.drainJobs();
    expect(mailsTo(t, refused)).toHaveLength(0);

    const other = await companyMaster(t, 'BUSINESS');
    expect((await call(t, 'POST', '/company-user', other.token, invitation(refused))).statusCode).toBe(200);
    // Fifty invitations and their fifty mails, drained one after another: 5 s alone on PostgreSQL,
    // more on a loaded machine.
  }, 60_000);
});
