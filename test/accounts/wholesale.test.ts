import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliUsageError } from '../../src/infra/cli-usage.js';
import { wholesaleCommand } from '../../src/modules/accounts/index.js';
import {
  BACKOFFICE,
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailsTo,
  mailTo,
  me,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  wholesaleForm,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectFieldErrors } from '../helpers/http.js';
import { acceptInvitation, call, companyMaster, invite } from '../companies/fixtures.js';

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const applyForWholesale = (form: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/auth/register-wholesale', headers, payload: form });

/** Runs `storefront wholesale <args>` in-process and returns what it printed. */
async function wholesale(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  await wholesaleCommand({ db: t.database.db, config: t.config }, args, (line) => lines.push(line));
  return lines;
}

/** What `wholesale <args>` refuses though its command line is right: the message it exits 1 with (not a usage error, exit 2). */
async function refusal(args: string[]): Promise<string> {
  const error: unknown = await wholesale(args).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(CliUsageError);
  return (error as Error).message;
}

const requestOf = (email: string) =>
  t.database.db.selectFrom('wholesale_request').selectAll().where('email', '=', email).executeTakeFirstOrThrow();

const accountsOf = (email: string) =>
  t.database.db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['client_account.store_code', 'client_account.type', 'client_account.company_id'])
    .where('app_user.email', '=', email)
    .orderBy('client_account.id')
    .execute();

/** Applies and returns the id of the pending request. */
async function pendingRequest(email: string): Promise<number> {
  const response = await applyForWholesale(wholesaleForm(email));
  expect(response.statusCode, response.body).toBe(200);
  return Number((await requestOf(email)).id);
}

