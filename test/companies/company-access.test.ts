import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { acceptInvitation, call, companyMaster, invite } from './fixtures.js';

// Who may call the company routes, and that no id of another company is ever readable or
// writable: every id-taking route answers the same 404 as for an id that does not exist, and
// changes nothing. Bad input of every kind is a 4xx.

let t: AccountsTestApp;
let masterA: TestCustomer;
let masterB: TestCustomer;
let wholesaleA: TestCustomer;
let wholesaleB: TestCustomer;
let retail: TestCustomer;
let employeeA: { id: number; token: string };
let wholesaleEmployee: string;
let subCompanyA: number;

beforeAll(async () => {
  t = await createAccountsTestApp();
  masterA = await companyMaster(t, 'BUSINESS');
  masterB = await companyMaster(t, 'BUSINESS');
  wholesaleA = await companyMaster(t, 'WHOLESALE');
  wholesaleB = await companyMaster(t, 'WHOLESALE');
  retail = await createCustomer(t.database.db);
  const email = uniqueEmail('employee');
  const { id } = await invite(t, masterA.token, email);
  employeeA = { id, token: await acceptInvitation(t, email) };
  const wholesaleEmail = uniqueEmail('wholesale-employee');
  await invite(t, wholesaleA.token, wholesaleEmail);
  wholesaleEmployee = await acceptInvitation(t, wholesaleEmail);
  const created = await call(t, 'POST', '/sub-company', wholesaleA.token, { name: 'Kool A', addresses: [] });
  expect(created.statusCode, created.body).toBe(200);
  subCompanyA = created.json().id;
});
afterAll(() => t.close());

const invitation = { email: 'someone@example.ee', firstName: 'A', lastName: 'B', role: 'EMPLOYEE' };
const routes = () =>
  [
    ['GET', '/company-user', undefined],
    ['POST', '/company-user', invitation],
    ['PUT', `/company-user/${employeeA.id}`, { firstName: 'X' }],
    ['DELETE', `/company-user/${employeeA.id}`, undefined],
    ['GET', '/sub-company', undefined],
    ['POST', '/sub-company', { name: 'X' }],
    ['PUT', `/sub-company/${subCompanyA}`, { name: 'X' }],
    ['DELETE', `/sub-company/${subCompanyA}`, undefined],
  ] as const;

describe('callers', () => {
  it('answers 401 without a bearer token, whatever the body, and no-store', async () => {
    for (const [method, url, payload] of routes()) {
      const response = await call(t, method, url, undefined, payload ?? (method === 'GET' || method === 'DELETE' ? undefined : { bad: 1 }));
      expectErrorBody(response, 401, 'Unauthorized');
      expect(response.headers['cache-control'], `${method} ${url}`).toBe('no-store');
    }
  });

  it('answers 403 to a retail customer, to employees, and to a business master on sub-companies', async () => {
    const wholesaleRoutes = routes().filter(([, url]) => url.startsWith('/sub-company'));
    const cases: Array<[string, ReturnType<typeof routes>]> = [
      [retail.token, routes()],
      [employeeA.token, routes()],
      [wholesaleEmployee, routes()],
      [masterA.token, wholesaleRoutes as unknown as ReturnType<typeof routes>],
    ];
    for (const [token, list] of cases) {
      for (const [method, url, payload] of list) {
        const response = await call(t, method, url, token, payload);
        expectErrorBody(response, 403, 'Forbidden');
      }
    }
    // Nothing was changed by any of them.
    expect((await call(t, 'GET', '/company-user', masterA.token)).json()).toHaveLength(2);
    expect((await call(t, 'GET', '/sub-company', wholesaleA.token)).json()).toEqual([expect.objectContaining({ name: 'Kool A' })]);
  });

  it("answers 401 to a token of the other store's", async () => {
    expectErrorBody(await call(t, 'GET', '/company-user', masterA.token, undefined, 'WEB2'), 401, 'Unauthorized');
  });
});

