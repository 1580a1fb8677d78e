import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailTo,
  me,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { expectErrorBody } from '../helpers/http.js';
import { acceptInvitation, call, companyMaster, invite } from './fixtures.js';

// A business or wholesale master manages the company's users over HTTP: invitations through the
// real verification mail, roles, names and removal, and the rules that keep a master.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const users = async (token: string) => {
  const response = await call(t, 'GET', '/company-user?per-page=100', token);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Array<{ id: number; email: string; role: string; status: string; firstName: string; lastName: string }>;
};

describe('inviting an employee', () => {
  it('creates the account, mails the link; the employee sets a password, logs in and pays the company price', async () => {
    const master = await companyMaster(t, 'BUSINESS', 30);
    const product = await createProduct(t.database.db, { price: 20, originalPrice: 25 });
    const email = uniqueEmail('employee');

    const response = await call(t, 'POST', '/company-user', master.token, {
      email,
      firstName: 'Tiit',
      lastName: 'Töötaja',
      role: 'EMPLOYEE',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const invited = response.json();
    expect(invited).toEqual({
      id: expect.any(Number),
      clientCode: expect.stringMatching(/^W\d{8}$/),
      email,
      firstName: 'Tiit',
      lastName: 'Töötaja',
      role: 'EMPLOYEE',
      status: 'INVITED',
      createdAt: expect.any(String),
    });
    // Not usable until the person followed the link.
    expect((await login(t, email)).statusCode).toBe(422);

    const mail = await mailTo(t, email);
    // The mail says whose account it is.
    const company = await t.database.db
      .selectFrom('client_account as a')
      .innerJoin('company as c', 'c.id', 'a.company_id')
      .select('c.name')
      .where('a.id', '=', master.clientAccountId)
      .executeTakeFirstOrThrow();
    expect(mail.subject).toContain(company.name);
    expect(mail.text).toContain(company.name);
    const verified = await verify(t, tokenFromMail(mail, 'verificationToken'));
    expect(verified.statusCode, verified.body).toBe(200);
    const loggedIn = await login(t, email);
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    const employee = loggedIn.json().accessToken as string;
    expect((await me(t, employee)).json()).toMatchObject({ email, role: 'BUSINESS', clientCode: invited.clientCode });

    const listed = await users(master.token);
    expect(listed.map((user) => [user.email, user.role, user.status])).toEqual([
      [expect.any(String), 'MASTER', 'ACTIVE'],
      [email, 'EMPLOYEE', 'ACTIVE'],
    ]);

    // 30 % company discount off the 25 € list price, for the master and the employee alike.
    const priceFor = async (token: string) => (await call(t, 'GET', `/product/${product}`, token)).json().price as number;
    expect(await priceFor(master.token)).toBe(17.5);
    expect(await priceFor(employee)).toBe(17.5);
  });

  it("gives a wholesale company's employee a wholesale account with the company's own prices", async () => {
    const master = await companyMaster(t, 'WHOLESALE');
    const product = await createProduct(t.database.db, { price: 20, wholesalePrice: 12 });
    await t.database.db
      .insertInto('company_product_price')
      .values({ company_id: master.companyId!, product_id: product, price_cents: 1100 })
      .execute();
    const email = uniqueEmail('wholesale-employee');
    await invite(t, master.token, email);
    const employee = await acceptInvitation(t, email);
    expect((await me(t, employee)).json().role).toBe('WHOLESALE');
    const priceFor = async (token: string) => (await call(t, 'GET', `/product/${product}`, token)).json().price as number;
    expect([await priceFor(master.token), await priceFor(employee)]).toEqual([11, 11]);
  });

  it("refuses another company's invitee with a 409, and creates nothing; the company's own is renewed; a retail account here is no obstacle", async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const employee = uniqueEmail('employee');
    const invited = await invite(t, master.token, employee);
    const other = await companyMaster(t, 'BUSINESS');
    const body = expectErrorBody(
      await call(t, 'POST', '/company-user', other.token, { email: employee, firstName: 'A', lastName: 'B', role: 'EMPLOYEE' }),
      409,
      'Conflict',
    );
    expect(body.message).toBe(
      'Selle e-posti aadressiga on selles veebipoes juba ettevõtte või hulgikliendi konto või kutse; seda ei saa kutsuda.',
    );
    expect(await users(other.token)).toHaveLength(1);
    // Inviting again renews the company's invitation (invitation-renewal.test.ts): the same user, no second one.
    expect(await invite(t, master.token, employee)).toMatchObject({ id: invited.id, status: 'INVITED' });
    expect(await users(master.token)).toHaveLength(2);
    // A person may hold an account of each kind here (retail-customer-invited.test.ts follows it through).
    const retail = uniqueEmail('retail');
    expect((await register(t, retail)).statusCode).toBe(200);
    expect(await invite(t, master.token, retail)).toMatchObject({ email: retail, status: 'INVITED' });
  });

  it('invites someone who has an account only in the other store; they confirm with the link', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('web2');
    expect((await register(t, email, 'WEB2')).statusCode).toBe(200);
    await t.drainJobs();
    t.smtp.clear();
    const invited = await invite(t, master.token, email);
    // Until they accept, the company sees the names it typed, never the person's own (Mari Maasikas) behind an address it knew.
    expect(invited).toMatchObject({ firstName: 'Tiit', lastName: 'Töötaja', status: 'INVITED' });
    expect((await users(master.token)).find((user) => user.email === email)).toMatchObject({ firstName: 'Tiit', lastName: 'Töötaja' });
    const employee = await acceptInvitation(t, email);
    expect((await me(t, employee)).json()).toMatchObject({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
    // They joined: the company sees them as they are.
    expect((await users(master.token)).find((user) => user.email === email)).toMatchObject({
      firstName: 'Mari',
      lastName: 'Maasikas',
      status: 'ACTIVE',
    });
  });
});

describe("the invitation's names", () => {
  it('go with the data of the person they were given for', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('web2');
    const own = await registerVerified(t, email, 'WEB2');
    const { id } = await invite(t, master.token, email);
    const kept = () => t.database.db.selectFrom('company_invitation').selectAll().where('client_account_id', '=', id).execute();
    expect(await kept()).toMatchObject([{ first_name: 'Tiit', last_name: 'Töötaja' }]);
    const exported = await t.app.inject({
      method: 'GET',
      url: '/client-account/export',
      headers: { authorization: `Bearer ${own}`, store: 'WEB2' },
    });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().companyMemberships).toEqual([
      expect.objectContaining({ store: 'WEB', status: 'PENDING_CONFIRMATION', invitedAs: { firstName: 'Tiit', lastName: 'Töötaja' } }),
    ]);
    const erased = await t.app.inject({
      method: 'DELETE',
      url: '/client-account',
      headers: { authorization: `Bearer ${own}`, store: 'WEB2' },
      payload: { password: GOOD_PASSWORD },
    });
    expect(erased.statusCode, erased.body).toBe(204);
    expect(await kept()).toEqual([]);
  });
});

