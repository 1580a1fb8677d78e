import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, mailTo, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createCustomer, emailOf } from '../helpers/customers.js';

// The anonymous account endpoints must not tell, by the work they do, whether an email exists:
// a request for a known email and one for an unknown email write the same rows to the same tables
// (and answer alike); the worker resolves the email later.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
  // The per-address counter of this client exists from here on, for known and unknown alike.
  await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email: uniqueEmail('warm-up') } });
});
afterAll(() => t.close());

/** Rows per table, every table of the schema. */
async function tableCounts(): Promise<Record<string, number>> {
  const tables = await t.database.db.introspection.getTables();
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    if (name.startsWith('kysely_')) continue;
    const row = await t.database.db
      .selectFrom(name as 'job')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    counts[name] = Number(row.n);
  }
  return counts;
}

/** What one request wrote: the tables whose row count changed, and by how much. */
async function rowsWrittenBy(send: () => Promise<{ statusCode: number; body: string }>) {
  const before = await tableCounts();
  const response = await send();
  const after = await tableCounts();
  const written = Object.fromEntries(
    Object.keys(after).flatMap((name) => (after[name] === before[name] ? [] : [[name, after[name]! - (before[name] ?? 0)]])),
  );
  return { response, written };
}

/**
 * A verified user with a simple account in WEB, written straight to the tables: no rate-limit
 * counter exists for the email yet, as for an unknown one.
 */
async function existingEmail(): Promise<string> {
  const customer = await createCustomer(t.database.db, { kind: 'SIMPLE', store: 'WEB' });
  return emailOf(t.database.db, customer);
}

const post = (url: string, payload: Record<string, unknown>) => () =>
  t.app.inject({ method: 'POST', url, headers: { store: 'WEB' }, payload });

function businessForm(email: string) {
  return {
    companyName: 'Raamatukoi OÜ',
    registryCode: '12345678',
    address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
    contact: { firstName: 'Juku', lastName: 'Tamm', email, phone: '+3725551234' },
  };
}
const wholesaleForm = (email: string) => ({ ...businessForm(email), expectedYearlyTurnover: 1000 });

describe.each([
  ['POST /auth/reset-password', (email: string) => post('/auth/reset-password', { email })],
  ['POST /auth/register', (email: string) => post('/auth/register', { email })],
  ['POST /auth/register-simple', (email: string) => post('/auth/register-simple', { email, firstName: 'Mari', lastName: 'Maasikas' })],
  ['POST /auth/register-business', (email: string) => post('/auth/register-business', businessForm(email))],
  ['POST /auth/register-wholesale', (email: string) => post('/auth/register-wholesale', wholesaleForm(email))],
])('%s', (_route, request) => {
  it('writes the same rows and answers the same for a known and an unknown email', async () => {
    await t.drainJobs();
    const known = await rowsWrittenBy(request(await existingEmail()));
    const unknown = await rowsWrittenBy(request(uniqueEmail('nobody')));
    expect(known.response.statusCode, known.response.body).toBe(200);
    expect(unknown.response.statusCode).toBe(known.response.statusCode);
    const withoutEmail = (body: string) => body.replace(/"email":"[^"]*"/g, '"email":"x"');
    expect(withoutEmail(unknown.response.body)).toBe(withoutEmail(known.response.body));
    expect(unknown.written).toEqual(known.written);
    expect(known.written.job).toBe(1);
  });
});

it('still mails the reset link to an existing user, from the worker', async () => {
  const email = await existingEmail();
  expect((await post('/auth/reset-password', { email: email.toUpperCase() })()).statusCode).toBe(200);
  const mail = await mailTo(t, email, /Parooli/);
  expect(mail.text).toMatch(/passwordResetToken=[A-Za-z0-9_-]{43}/);
});

it('queues the normalised email, not a user id', async () => {
  const email = await existingEmail();
  await t.drainJobs();
  await post('/auth/reset-password', { email: email.toUpperCase() })();
  const job = await t.database.db
    .selectFrom('job')
    .select('payload')
    .where('status', '=', 'pending')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  expect(JSON.parse(job.payload)).toEqual({ kind: 'resetRequest', email, storeCode: 'WEB', language: 'et' });
});
