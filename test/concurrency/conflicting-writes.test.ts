import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLines } from '../basket/import-helpers.js';
import { call, companyMaster } from '../companies/fixtures.js';
import { createAccountsTestApp, type AccountsTestApp } from '../helpers/accounts.js';
import { createCustomer } from '../helpers/customers.js';
import { reservedQuantity } from '../helpers/table-counts.js';
import { checkoutForm, fill, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';

// Writes that conflict, sent at once: each pair ends as one of its orders alone would have ended
// it, and none is a 500. On PostgreSQL (READ COMMITTED) they run in parallel transactions, where a
// check made before the row lock goes stale; SQLite runs them one after the other.

let t: AccountsTestApp;
let shop: Shop;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' } });
  shop = await setUpShop(t);
}, 60_000);
afterAll(() => t?.close());

const db = () => t.database.db;
const cashOnDelivery = (notes = '') => checkoutForm(shop, { paymentMethodId: 'CASH_ON_DELIVERY', notes });

describe('a quantity changed while the basket is checked out', () => {
  it('is in the order (the change went first) or refused as not in the basket (the checkout emptied it first)', async () => {
    const book = await stockedBook(t, shop, 100);
    for (let round = 0; round < 4; round++) {
      const client = await createCustomer(db());
      const who = { bearer: client.token };
      await fill(t, who, [[book, 1]]);
      const reservedBefore = await reservedQuantity(db(), book);
      const [placed, changed] = await Promise.all([
        call(t, 'POST', '/checkout', client.token, cashOnDelivery()),
        call(t, 'PUT', '/basket/change-quantity', client.token, { productId: book, quantity: 4 }),
      ]);
      expect(placed.statusCode, placed.body).toBe(200);
      expect([200, 404], changed.body).toContain(changed.statusCode);
      const ordered = changed.statusCode === 200 ? 4 : 1;
      const orders = (await call(t, 'GET', '/order', client.token)).json() as Array<{ itemCount: number }>;
      expect(orders.map((order) => order.itemCount)).toEqual([ordered]);
      expect((await reservedQuantity(db(), book)) - reservedBefore).toBe(ordered);
      expect((await call(t, 'GET', '/basket', client.token)).json().items).toEqual([]);
    }
  });
});

describe('the last use of a discount code taken by three checkouts at once', () => {
  it('goes to one order; the others are a 422 on the code and write nothing', async () => {
    const imported = await importLines(t, 'discount-codes', [{ code: 'VIIMANE', percent: 10, maxUses: 1 }]);
    expect(imported.statusCode, imported.body).toBe(200);
    const book = await stockedBook(t, shop, 100);
    const buyers = [];
    for (let i = 0; i < 3; i++) {
      const client = await createCustomer(db());
      await fill(t, { bearer: client.token }, [[book, 1]]);
      const added = await call(t, 'POST', '/basket/add-discount', client.token, { code: 'VIIMANE' });
      expect(added.statusCode, added.body).toBe(200);
      buyers.push(client);
    }
    const ordersBefore = await db().selectFrom('customer_order').select('id').execute();
    const answers = await Promise.all(buyers.map((buyer) => call(t, 'POST', '/checkout', buyer.token, cashOnDelivery())));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 422, 422]);
    const code = await db().selectFrom('discount_code').select('used_count').where('code', '=', 'VIIMANE').executeTakeFirstOrThrow();
    expect(Number(code.used_count)).toBe(1);
    expect(await db().selectFrom('customer_order').select('id').execute()).toHaveLength(ordersBefore.length + 1);
  });
});

describe('two masters demoting or removing each other at once', () => {
  it('leaves the company one master: the second change is refused (403, or 401 for a removed caller)', async () => {
    for (const [first, second] of [
      ['demote', 'demote'],
      ['remove', 'remove'],
      ['remove', 'demote'],
    ] as const) {
      const a = await companyMaster(t, 'BUSINESS');
      const b = await companyMaster(t, 'BUSINESS');
      await db().updateTable('client_account').set({ company_id: a.companyId }).where('id', '=', b.clientAccountId).execute();
      const users = (await call(t, 'GET', '/company-user', a.token)).json() as Array<{ id: number; clientCode: string }>;
      const idOf = (master: { clientCode: string }) => users.find((user) => user.clientCode === master.clientCode)!.id;
      const change = (kind: 'demote' | 'remove', by: string, id: number) =>
        kind === 'demote' ? call(t, 'PUT', `/company-user/${id}`, by, { role: 'EMPLOYEE' }) : call(t, 'DELETE', `/company-user/${id}`, by);
      const answers = await Promise.all([change(first, a.token, idOf(b)), change(second, b.token, idOf(a))]);
      // The refused one is a 403, or a 401 when its caller was removed (and its token ended) before it was read.
      const [done, refused] = answers.map((answer) => answer.statusCode).sort();
      expect(done, `${first} + ${second}`).toBe(200);
      expect([401, 403], `${first} + ${second}`).toContain(refused);
      const masters = await db()
        .selectFrom('client_account')
        .select('id')
        .where('company_id', '=', a.companyId!)
        .where('status', '=', 'ACTIVE')
        .where('role', 'not in', ['company_employee', 'wholesale_employee'])
        .execute();
      expect(masters, `${first} + ${second}`).toHaveLength(1);
    }
  });
});
