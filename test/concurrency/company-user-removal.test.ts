import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyMaster, lockedMaster } from '../../src/modules/companies/company-access.js';
import { removeCompanyUser } from '../../src/modules/companies/company-users.service.js';
import { call } from '../basket/helpers.js';
import { createCustomer, createEmployee, SHIPPING_ADDRESS, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { as } from '../profile/helpers.js';

// A master removing an employee (DELETE /company-user/{id}) and that employee's own write at once.
// Both take the employee's client account (the removal marks it REMOVED, a writer locks it first),
// so they end as one of them alone, then the other, would: a write first is kept (the company's
// with the account), a write that waited for the removal is a 401, as the ended token answers, and
// writes nothing under the company. On PostgreSQL the write meets the removal in flight; SQLite
// runs them one after the other.

let t: TestApp;
let shop: Shop;
let book: number;
beforeAll(async () => {
  t = await createTestApp();
  shop = await setUpShop(t);
  book = await stockedBook(t, shop, 10_000);
});
afterAll(async () => t?.close());

const count = async (table: 'client_address' | 'basket' | 'customer_order', employee: TestCustomer) => {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('client_account_id', '=', employee.clientAccountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

interface Writer {
  name: string;
  /** What the employee had before (a basket to check out). */
  prepare?: (employee: TestCustomer) => Promise<void>;
  write: (employee: TestCustomer) => Promise<LightMyRequestResponse>;
  ok: number;
  rows: (employee: TestCustomer) => Promise<number>;
}

const writers: Writer[] = [
  {
    name: 'POST /client-account/address',
    write: (employee) => as(t, employee.token)('POST', '/client-account/address', SHIPPING_ADDRESS),
    ok: 201,
    rows: (employee) => count('client_address', employee),
  },
  {
    name: 'POST /basket/add-product',
    write: (employee) => call(t, 'POST', '/basket/add-product', { bearer: employee.token }, { productId: book, quantity: 1 }),
    ok: 200,
    rows: (employee) => count('basket', employee),
  },
  {
    name: 'POST /checkout (an order for the company)',
    prepare: async (employee) => void (await fill(t, { bearer: employee.token }, [[book, 1]])),
    write: (employee) => checkout(t, { bearer: employee.token }, { ...checkoutForm(shop), paymentMethodId: 'INVOICE' }),
    ok: 200,
    rows: (employee) => count('customer_order', employee),
  },
];

/** The employee's removal as DELETE /company-user/{id} runs it, held open (uncommitted) while `during` starts. */
async function duringRemoval(master: TestCustomer, employee: TestCustomer, during: () => Promise<LightMyRequestResponse>) {
  let answer!: LightMyRequestResponse;
  await whileTransactionOpen(
    t.database.db,
    async (trx) => {
      const caller = await lockedMaster(trx, { clientAccountId: master.clientAccountId }, companyMaster);
      await removeCompanyUser(trx, caller, employee.clientAccountId, Date.now());
    },
    async () => (answer = await during()),
  );
  return answer;
}

describe.each(writers)("an employee's removal and their $name", (writer) => {
  it('while the removal is open, the write waits for it and is a 401; nothing is written after the removal', async () => {
    for (let round = 0; round < 3; round++) {
      const master = await createCustomer(t.database.db, { kind: 'BUSINESS' });
      const employee = await createEmployee(t.database.db, master);
      await writer.prepare?.(employee);
      const before = await writer.rows(employee);
      const written = await duringRemoval(master, employee, () => writer.write(employee));
      expectErrorBody(written, 401, 'Unauthorized');
      expect(await writer.rows(employee)).toBe(before);
    }
  });

  it('sent together, either order ends without a 500: the write is kept only when it came first', async () => {
    for (let round = 0; round < 3; round++) {
      const master = await createCustomer(t.database.db, { kind: 'BUSINESS' });
      const employee = await createEmployee(t.database.db, master);
      await writer.prepare?.(employee);
      const before = await writer.rows(employee);
      const [removed, written] = await Promise.all([
        as(t, master.token)('DELETE', `/company-user/${employee.clientAccountId}`),
        writer.write(employee),
      ]);
      expect(removed.statusCode, removed.body).toBe(200);
      expect([writer.ok, 401], written.body).toContain(written.statusCode);
      expect(await writer.rows(employee)).toBe(written.statusCode === 401 ? before : Math.max(before, 1));
    }
  });
});