describe('changing a company user', () => {
  it('promotes and demotes, renames, and never lets a master demote themselves', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('employee');
    const { id } = await invite(t, master.token, email);
    const second = await acceptInvitation(t, email);

    const promoted = await call(t, 'PUT', `/company-user/${id}`, master.token, { role: 'MASTER', firstName: 'Toomas' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json()).toMatchObject({ id, role: 'MASTER', firstName: 'Toomas', lastName: 'Töötaja' });
    // The new master manages users at once, and can demote the first master (one master stays).
    const self = (await users(second)).find((user) => user.email !== email)!;
    const demoted = await call(t, 'PUT', `/company-user/${self.id}`, second, { role: 'EMPLOYEE' });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expectErrorBody(await call(t, 'GET', '/company-user', master.token), 403, 'Forbidden');

    const own = expectErrorBody(await call(t, 'PUT', `/company-user/${id}`, second, { role: 'EMPLOYEE' }), 409, 'Conflict');
    expect(own.message).toContain('peakasutaja rolli endalt');
    expect((await users(second)).find((user) => user.id === id)!.role).toBe('MASTER');
  });

  it('drops a field the invitation does not name, whatever it holds, as the other forms do', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('employee');
    // A NUL no column takes: a field that was kept (and ignored) made it the 422 of a field nobody reads.
    const response = await call(t, 'POST', '/company-user', master.token, {
      email,
      firstName: 'Tiit',
      lastName: 'Töötaja',
      role: 'EMPLOYEE',
      note: 'a\u0000b',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ email, firstName: 'Tiit', status: 'INVITED' });
  });

  it('refuses a change with no field it names, as an empty one, with a 422 that changes nothing', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const { id } = await invite(t, master.token, uniqueEmail('employee'));
    const before = await users(master.token);
    const empty = await call(t, 'PUT', `/company-user/${id}`, master.token, {});
    expect(empty.statusCode, empty.body).toBe(422);
    for (const body of [{ foo: 1 }, { foo: 1, bar: 'x' }]) {
      const response = await call(t, 'PUT', `/company-user/${id}`, master.token, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(response.json()).toEqual(empty.json());
    }
    expect(await users(master.token)).toEqual(before);
    // A field it names is changed; one it does not name beside it is dropped.
    const promoted = await call(t, 'PUT', `/company-user/${id}`, master.token, { role: 'MASTER', foo: 1 });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json()).toMatchObject({ id, role: 'MASTER' });
  });

  it('renames only the invitation of someone who had a user already, and refuses to rename them once they use the address outside the company', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('web2');
    expect((await register(t, email, 'WEB2')).statusCode).toBe(200);
    const { id } = await invite(t, master.token, email);
    const lastName = async () =>
      (await t.database.db.selectFrom('app_user').select('last_name').where('email', '=', email).executeTakeFirstOrThrow()).last_name;
    // Not accepted yet: the names are the invitation's, the company's to change; the person's stay theirs.
    const renamed = await call(t, 'PUT', `/company-user/${id}`, master.token, { lastName: 'Uus' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ firstName: 'Tiit', lastName: 'Uus', status: 'INVITED' });
    expect(await lastName()).toBe('Maasikas');
    await acceptInvitation(t, email);
    expectErrorBody(await call(t, 'PUT', `/company-user/${id}`, master.token, { lastName: 'Uuem' }), 409, 'Conflict');
    expect(await lastName()).toBe('Maasikas');
  });
});

