import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { expectFieldErrors } from '../helpers/http.js';

// Nobody receives mail at reserved domains, and the social module keeps users without a provider
// email under `<provider>.<subject>@users.invalid`: registering such an address made that
// provider user's sign-in fail. Every route where a user sets an email refuses them.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const company = {
  companyName: 'Raamatukoi OÜ',
  registryCode: '12345678',
  address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
};
const contact = (email: string) => ({ firstName: 'Juku', lastName: 'Tamm', email, phone: '+3725551234' });

const routes: Array<[string, string, (email: string) => Record<string, unknown>]> = [
  ['/auth/register', 'email', (email) => ({ email })],
  ['/auth/register-simple', 'email', (email) => ({ email, firstName: 'Mari', lastName: 'Maasikas' })],
  ['/auth/register-business', 'contact.email', (email) => ({ ...company, contact: contact(email) })],
  ['/auth/register-wholesale', 'contact.email', (email) => ({ ...company, contact: contact(email), expectedYearlyTurnover: 1000 })],
];

const RESERVED = [
  'google.nomail-104411122233344455566@users.invalid',
  'facebook.1234567890@users.INVALID',
  'mari@shop.test',
  'mari@localhost.localhost',
  'mari@example.com',
  'mari@EXAMPLE.NET',
  'mari@mail.example.org',
];

const count = async (table: 'job' | 'app_user' | 'wholesale_request') =>
  Number(
    (
      await t.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.each(routes)('POST %s', (url, field, form) => {
  it.each(RESERVED)('refuses %s with a 422 on the email field and writes nothing', async (email) => {
    await t.drainJobs();
    const before = await Promise.all([count('job'), count('app_user'), count('wholesale_request')]);
    const response = await t.app.inject({ method: 'POST', url, headers: { 'x-app-language': 'en' }, payload: form(email) });
    expect(expectFieldErrors(response)).toEqual([field]);
    expect(response.json()[0].message).toBe('This email address cannot be used; enter an address you receive mail at.');
    await t.drainJobs();
    expect(await Promise.all([count('job'), count('app_user'), count('wholesale_request')])).toEqual(before);
  });

  it('says so in Estonian by default', async () => {
    const response = await t.app.inject({ method: 'POST', url, payload: form('mari@example.com') });
    expect(expectFieldErrors(response)).toEqual([field]);
    expect(response.json()[0].message).toBe('Seda e-posti aadressi ei saa kasutada; sisestage aadress, kuhu teile kirjad jõuavad.');
  });

  it.each(['mari@example.ee', 'mari@myexample.com', 'mari@examples.org', 'mari@test.ee'])('accepts %s', async (email) => {
    const unique = email.replace('mari@', `${uniqueEmail('mari').split('@')[0]}@`);
    expect((await t.app.inject({ method: 'POST', url, payload: form(unique) })).statusCode).toBe(200);
  });
});

it('keeps a provider user’s placeholder address free: no user is created for it', async () => {
  const placeholder = 'google.nomail-555@users.invalid';
  await t.app.inject({ method: 'POST', url: '/auth/register', payload: { email: placeholder } });
  await t.drainJobs();
  expect(await t.database.db.selectFrom('app_user').select('id').where('email', '=', placeholder).execute()).toEqual([]);
});
