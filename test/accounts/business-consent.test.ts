import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessCommand } from '../../src/modules/accounts/index.js';
import { CliUsageError } from '../../src/infra/cli-usage.js';
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
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { expectFieldErrors } from '../helpers/http.js';

// A business account is usable only once the contact the form names confirmed it by mail, and in
// a store listed in BUSINESS_APPROVAL_STORES only after the back office approved it.

let companies = 0;
function businessForm(email: string) {
  companies += 1;
  return {
    companyName: `Firma ${companies} OÜ`,
    registryCode: `1600000${companies}`,
    address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
    contact: { firstName: 'Juku', lastName: 'Tamm', email, phone: '+3725551234' },
  };
}

async function registerBusiness(t: AccountsTestApp, form: ReturnType<typeof businessForm>, store = 'WEB') {
  const response = await t.app.inject({ method: 'POST', url: '/auth/register-business', headers: { store }, payload: form });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toEqual(form);
  await t.drainJobs();
}

const accountsOf = (t: AccountsTestApp, email: string) =>
  t.database.db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['client_account.id', 'client_account.type', 'client_account.status', 'client_account.company_id'])
    .where('app_user.email', '=', email)
    .orderBy('client_account.id')
    .execute();

/** A product hidden from the public web: only business and wholesale callers see it. */
const businessOnlyProduct = (t: AccountsTestApp, id: number, accessToken?: string) =>
  t.app.inject({
    method: 'GET',
    url: `/product/${id}`,
    headers: { store: 'WEB', ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) },
  });

describe('register-business naming someone else’s email (no approval wanted)', () => {
  let t: AccountsTestApp;
  let productId: number;
  beforeAll(async () => {
    t = await createAccountsTestApp();
    productId = await createProduct(t.database.db, { hiddenWeb: true, price: 30 });
  });
  afterAll(() => t.close());

  it('tells the victim, and gives nobody a business role or the business catalogue until the victim confirms', async () => {
    const victim = uniqueEmail('victim');
    await registerVerified(t, victim);
    const form = businessForm(victim);
    await registerBusiness(t, form);

    const mail = await mailTo(t, victim, /ärikliendi konto/);
    expect(mail.subject).toBe(`Kinnitage ärikliendi konto: ${form.companyName} – Main store`);
    expect(mail.text).toContain('Kui see ei olnud teie');
    expect(await accountsOf(t, victim)).toEqual([
      expect.objectContaining({ type: 'SIMPLE', status: 'ACTIVE' }),
      expect.objectContaining({ type: 'BUSINESS', status: 'PENDING_CONFIRMATION' }),
    ]);

    // The victim's login is as before: one role, a retail token, no business catalogue.
    const loggedIn = await login(t, victim);
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    expect(loggedIn.json().accessToken).toEqual(expect.any(String));
    expect((await me(t, loggedIn.json().accessToken)).json()).toMatchObject({ role: 'SIMPLE', roles: ['SIMPLE'] });
    expect(expectFieldErrors(await login(t, victim, GOOD_PASSWORD, 'WEB', 'BUSINESS'))).toEqual(['role']);
    expect((await businessOnlyProduct(t, productId, loggedIn.json().accessToken)).statusCode).toBe(404);

    // Following the link is the consent: then the business role and catalogue are there.
    const verified = await verify(t, tokenFromMail(mail, 'verificationToken'));
    expect(verified.statusCode, verified.body).toBe(200);
    expect((await login(t, victim)).json()).toEqual({ roles: ['SIMPLE', 'BUSINESS'] });
    const business = await login(t, victim, GOOD_PASSWORD, 'WEB', 'BUSINESS');
    expect(business.statusCode).toBe(200);
    expect((await businessOnlyProduct(t, productId, business.json().accessToken)).statusCode).toBe(200);
  });

  it('shows the verification page which company and account type the link confirms', async () => {
    const victim = uniqueEmail('victim');
    await registerVerified(t, victim);
    const form = businessForm(victim);
    await registerBusiness(t, form);
    const token = tokenFromMail(await mailTo(t, victim, /ärikliendi konto/), 'verificationToken');
    const meta = await t.app.inject({ method: 'GET', url: `/auth/verify-email-meta?verificationToken=${token}` });
    expect(meta.json()).toMatchObject({ email: victim, accountType: 'BUSINESS', companyName: form.companyName, hasPassword: true });
  });

  it('a second form while unconfirmed describes the company anew; one account, and the newest link works', async () => {
    const contact = uniqueEmail('contact');
    await registerVerified(t, contact);
    await registerBusiness(t, businessForm(contact));
    const second = businessForm(contact);
    await registerBusiness(t, second);
    const accounts = (await accountsOf(t, contact)).filter((a) => a.type === 'BUSINESS');
    expect(accounts).toHaveLength(1);
    const company = await t.database.db
      .selectFrom('company')
      .select('name')
      .where('id', '=', accounts[0]!.company_id!)
      .executeTakeFirstOrThrow();
    expect(company.name).toBe(second.companyName);
    const newest = mailsTo(t, contact).at(-1)!;
    expect(newest.subject).toContain(second.companyName);
    expect((await verify(t, tokenFromMail(newest, 'verificationToken'))).statusCode).toBe(200);
    expect((await login(t, contact, GOOD_PASSWORD, 'WEB', 'BUSINESS')).statusCode).toBe(200);
  });

  it('leaves a confirmed business account alone and mails its owner nothing more', async () => {
    const owner = uniqueEmail('owner');
    await registerBusiness(t, businessForm(owner));
    expect((await verify(t, tokenFromMail(await mailTo(t, owner), 'verificationToken'))).statusCode).toBe(200);
    const mails = mailsTo(t, owner).length;
    await registerBusiness(t, businessForm(owner));
    expect(mailsTo(t, owner)).toHaveLength(mails);
    expect(await accountsOf(t, owner)).toEqual([expect.objectContaining({ type: 'BUSINESS', status: 'ACTIVE' })]);
  });

  it('happy path: a new contact verifies the email and logs in as the business customer', async () => {
    const email = uniqueEmail('company');
    await registerBusiness(t, businessForm(email));
    const mail = await mailTo(t, email);
    expect(mail.subject).toBe('Kinnitage oma e-posti aadress – Main store');
    const verified = await verify(t, tokenFromMail(mail, 'verificationToken'));
    expect(verified.statusCode, verified.body).toBe(200);
    expect((await me(t, verified.json().accessToken)).json()).toMatchObject({ role: 'BUSINESS', roles: ['BUSINESS'] });
    const loggedIn = await login(t, email);
    expect((await businessOnlyProduct(t, productId, loggedIn.json().accessToken)).statusCode).toBe(200);
    expect(await accountsOf(t, email)).toEqual([expect.objectContaining({ type: 'BUSINESS', status: 'ACTIVE' })]);
  });
});