describe('removing a company user', () => {
  it("closes the employee's account here, ends their sessions, and a new invitation gives it back", async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('employee');
    const { id } = await invite(t, master.token, email);
    const employee = await acceptInvitation(t, email);

    const removed = await call(t, 'DELETE', `/company-user/${id}`, master.token);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toEqual({});
    expect((await me(t, employee)).statusCode).toBe(401);
    expect((await login(t, email)).statusCode).toBe(422);
    expect((await users(master.token)).map((user) => user.id)).not.toContain(id);
    expectErrorBody(await call(t, 'DELETE', `/company-user/${id}`, master.token), 404, 'Not Found');

    t.smtp.clear();
    const again = await invite(t, master.token, email);
    expect(again).toMatchObject({ id, status: 'INVITED' });
    const back = await acceptInvitation(t, email);
    expect((await me(t, back)).json().role).toBe('BUSINESS');
  });

  it('invites again with other names a person whose invitation it withdrew: they accept under the names given now', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('withdrawn');
    // A new address: the invitation makes the person's user with the names typed; withdrawn before it was accepted.
    const { id } = await invite(t, master.token, email);
    expect((await call(t, 'DELETE', `/company-user/${id}`, master.token)).statusCode).toBe(200);
    const names = { firstName: 'Toomas', lastName: 'Tamm' };
    const again = await call(t, 'POST', '/company-user', master.token, { email, ...names, role: 'EMPLOYEE' });
    expect(again.json()).toMatchObject({ id, status: 'INVITED', ...names });
    const employee = await acceptInvitation(t, email);
    expect((await users(master.token)).find((user) => user.id === id)).toMatchObject({ status: 'ACTIVE', ...names });
    expect((await call(t, 'GET', '/client-account', employee)).json()).toMatchObject(names);
  });

  it('makes the link of a withdrawn invitation useless', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('employee');
    const { id } = await invite(t, master.token, email);
    const link = tokenFromMail(await mailTo(t, email), 'verificationToken');
    expect((await call(t, 'DELETE', `/company-user/${id}`, master.token)).statusCode).toBe(200);
    expect((await verify(t, link)).statusCode).toBe(400);
    expect((await login(t, email)).statusCode).toBe(422);
  });

  it('skips the invitation mail when the invitation was withdrawn before it was sent', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('employee');
    const { id } = await invite(t, master.token, email);
    expect((await call(t, 'DELETE', `/company-user/${id}`, master.token)).statusCode).toBe(200);
    await t.drainJobs();
    expect(t.smtp.mails.filter((mail) => JSON.stringify(mail.to).includes(email))).toEqual([]);
  });

  it('never removes the last active master; with a second master the first can go', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const [self] = await users(master.token);
    const body = expectErrorBody(await call(t, 'DELETE', `/company-user/${self!.id}`, master.token), 409, 'Conflict');
    expect(body.message).toBe('Ettevõttel peab jääma vähemalt üks peakasutaja.');
    // An invited master who has not accepted yet does not count.
    const email = uniqueEmail('master');
    await invite(t, master.token, email, 'MASTER');
    expectErrorBody(await call(t, 'DELETE', `/company-user/${self!.id}`, master.token), 409, 'Conflict');

    const second = await acceptInvitation(t, email);
    expect((await call(t, 'DELETE', `/company-user/${self!.id}`, second)).statusCode).toBe(200);
    expect((await me(t, master.token)).statusCode).toBe(401);
    expect((await users(second)).map((user) => user.email)).toEqual([email]);
  });
});

describe('GET /company-user', () => {
  it('pages the users with the pagination headers', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    for (let i = 0; i < 3; i += 1) await invite(t, master.token, uniqueEmail('paged'));
    const response = await call(t, 'GET', '/company-user?page=2&per-page=2', master.token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveLength(2);
    expect(response.headers['x-pagination-total-count']).toBe('4');
    expect(response.headers['x-pagination-page-count']).toBe('2');
    expect(response.headers['cache-control']).toBe('no-store');
  });
});