describe('POST /auth/register-wholesale', () => {
  it('records a pending request, echoes the form and tells the back office how to decide', async () => {
    const email = uniqueEmail('wholesale');
    const form = wholesaleForm(email);
    const response = await applyForWholesale(form);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual(form);

    const request = await requestOf(email);
    expect(request).toMatchObject({
      status: 'PENDING',
      store_code: 'WEB',
      company_name: form.companyName,
      client_account_id: null,
      decided_at: null,
    });
    expect(JSON.parse(request.form)).toEqual(form);

    const office = await mailTo(t, BACKOFFICE, new RegExp(form.companyName));
    expect(office.subject).toBe(`New wholesale registration: ${form.companyName} (WEB)`);
    expect(office.text).toContain(email);
    expect(office.text).toContain(`wholesale approve ${request.id}`);
    expect(office.text).toContain(`wholesale reject ${request.id}`);

    // Nothing exists for the contact until the back office approves.
    expect(mailsTo(t, email)).toEqual([]);
    expect(await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).execute()).toEqual([]);
    expect(expectFieldErrors(await login(t, email))).toEqual(['password']);
    expect(await wholesale(['list'])).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^${request.id}\\t.*\\t${email}\\tWEB$`))]),
    );
  });

  it('records a request made in WEB2 for WEB, where wholesale customers buy', async () => {
    const email = uniqueEmail('wholesale');
    expect((await applyForWholesale(wholesaleForm(email), { store: 'WEB2' })).statusCode).toBe(200);
    expect((await requestOf(email)).store_code).toBe('WEB');
  });

  it.each([
    [{ expectedYearlyTurnover: '250000' }, ['expectedYearlyTurnover']],
    [{ expectedYearlyTurnover: 12.5 }, ['expectedYearlyTurnover']],
    [{ expectedYearlyTurnover: -1 }, ['expectedYearlyTurnover']],
    [{ expectedYearlyTurnover: undefined }, ['expectedYearlyTurnover']],
    [{ message: 'x'.repeat(2001) }, ['message']],
    [{ companyName: undefined, registryCode: '!' }, ['companyName', 'registryCode']],
  ])('refuses %j with a 422 and records nothing', async (change, fields) => {
    const email = uniqueEmail('wholesale');
    const form = { ...wholesaleForm(email), ...change };
    expect(expectFieldErrors(await applyForWholesale(form)).sort()).toEqual(fields);
    expect(await t.database.db.selectFrom('wholesale_request').select('id').where('email', '=', email).execute()).toEqual([]);
  });
});

describe('wholesale approve', () => {
  it('creates the wholesale account; after verifying, the contact logs in to WEB as WHOLESALE and not to WEB2', async () => {
    const email = uniqueEmail('wholesale');
    const id = await pendingRequest(email);

    const printed = await wholesale(['approve', String(id)]);
    expect(printed).toEqual([expect.stringMatching(new RegExp(`^Approved request ${id}: wholesale account W\\d{8}$`))]);
    const request = await requestOf(email);
    expect(request.status).toBe('APPROVED');
    expect(request.client_account_id).toEqual(expect.any(Number));
    expect(request.decided_at).toEqual(expect.any(Number));
    expect(await accountsOf(email)).toEqual([{ store_code: 'WEB', type: 'WHOLESALE', company_id: expect.any(Number) }]);

    const mail = await mailTo(t, email);
    expect(mail.subject).toBe('Kinnitage oma e-posti aadress – Main store');
    const verified = await verify(t, tokenFromMail(mail, 'verificationToken'));
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json().webStoreNavCode).toBe('WEB');

    const loggedIn = await login(t, email);
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    expect((await me(t, loggedIn.json().accessToken)).json()).toMatchObject({
      email,
      webStoreNavCode: 'WEB',
      role: 'WHOLESALE',
      roles: ['WHOLESALE'],
    });

    expect(expectFieldErrors(await login(t, email, GOOD_PASSWORD, 'WEB2'))).toEqual(['web_store_nav_code']);
    expect(expectFieldErrors(await login(t, email, GOOD_PASSWORD, 'WEB2', 'WHOLESALE'))).toEqual(['web_store_nav_code']);
    expect(await accountsOf(email)).toHaveLength(1);
  });

  it('mails the verification in the language of the application', async () => {
    const email = uniqueEmail('wholesale');
    expect((await applyForWholesale(wholesaleForm(email), { 'x-app-language': 'en' })).statusCode).toBe(200);
    await wholesale(['approve', String((await requestOf(email)).id)]);
    expect((await mailTo(t, email)).subject).toBe('Confirm your email address – Main store');
  });

  it('asks a contact who already has a password to confirm the account, which is unusable until then', async () => {
    const email = uniqueEmail('retail');
    await registerVerified(t, email);
    const id = await pendingRequest(email);
    await wholesale(['approve', String(id)]);
    const mail = await mailTo(t, email, /hulgikliendi konto/);
    expect(mail.subject).toMatch(/^Kinnitage hulgikliendi konto: Hulgiraamat \d+ OÜ – Main store$/);
    expect(mail.text).toContain('Kui see ei olnud teie');
    // Approved by the back office, but not yet by the person it was attached to.
    expect((await login(t, email)).statusCode).toBe(200);
    expect((await me(t, (await login(t, email)).json().accessToken)).json().roles).toEqual(['SIMPLE']);
    expect(expectFieldErrors(await login(t, email, GOOD_PASSWORD, 'WEB', 'WHOLESALE'))).toEqual(['role']);

    expect((await verify(t, tokenFromMail(mail, 'verificationToken'))).statusCode).toBe(200);
    expect((await login(t, email)).json()).toEqual({ roles: ['SIMPLE', 'WHOLESALE'] });
    expect((await login(t, email, GOOD_PASSWORD, 'WEB', 'WHOLESALE')).statusCode).toBe(200);
  });

  it('makes a new company and account for someone a wholesale company removed; the removed account stays that company’s', async () => {
    const master = await companyMaster(t, 'WHOLESALE');
    const email = uniqueEmail('removed');
    const removed = await invite(t, master.token, email);
    await acceptInvitation(t, email);
    expect((await call(t, 'DELETE', `/company-user/${removed.id}`, master.token)).statusCode).toBe(200);
    const id = await pendingRequest(email);

    const printed = await wholesale(['approve', String(id)]);
    const code = /wholesale account (W\d{8})$/.exec(printed[0]!)![1];
    expect(code).not.toBe(removed.clientCode);
    const [old, made] = await accountsOf(email);
    const removersCompany = await t.database.db
      .selectFrom('client_account')
      .select('company_id')
      .where('id', '=', master.clientAccountId)
      .executeTakeFirstOrThrow();
    expect(old).toEqual({ store_code: 'WEB', type: 'WHOLESALE', company_id: removersCompany.company_id });
    expect(made).toEqual({ store_code: 'WEB', type: 'WHOLESALE', company_id: expect.any(Number) });
    expect(made!.company_id).not.toBe(removersCompany.company_id);

    // The person confirms the new account and works with it; the removed one is not theirs to use.
    const mail = await mailTo(t, email, /hulgikliendi konto/);
    expect((await verify(t, tokenFromMail(mail, 'verificationToken'))).statusCode).toBe(200);
    const loggedIn = await login(t, email);
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    expect((await me(t, loggedIn.json().accessToken)).json()).toMatchObject({ clientCode: code, role: 'WHOLESALE' });
  });

  it('is refused for a request already decided', async () => {
    const email = uniqueEmail('wholesale');
    const id = await pendingRequest(email);
    await wholesale(['approve', String(id)]);
    expect(await refusal(['approve', String(id)])).toBe(`wholesale request ${id} is already APPROVED`);
    expect(await refusal(['reject', String(id)])).toBe(`wholesale request ${id} is already APPROVED`);
    expect((await requestOf(email)).status).toBe('APPROVED');
    expect(await accountsOf(email)).toHaveLength(1);
  });

  it("closes a pending request when its contact's data is erased: no longer listed, and refused, as is a rejection", async () => {
    const email = uniqueEmail('wholesale');
    const accessToken = await registerVerified(t, email);
    const id = await pendingRequest(email);
    const listed = () => wholesale(['list']).then((lines) => lines.filter((line) => line.startsWith(`${id}\t`)));
    expect(await listed()).toHaveLength(1);
    const { user_id: userId } = await t.database.db
      .selectFrom('client_account')
      .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
      .select('client_account.user_id')
      .where('app_user.email', '=', email)
      .executeTakeFirstOrThrow();
    const erased = await t.app.inject({
      method: 'DELETE',
      url: '/client-account',
      headers: { store: 'WEB', authorization: `Bearer ${accessToken}` },
      payload: { password: GOOD_PASSWORD },
    });
    expect(erased.statusCode, erased.body).toBe(204);
    expect(await listed(), 'closed by the erasure').toEqual([]);
    const refused = `wholesale request ${id}: its contact's data was erased`;
    expect(await refusal(['approve', String(id)])).toBe(refused);
    expect(await refusal(['reject', String(id)])).toBe(refused);
    // Nothing made again from the form, and no mail to the placeholder the request now has.
    expect(await accountsOf(email)).toEqual([]);
    const request = await t.database.db.selectFrom('wholesale_request').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(request).toMatchObject({
      email: `erased-${userId}@erased.invalid`,
      form: '{}',
      status: 'ERASED',
      decided_at: expect.any(Number),
      client_account_id: null,
    });
  });
});

