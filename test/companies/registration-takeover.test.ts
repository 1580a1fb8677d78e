import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, mailsTo, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { acceptInvitation, companyMaster, invite } from './fixtures.js';

// A business registration is anyone's form naming anyone as the contact. Naming a person who has a
// business account of a company already (invited, or in use) must change nothing of that company
// or account, and mail nothing: before, the form rewrote the company's name, codes and address and
// put a removed employee's account back to confirmation, so the removed employee was a member again.
// A person a company removed has no such account any more: the form makes them a new company and
// account, and the removed one stays as it was with its company (removed-person-registration.test.ts).

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const form = (email: string) => ({
  companyName: 'Võõras Firma OÜ',
  registryCode: '99999999',
  vatNumber: 'EE999999999',
  address: { street: 'Võõra 1', city: 'Kusagil', postcode: '00000', countryCode: 'EE' },
  contact: { firstName: 'Võõras', lastName: 'Inimene', email, phone: '+3725550000' },
});

async function registerAnonymously(email: string) {
  const response = await t.app.inject({ method: 'POST', url: '/auth/register-business', headers: { store: 'WEB' }, payload: form(email) });
  expect(response.statusCode, response.body).toBe(200);
  await t.drainJobs();
}

const companyOf = (clientAccountId: number) =>
  t.database.db
    .selectFrom('client_account as a')
    .innerJoin('company as c', 'c.id', 'a.company_id')
    .select(['c.id', 'c.name', 'c.registry_code', 'c.vat_number', 'c.street', 'c.city'])
    .where('a.id', '=', clientAccountId)
    .executeTakeFirstOrThrow();

const accountsOf = (email: string) =>
  t.database.db
    .selectFrom('client_account as a')
    .innerJoin('app_user as u', 'u.id', 'a.user_id')
    .select(['a.id', 'a.company_id', 'a.role', 'a.status'])
    .where('u.email', '=', email)
    .orderBy('a.id')
    .execute();

describe("a business registration naming a company's person", () => {
  for (const kind of ['an invited employee', 'an invited master', 'an active employee'] as const) {
    it(`leaves the company and the account of ${kind} as they were, and mails them no link`, async () => {
      const master = await companyMaster(t, 'BUSINESS', 30);
      const email = uniqueEmail('member');
      await invite(t, master.token, email, kind === 'an invited master' ? 'MASTER' : 'EMPLOYEE');
      if (kind === 'an active employee') await acceptInvitation(t, email);
      await t.drainJobs();
      const company = await companyOf(master.clientAccountId);
      const accounts = await accountsOf(email);
      const mails = mailsTo(t, email).length;

      await registerAnonymously(email);

      expect(await companyOf(master.clientAccountId)).toEqual(company);
      expect(await accountsOf(email)).toEqual(accounts);
      expect(mailsTo(t, email)).toHaveLength(mails);
    });
  }

  it("still takes up the contact's own registration that was not confirmed (one company, the newest form)", async () => {
    const email = uniqueEmail('own');
    await registerAnonymously(email);
    const [first] = await accountsOf(email);
    await registerAnonymously(email);
    const again = await accountsOf(email);
    expect(again).toEqual([first]);
    expect((await companyOf(first!.id)).name).toBe('Võõras Firma OÜ');
  });
});
