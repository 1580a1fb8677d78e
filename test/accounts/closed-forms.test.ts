import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';

// The anonymous account forms are stored as they arrive: a registration as its outbox job, a
// wholesale application as its row. A field the form does not name is dropped, not stored: kept,
// it let anyone store a megabyte of anything per request, and an address in it put the job into
// the export (and the erasure) of whoever owns that address.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const wholesaleForm = (email: string) => ({
  companyName: 'Hulgi OÜ',
  registryCode: '12345678',
  address: { street: 'Pikk 1', city: 'Tartu', postcode: '50101', countryCode: 'EE' },
  contact: { firstName: 'Hulk', lastName: 'Tamm', email, phone: '+3725551234' },
  expectedYearlyTurnover: 10_000,
});

async function outboxOf(accessToken: string): Promise<Array<{ type: string }>> {
  const response = await t.app.inject({
    method: 'GET',
    url: '/client-account/export',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().outbox;
}

describe('fields the account forms do not name', () => {
  it("a registration's extra fields are dropped: its job does not name a stranger, nor holds what they sent", async () => {
    const stranger = uniqueEmail('stranger');
    const strangerToken = await registerVerified(t, stranger);
    const before = await outboxOf(strangerToken);

    const email = uniqueEmail('sender');
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/register',
      payload: { email, note: stranger, nested: { list: [stranger] }, padding: 'x'.repeat(10_000) },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ email });

    const jobs = await t.database.db.selectFrom('job').select('payload').where('type', '=', 'account.mail').execute();
    const queued = jobs.map((job) => JSON.parse(job.payload)).filter((payload) => payload.form?.email === email);
    expect(queued).toEqual([{ kind: 'registration', form: { email }, storeCode: 'WEB', language: 'et' }]);
    expect(await outboxOf(strangerToken)).toEqual(before);
  });

  it('a wholesale application stores the form it names, nested objects included', async () => {
    const email = uniqueEmail('wholesale');
    const form = wholesaleForm(email);
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/register-wholesale',
      payload: {
        ...form,
        address: { ...form.address, extra: 'a'.repeat(1000) },
        contact: { ...form.contact, other: uniqueEmail('other') },
        padding: 'x'.repeat(100_000),
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual(form);

    const row = await t.database.db.selectFrom('wholesale_request').select('form').where('email', '=', email).executeTakeFirstOrThrow();
    expect(JSON.parse(row.form)).toEqual(form);
  });
});
