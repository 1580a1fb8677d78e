import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { call, companyMaster } from './fixtures.js';

// An invitation of a new address while another request (a shop registration, say) creates that
// address's user: on PostgreSQL both have looked the address up and found no user, and the second
// insert meets the first's row on the unique key. The invitation must then find that user and make
// the company account beside its retail one, as it does when it comes second; the registration's
// retail account is of another kind and does not stand in its way. On SQLite the two run one after
// the other, so the test shows the same outcome there.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

describe('an invitation racing the creation of its address’s user', () => {
  it('makes the company account beside the new user’s, not a 409', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('racing-invitee');
    const now = Date.now();
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    await whileTransactionOpen(
      t.database.db,
      (trx) =>
        trx
          .insertInto('app_user')
          .values({
            email,
            password_hash: null,
            email_verified: false,
            activated_at: null,
            verification_token_hash: null,
            verification_expires_at: null,
            verification_client_account_id: null,
            reset_token_hash: null,
            reset_expires_at: null,
            first_name: 'Mari',
            last_name: 'Maasikas',
            phone: null,
            birthday: null,
            gender: null,
            newsletter: false,
            terms_accepted_at: now,
            language: 'et',
            created_at: now,
            updated_at: now,
          })
          .execute(),
      async () => {
        answer = await call(t, 'POST', '/company-user', master.token, { email, firstName: 'Tiit', lastName: 'Töötaja', role: 'EMPLOYEE' });
      },
    );
    expect(answer?.statusCode, answer?.body).toBe(200);
    expect(answer?.json()).toMatchObject({ email, status: 'INVITED' });
    const users = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).execute();
    expect(users).toHaveLength(1);
    const accounts = await t.database.db
      .selectFrom('client_account')
      .select(['company_id'])
      .where('user_id', '=', Number(users[0]!.id))
      .execute();
    expect(accounts.map((account) => Number(account.company_id))).toEqual([master.companyId]);
  });
});