describe("another company's ids", () => {
  it('are a 404 on every company-user route and change nothing', async () => {
    const before = (await call(t, 'GET', '/company-user', masterA.token)).json();
    const put = await call(t, 'PUT', `/company-user/${employeeA.id}`, masterB.token, { role: 'MASTER', firstName: 'Võõras' });
    expectErrorBody(put, 404, 'Not Found');
    expectErrorBody(await call(t, 'DELETE', `/company-user/${employeeA.id}`, masterB.token), 404, 'Not Found');
    // A wholesale master of another company, and an id that exists nowhere, get the same.
    expectErrorBody(await call(t, 'PUT', `/company-user/${employeeA.id}`, wholesaleA.token, { role: 'MASTER' }), 404, 'Not Found');
    expectErrorBody(await call(t, 'DELETE', `/company-user/${employeeA.id}`, wholesaleA.token), 404, 'Not Found');
    expectErrorBody(await call(t, 'PUT', '/company-user/999999999', masterA.token, { role: 'MASTER' }), 404, 'Not Found');
    expect((await call(t, 'GET', '/company-user', masterB.token)).json().map((user: { email: string }) => user.email)).not.toContain(
      before[1].email,
    );
    expect((await call(t, 'GET', '/company-user', masterA.token)).json()).toEqual(before);
    expect((await call(t, 'GET', '/user/me', employeeA.token)).statusCode).toBe(200);
  });

  it('are a 404 on every sub-company route and change nothing', async () => {
    expectErrorBody(await call(t, 'PUT', `/sub-company/${subCompanyA}`, wholesaleB.token, { name: 'Võõras' }), 404, 'Not Found');
    expectErrorBody(await call(t, 'DELETE', `/sub-company/${subCompanyA}`, wholesaleB.token), 404, 'Not Found');
    expect((await call(t, 'GET', '/sub-company', wholesaleB.token)).json()).toEqual([]);
    expect((await call(t, 'GET', '/sub-company', wholesaleA.token)).json()).toEqual([
      expect.objectContaining({ id: subCompanyA, name: 'Kool A' }),
    ]);
  });

  it("are a 404 for the company's own users in the other store", async () => {
    // The master's company has no users in WEB2: its ids there are nobody's.
    const web2 = await createCustomer(t.database.db, { kind: 'BUSINESS', store: 'WEB2' });
    await t.database.db
      .updateTable('client_account')
      .set({ company_id: masterA.companyId })
      .where('id', '=', web2.clientAccountId)
      .execute();
    expectErrorBody(await call(t, 'DELETE', `/company-user/${employeeA.id}`, web2.token, undefined, 'WEB2'), 404, 'Not Found');
    expect((await call(t, 'GET', '/company-user', web2.token, undefined, 'WEB2')).json()).toHaveLength(1);
  });
});

describe('bad input', () => {
  it.each([
    [{ ...invitation, email: 'not an email' }, ['email']],
    [{ ...invitation, email: 123 }, ['email']],
    [{ ...invitation, role: 'BOSS' }, ['role']],
    [{ ...invitation, firstName: '', lastName: 'x'.repeat(101) }, ['firstName', 'lastName']],
    [{ email: 'a@example.ee' }, ['firstName', 'lastName', 'role']],
    [{ ...invitation, email: 'someone@example.com' }, ['email']],
  ])('refuses the invitation %j with a 422', async (body, fields) => {
    expect(expectFieldErrors(await call(t, 'POST', '/company-user', masterA.token, body)).sort()).toEqual(fields);
  });

  it('refuses an empty change, and bad ids with a 400', async () => {
    // Nothing to change: said as such (it was " is invalid.", naming no field).
    const empty = await call(t, 'PUT', `/company-user/${employeeA.id}`, masterA.token, {});
    expect(expectFieldErrors(empty)).toEqual(['']);
    expect(empty.json()).toEqual([{ field: '', message: 'Saatke vähemalt üks väli.' }]);
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      expect((await call(t, 'PUT', `/company-user/${id}`, masterA.token, { role: 'MASTER' })).statusCode, id).toBe(400);
      expect((await call(t, 'DELETE', `/company-user/${id}`, masterA.token)).statusCode, id).toBe(400);
      expect((await call(t, 'DELETE', `/sub-company/${id}`, wholesaleA.token)).statusCode, id).toBe(400);
    }
    expect((await call(t, 'GET', '/company-user?page=0', masterA.token)).statusCode).toBe(400);
  });

  it('refuses a body that is not JSON with a 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/company-user',
      headers: { authorization: `Bearer ${masterA.token}`, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(response.statusCode).toBe(415);
  });
});