describe('BUSINESS_APPROVAL_STORES=WEB', () => {
  let t: AccountsTestApp;
  beforeAll(async () => {
    t = await createAccountsTestApp({ env: { BUSINESS_APPROVAL_STORES: 'WEB' } });
  });
  afterAll(() => t.close());

  const business = async (args: string[]) => {
    const lines: string[] = [];
    await businessCommand({ db: t.database.db, config: t.config }, args, (line) => lines.push(line));
    return lines;
  };

  /** What `business <args>` refuses though its command line is right: the message it exits 1 with (not a usage error, exit 2). */
  const refusal = async (args: string[]): Promise<string> => {
    const error: unknown = await business(args).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(CliUsageError);
    return (error as Error).message;
  };

  it('waits for the back office, then for the contact; only then is the business role usable', async () => {
    const email = uniqueEmail('applicant');
    await registerVerified(t, email);
    const before = mailsTo(t, email).length;
    const form = businessForm(email);
    await registerBusiness(t, form);

    const [account] = (await accountsOf(t, email)).filter((a) => a.type === 'BUSINESS');
    expect(account).toMatchObject({ status: 'PENDING_APPROVAL' });
    const office = await mailTo(t, BACKOFFICE, new RegExp(form.companyName));
    expect(office.text).toContain(`business approve ${account!.id}`);
    expect(office.text).toContain(`business reject ${account!.id}`);
    expect(mailsTo(t, email)).toHaveLength(before);
    expect(await business(['list'])).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^${account!.id}\\t.*\\t${email}\\tWEB$`))]),
    );
    expect((await login(t, email)).json().accessToken).toEqual(expect.any(String));
    expect(expectFieldErrors(await login(t, email, GOOD_PASSWORD, 'WEB', 'BUSINESS'))).toEqual(['role']);

    expect(await business(['approve', String(account!.id)])).toEqual([expect.stringContaining(`Approved business account ${account!.id}`)]);
    const mail = await mailTo(t, email, /ärikliendi konto/);
    expect(expectFieldErrors(await login(t, email, GOOD_PASSWORD, 'WEB', 'BUSINESS'))).toEqual(['role']);
    expect((await verify(t, tokenFromMail(mail, 'verificationToken'))).statusCode).toBe(200);
    expect((await login(t, email, GOOD_PASSWORD, 'WEB', 'BUSINESS')).statusCode).toBe(200);
    expect(await refusal(['approve', String(account!.id)])).toBe(`business account ${account!.id} is ACTIVE, not waiting for approval`);
  });

  it('a rejected account is never usable and its contact is not mailed', async () => {
    const email = uniqueEmail('declined');
    await registerBusiness(t, businessForm(email));
    const [account] = await accountsOf(t, email);
    expect(await business(['reject', String(account!.id)])).toEqual([`Rejected business account ${account!.id}`]);
    await t.drainJobs();
    expect(mailsTo(t, email)).toEqual([]);
    // Even a reset request for this never-verified contact mails no link for it.
    await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email } });
    await t.drainJobs();
    expect(mailsTo(t, email)).toEqual([]);
    expect(await accountsOf(t, email)).toEqual([expect.objectContaining({ status: 'REJECTED' })]);
    expect(await refusal(['approve', String(account!.id)])).toBe(`business account ${account!.id} is REJECTED, not waiting for approval`);
  });

  it.each([[['approve', 'x']], [['approve', '99999999999999999999']], [['reject', '0']], [['reject']], [['list', 'all']], [['frob']]])(
    'refuses %j with a usage error',
    async (args) => {
      await expect(business(args)).rejects.toThrow(CliUsageError);
    },
  );

  it('refuses an account id that is not there with its message alone', async () => {
    expect(await refusal(['approve', '999999'])).toBe('no business account 999999');
    expect(await refusal(['reject', '999999'])).toBe('no business account 999999');
  });
});
