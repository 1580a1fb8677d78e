import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wholesaleCommand } from '../../src/modules/accounts/index.js';
import {
  changeEmailConfirmed,
  createAccountsTestApp,
  GOOD_PASSWORD,
  mailTo,
  tokenFromMail,
  uniqueEmail,
  verify,
  wholesaleForm,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { as } from '../profile/helpers.js';

// A wholesale application the back office approved is the person's: its account is theirs
// (wholesale_request.client_account_id), and its form holds their name, phone and address. It was
// found for the export and the erasure by the login email alone, so once the person changed that
// address the application (the form and the email it was made with) was missing from the export
// and left whole by the erasure.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t?.close());

const requestOf = (id: number) => t.database.db.selectFrom('wholesale_request').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('an approved wholesale application of a person who changed their login email', () => {
  it('is in their export and is emptied by their erasure', async () => {
    const email = uniqueEmail('hulgi');
    const form = wholesaleForm(email);
    expect((await t.app.inject({ method: 'POST', url: '/auth/register-wholesale', payload: form })).statusCode).toBe(200);
    const { id } = await t.database.db.selectFrom('wholesale_request').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    await wholesaleCommand({ db: t.database.db, config: t.config }, ['approve', String(id)], () => {});
    const verified = await verify(t, tokenFromMail(await mailTo(t, email), 'verificationToken'));
    expect(verified.statusCode, verified.body).toBe(200);
    const token: string = verified.json().accessToken;

    const newEmail = uniqueEmail('uus');
    await changeEmailConfirmed(t, token, newEmail);

    const exported = await as(t, token)('GET', '/client-account/export');
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().account.wholesaleRequests).toEqual([
      expect.objectContaining({
        companyName: form.companyName,
        status: 'APPROVED',
        form: expect.objectContaining({ contact: form.contact }),
      }),
    ]);

    expect((await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD })).statusCode).toBe(204);
    const request = await requestOf(Number(id));
    expect(request.form).toBe('{}');
    expect(request.email).toMatch(/@erased\.invalid$/);
  });
});
