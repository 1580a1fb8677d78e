import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BACKOFFICE,
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailsTo,
  mailTo,
  me,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { retryJob } from '../../src/infra/jobs/queue.js';
import { expectFieldErrors } from '../helpers/http.js';
import { pastResubmitWindow } from '../helpers/resubmit.js';

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const count = async (table: 'app_user' | 'client_account' | 'company', email?: string) => {
  let query = t.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
  if (email && table === 'app_user') query = query.where('email', '=', email);
  return Number((await query.executeTakeFirstOrThrow()).n);
};

const accountsOf = (email: string) =>
  t.database.db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['client_account.store_code', 'client_account.type', 'client_account.code'])
    .where('app_user.email', '=', email)
    .orderBy('client_account.id')
    .execute();

describe('POST /auth/register and /auth/register-simple', () => {
  it('creates the user and a simple account in the store and mails a verification link to the front-end', async () => {
    const email = uniqueEmail();
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/register',
      headers: { store: 'WEB2', 'x-app-language': 'en' },
      payload: { email, phone: '+372 5555 1234', birthday: '1990-05-17', gender: 'FEMALE', newsletter: true },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ email, phone: '+372 5555 1234', birthday: '1990-05-17', gender: 'FEMALE', newsletter: true });
    await t.drainJobs();
    const accounts = await accountsOf(email);
    expect(accounts).toEqual([{ store_code: 'WEB2', type: 'SIMPLE', code: expect.stringMatching(/^W\d{8}$/) }]);

    const mail = await mailTo(t, email);
    expect(mail.subject).toBe('Confirm your email address – Outlet');
    expect(mail.text).toMatch(/^Hello user\./);
    expect(mail.text).toMatch(/http:\/\/localhost:5174\/verify-email\?verificationToken=[A-Za-z0-9_-]{43}/);
    expect(mail.html).toContain('href="http://localhost:5174/verify-email?verificationToken=');
    expect(mail.from?.text).toContain('no-reply@localhost');
  });

  it('answers in the language of the request', async () => {
    const email = uniqueEmail();
    await t.app.inject({ method: 'POST', url: '/auth/register', headers: { 'x-app-language': 'ru' }, payload: { email } });
    expect((await mailTo(t, email)).subject).toBe('Подтвердите адрес электронной почты – Main store');
    const estonian = uniqueEmail();
    await register(t, estonian);
    expect((await mailTo(t, estonian)).subject).toBe('Kinnitage oma e-posti aadress – Main store');
  });

  it('requires first and last name in the web scenario only', async () => {
    const email = uniqueEmail();
    const web = await t.app.inject({ method: 'POST', url: '/auth/register-simple', payload: { email } });
    expect(expectFieldErrors(web).sort()).toEqual(['firstName', 'lastName']);
    const mobile = await t.app.inject({ method: 'POST', url: '/auth/register', payload: { email } });
    expect(mobile.statusCode).toBe(200);
  });

  it('refuses a birthday in the future or before 1900 and writes nothing', async () => {
    const before = await count('app_user');
    for (const birthday of ['2999-01-01', '1899-12-31']) {
      const response = await t.app.inject({ method: 'POST', url: '/auth/register', payload: { email: uniqueEmail(), birthday } });
      expect(expectFieldErrors(response)).toEqual(['birthday']);
    }
    expect(await count('app_user')).toBe(before);
  });

  it('stores the email lower-cased, so case does not make a second user', async () => {
    const email = uniqueEmail();
    await register(t, email.toUpperCase());
    await register(t, email);
    expect(await count('app_user', email)).toBe(1);
  });
});

