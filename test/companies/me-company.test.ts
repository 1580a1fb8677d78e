import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, createEmployee, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A business or wholesale user's front-end shows a company's master its users (and a wholesale
// master its sub-companies), and an employee not. GET /user/me told the account type only, so
// the front-end could tell a master from an employee by trying GET /company-user for its 403, and
// had no company name to show. It now tells the company and the caller's role there, read afresh
// (as the company routes read it), and null for a retail account.

let t: TestApp;
let master: TestCustomer;
let employee: TestCustomer;
let wholesaleMaster: TestCustomer;
let retail: TestCustomer;
let companyName: (customer: TestCustomer) => Promise<string>;
beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  master = await createCustomer(db, { kind: 'BUSINESS' });
  employee = await createEmployee(db, master);
  wholesaleMaster = await createCustomer(db, { kind: 'WHOLESALE' });
  retail = await createCustomer(db);
  companyName = async (customer) =>
    (await db.selectFrom('company').select('name').where('id', '=', customer.companyId!).executeTakeFirstOrThrow()).name;
});
afterAll(() => t.close());

const get = (url: string, customer: TestCustomer) =>
  t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${customer.token}` } });

const me = async (customer: TestCustomer) => {
  const response = await get('/user/me', customer);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { role: string; company: { name: string; role: string } | null };
};

describe('GET /user/me of a company user', () => {
  it("tells a master their company and role, as the company's routes see them", async () => {
    expect(await me(master)).toMatchObject({ role: 'BUSINESS', company: { name: await companyName(master), role: 'MASTER' } });
    expect((await get('/company-user', master)).statusCode).toBe(200);
    expect(await me(wholesaleMaster)).toMatchObject({
      role: 'WHOLESALE',
      company: { name: await companyName(wholesaleMaster), role: 'MASTER' },
    });
  });

  it('tells an employee the company they buy for, and that they are an employee there', async () => {
    expect(await me(employee)).toMatchObject({ role: 'BUSINESS', company: { name: await companyName(master), role: 'EMPLOYEE' } });
    expect((await get('/company-user', employee)).statusCode).toBe(403);
  });

  it('answers null for a retail account', async () => {
    expect((await me(retail)).company).toBeNull();
  });
});