describe('wholesale reject', () => {
  it('declines politely, creates nothing, and cannot be decided again', async () => {
    const email = uniqueEmail('wholesale');
    const id = await pendingRequest(email);
    const companyName = (await requestOf(email)).company_name;

    expect(await wholesale(['reject', String(id)])).toEqual([`Rejected request ${id}`]);
    const request = await requestOf(email);
    expect(request.status).toBe('REJECTED');
    expect(request.decided_at).toEqual(expect.any(Number));

    const mail = await mailTo(t, email);
    expect(mail.subject).toBe('Hulgikliendi taotlus – Main store');
    expect(mail.text).toContain('Täname huvi eest');
    expect(mail.text).toContain(companyName);
    expect(await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).execute()).toEqual([]);

    expect(await refusal(['reject', String(id)])).toBe(`wholesale request ${id} is already REJECTED`);
    expect(await refusal(['approve', String(id)])).toBe(`wholesale request ${id} is already REJECTED`);
    expect((await requestOf(email)).status).toBe('REJECTED');
    expect(await wholesale(['list'])).not.toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${id}\\t`))]));
  });
});

describe('wholesale command line', () => {
  it.each([
    [['approve', 'x']],
    [['approve']],
    [['approve', '1', 'extra']],
    [['approve', '-1']],
    [['reject', '1.5']],
    // Past what a key holds: a usage error, not the database's 'out of range for type bigint' (PostgreSQL).
    [['approve', '99999999999999999999']],
    [['approve', '0']],
    [['frob']],
    [['list', 'all']],
    [[]],
  ])('refuses %j with a usage error', async (args) => {
    await expect(wholesale(args)).rejects.toThrow(CliUsageError);
  });

  it('refuses an unknown request id with its message alone', async () => {
    expect(await refusal(['approve', '999999'])).toBe('no wholesale request 999999');
    expect(await refusal(['reject', '999999'])).toBe('no wholesale request 999999');
  });
});