describe('the state table of registration', () => {
  it('registered, not activated: registering again sends the verification mail again, and the newest link works', async () => {
    const email = uniqueEmail();
    await register(t, email);
    const first = tokenFromMail(await mailTo(t, email), 'verificationToken');
    // Later (the same form within minutes is a double submit: see below).
    await pastResubmitWindow(t.database.db);
    await register(t, email);
    await t.drainJobs();
    const mails = mailsTo(t, email);
    expect(mails).toHaveLength(2);
    const second = tokenFromMail(mails[1]!, 'verificationToken');
    expect(second).not.toBe(first);
    expect((await verify(t, second)).statusCode).toBe(200);
    expect(await accountsOf(email)).toHaveLength(1);
  });

  it('registered, not activated: the newest form is what the link activates (names, phone, newsletter tick)', async () => {
    const email = uniqueEmail('again');
    await register(t, email, 'WEB', { firstName: 'Mary', lastName: 'Masikas', phone: '+372 5000 0001', newsletter: true });
    // The first mail is lost; the person registers again later, correcting the typos and without the tick.
    await pastResubmitWindow(t.database.db);
    const again = await register(t, email, 'WEB', { firstName: 'Mari', lastName: 'Maasikas', phone: '+372 5000 0002', newsletter: false });
    expect(again.statusCode).toBe(200);
    const token = tokenFromMail(mailsTo(t, email).at(-1)!, 'verificationToken');
    const meta = await t.app.inject({
      method: 'GET',
      url: `/auth/verify-email-meta?verificationToken=${token}`,
      headers: { store: 'WEB' },
    });
    expect(meta.json()).toMatchObject({ firstName: 'Mari', lastName: 'Maasikas' });
    const verified = await verify(t, token);
    expect(verified.statusCode, verified.body).toBe(200);
    expect((await me(t, verified.json().accessToken)).json()).toMatchObject({ firstName: 'Mari', lastName: 'Maasikas' });
    const user = await t.database.db.selectFrom('app_user').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    expect({ phone: user.phone, newsletter: Boolean(user.newsletter) }).toEqual({ phone: '+372 5000 0002', newsletter: false });
    const subscriptions = await t.database.db.selectFrom('newsletter_subscriber').select('id').where('email', '=', email).execute();
    expect(subscriptions).toEqual([]);
  });

  it('the same form again within minutes (a double click, a retry) mails once, and that link works', async () => {
    const email = uniqueEmail();
    expect((await register(t, email)).statusCode).toBe(200);
    const first = tokenFromMail(await mailTo(t, email), 'verificationToken');
    expect((await register(t, email)).statusCode).toBe(200);
    await t.drainJobs();
    expect(mailsTo(t, email)).toHaveLength(1);
    expect((await verify(t, first)).statusCode).toBe(200);
  });

  it('user with a simple account in the same store: success, unchanged, no new mail', async () => {
    const email = uniqueEmail();
    await registerVerified(t, email);
    const mailsBefore = mailsTo(t, email).length;
    const response = await register(t, email);
    expect(response.statusCode).toBe(200);
    await t.drainJobs();
    expect(mailsTo(t, email)).toHaveLength(mailsBefore);
    expect(await accountsOf(email)).toHaveLength(1);
  });

  it('user with a simple account in the other store: unchanged, told to log in with those credentials', async () => {
    const email = uniqueEmail();
    await registerVerified(t, email, 'WEB');
    const response = await register(t, email, 'WEB2');
    expect(response.statusCode).toBe(200);
    const mail = await mailTo(t, email, /konto/);
    expect(mail.subject).toBe('Teil on juba konto – Outlet');
    expect(mail.text).toContain('Main store');
    expect(mail.text).not.toContain('verificationToken');
    expect(await accountsOf(email)).toEqual([expect.objectContaining({ store_code: 'WEB' })]);
  });

  it('user without a simple account: the simple account is created and a verification mail sent', async () => {
    const email = uniqueEmail('company');
    await registerBusiness(email);
    const businessToken = tokenFromMail(await mailTo(t, email), 'verificationToken');
    expect((await verify(t, businessToken)).statusCode).toBe(200);

    expect((await register(t, email)).statusCode).toBe(200);
    await t.drainJobs();
    const latest = mailsTo(t, email).at(-1)!;
    const token = tokenFromMail(latest, 'verificationToken');
    expect((await accountsOf(email)).map((a) => a.type)).toEqual(['BUSINESS', 'SIMPLE']);
    const verified = await verify(t, token);
    expect(verified.statusCode).toBe(200);
    expect((await login(t, email)).json()).toEqual({ roles: ['SIMPLE', 'BUSINESS'] });
  });

  it('a company customer here with a simple account in the other store gets the simple account here, not the other-store mail', async () => {
    const email = uniqueEmail('company-retail');
    await registerBusiness(email);
    expect((await verify(t, tokenFromMail(await mailTo(t, email), 'verificationToken'))).statusCode).toBe(200);
    expect((await register(t, email, 'WEB2')).statusCode).toBe(200);
    expect((await login(t, email, GOOD_PASSWORD, 'WEB2')).statusCode).toBe(200);

    expect((await register(t, email, 'WEB')).statusCode).toBe(200);
    await t.drainJobs();
    // Told to log in here, they would get their business account and never a retail one.
    const latest = mailsTo(t, email).at(-1)!;
    expect(latest.subject).not.toMatch(/Teil on juba konto/);
    expect(await accountsOf(email)).toEqual([
      expect.objectContaining({ store_code: 'WEB', type: 'BUSINESS' }),
      expect.objectContaining({ store_code: 'WEB2', type: 'SIMPLE' }),
      expect.objectContaining({ store_code: 'WEB', type: 'SIMPLE' }),
    ]);
    expect((await verify(t, tokenFromMail(latest, 'verificationToken'))).statusCode).toBe(200);
    expect((await login(t, email)).json()).toEqual({ roles: ['SIMPLE', 'BUSINESS'] });
  });

  it('gives the same answer whether or not the email was known', async () => {
    const known = uniqueEmail();
    await registerVerified(t, known);
    const fresh = uniqueEmail();
    const payload = (email: string) => ({ email, firstName: 'Mari', lastName: 'Maasikas' });
    const a = await t.app.inject({ method: 'POST', url: '/auth/register-simple', payload: payload(known) });
    const b = await t.app.inject({ method: 'POST', url: '/auth/register-simple', payload: payload(fresh) });
    expect(a.statusCode).toBe(b.statusCode);
    expect({ ...a.json(), email: 'x' }).toEqual({ ...b.json(), email: 'x' });
  });

  it('concurrent registrations of one email make one user with one account', async () => {
    const email = uniqueEmail('race');
    const responses = await Promise.all(Array.from({ length: 8 }, () => register(t, email)));
    for (const response of responses) expect(response.statusCode, response.body).toBe(200);
    expect(await count('app_user', email)).toBe(1);
    expect(await accountsOf(email)).toHaveLength(1);
  });
});

function businessForm(email: string) {
  return {
    companyName: 'Raamatukoi OÜ',
    registryCode: '12345678',
    vatNumber: 'EE100000001',
    address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
    contact: { firstName: 'Juku', lastName: 'Tamm', email, phone: '+3725551234' },
  };
}

/** Registers a business and runs the outbox, where the registration is applied. */
async function registerBusiness(email: string, store = 'WEB') {
  const response = await t.app.inject({ method: 'POST', url: '/auth/register-business', headers: { store }, payload: businessForm(email) });
  await t.drainJobs();
  return response;
}

describe('POST /auth/register-business', () => {
  it('creates the company and a business account, mails the contact and the back office', async () => {
    const email = uniqueEmail('biz');
    const companies = await count('company');
    const response = await registerBusiness(email);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual(businessForm(email));
    expect(await count('company')).toBe(companies + 1);
    expect(await accountsOf(email)).toEqual([expect.objectContaining({ store_code: 'WEB', type: 'BUSINESS' })]);

    const verification = await mailTo(t, email);
    expect(verification.subject).toContain('Kinnitage');
    const office = await t.smtp.waitFor((mail) => (mail.text ?? '').includes(email) && mail.to !== undefined, 5000);
    expect(mailsTo(t, BACKOFFICE)).toContain(office);
    expect(office.subject).toBe('New business registration: Raamatukoi OÜ (WEB)');

    const verified = await verify(t, tokenFromMail(verification, 'verificationToken'));
    expect(verified.json().webStoreNavCode).toBe('WEB');
    const loggedIn = await login(t, email, GOOD_PASSWORD);
    expect(loggedIn.json().accessToken).toEqual(expect.any(String));
  });

  it("keeps the back office's notice as a dead job at once when BACKOFFICE_EMAILS does not take mail; retried, it is sent", async () => {
    const email = uniqueEmail('biz-office-gone');
    t.smtp.refuseRecipient(BACKOFFICE, '550 5.1.1 User unknown in local recipient table');
    try {
      expect((await registerBusiness(email)).statusCode).toBe(200);
      await mailTo(t, email);
    } finally {
      t.smtp.acceptRecipient(BACKOFFICE);
    }
    const dead = await t.database.db
      .selectFrom('job')
      .select(['id', 'attempts', 'last_error'])
      .where('status', '=', 'dead')
      .where('last_error', 'like', '%BACKOFFICE_EMAILS%')
      .execute();
    expect(dead).toHaveLength(1);
    expect(dead[0]!.attempts).toBe(1);
    expect(dead[0]!.last_error).toContain('550 5.1.1 User unknown');
    expect(await retryJob(t.database.db, dead[0]!.id)).toBe(true);
    await t.drainJobs();
    const office = await t.smtp.waitFor((mail) => (mail.text ?? '').includes(email) && JSON.stringify(mail.to).includes(BACKOFFICE), 5000);
    expect(office.subject).toMatch(/^New business registration/);
  });

  it('refuses an incomplete form with every field named, and writes nothing', async () => {
    const companies = await count('company');
    const form = businessForm('not-an-email') as Record<string, unknown>;
    delete form.companyName;
    (form.address as Record<string, unknown>).countryCode = 'Estonia';
    const fields = expectFieldErrors(await t.app.inject({ method: 'POST', url: '/auth/register-business', payload: form }));
    expect(fields.sort()).toEqual(['address.countryCode', 'companyName', 'contact.email']);
    expect(await count('company')).toBe(companies);
  });
});
