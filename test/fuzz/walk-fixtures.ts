import { expect } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { checkoutFormWith } from '../orders/helpers.js';

// What the credentialed walk's callers own, so that a changed request gets past "there is no such
// thing" to the code that writes: on the demo shop, a customer's address, order and basket line,
// a company's employee and sub-company. Made through the API where a flow makes them.

/** The demo's delivery method by courier (src/demo/shops.ts), a book with web stock and a virtual gift card. */
export interface Shop {
  courierId: number;
  bookId: number;
  giftCardId: number;
}

export async function demoShop(t: TestApp): Promise<Shop> {
  const db = t.database.db;
  const courier = await db.selectFrom('delivery_method').select('id').where('code', '=', 'COURIER').executeTakeFirstOrThrow();
  const book = await db
    .selectFrom('product')
    .select('id')
    .where('type', '=', 'BOOK')
    .where('is_active', '=', true)
    .where('hidden_web', '=', false)
    .orderBy('web_stock', 'desc')
    .orderBy('id')
    .executeTakeFirstOrThrow();
  // Every accepted checkout of the walk reserves a copy: enough that the book never runs out.
  await db.updateTable('product').set({ web_stock: 1_000_000 }).where('id', '=', book.id).execute();
  const giftCard = await db
    .selectFrom('product')
    .select('id')
    .where('type', '=', 'VIRTUAL_GIFT_CARD')
    .orderBy('id')
    .executeTakeFirstOrThrow();
  return { courierId: Number(courier.id), bookId: Number(book.id), giftCardId: Number(giftCard.id) };
}

/** A request as one customer, in the demo's web store. */
export function asCustomer(t: TestApp, token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: { store: 'WEB', authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function ok(response: Promise<{ statusCode: number; body: string; json(): unknown }>, status = 200) {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer.json() as Record<string, unknown>;
}

export const ADDRESS = {
  kind: 'SHIPPING',
  name: 'Mari Maasikas',
  address: 'Pikk 1',
  city: 'Tallinn',
  postcode: '10123',
  countryNavCode: 'EE',
  phone: '+372 5555 1234',
};

export function checkoutForm(shop: Shop, paymentMethodId = 'CASH_ON_DELIVERY') {
  return checkoutFormWith(shop.courierId, { paymentMethodId });
}

/** What one customer owns: a delivery address and an order (its create-form link), and a book in the basket. */
export interface Belongings {
  customer: TestCustomer;
  addressId: number;
  orderCode: string;
  /** orderId and checksum, the query of the order's links (/bank/...). */
  orderQuery: Record<string, string>;
}

/** A retail customer pays cash on delivery, a company's by invoice. */
export const paymentOf = (customer: TestCustomer) => (customer.companyId === null ? 'CASH_ON_DELIVERY' : 'INVOICE');

export async function belongingsOf(t: TestApp, shop: Shop, customer: TestCustomer): Promise<Belongings> {
  const address = await ok(asCustomer(t, customer.token, 'POST', '/client-account/address', ADDRESS), 201);
  await ok(asCustomer(t, customer.token, 'POST', '/basket/add-product', { productId: shop.bookId, quantity: 1 }));
  const placed = await ok(asCustomer(t, customer.token, 'POST', '/checkout', checkoutForm(shop, paymentOf(customer))));
  const location = new URL(String(placed.location));
  const orderQuery = Object.fromEntries(location.searchParams);
  // With nothing to pay online, opening the payment link moves the order on to processing.
  await ok(t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}` }));
  const order = await t.database.db
    .selectFrom('customer_order')
    .select('code')
    .where('id', '=', Number(orderQuery.orderId))
    .executeTakeFirstOrThrow();
  await ok(asCustomer(t, customer.token, 'POST', '/basket/add-product', { productId: shop.bookId, quantity: 1 }));
  return { customer, addressId: Number(address.id), orderCode: order.code!, orderQuery };
}

/** A company's master (wholesale: only those have sub-companies), an employee of it, and a sub-company. */
export interface Company {
  master: TestCustomer;
  employee: TestCustomer;
  subCompanyId: number;
}

export async function employeeOf(t: TestApp, companyId: number): Promise<TestCustomer> {
  const employee = await createCustomer(t.database.db, { kind: 'WHOLESALE' });
  await t.database.db
    .updateTable('client_account')
    .set({ company_id: companyId, role: 'wholesale_employee' })
    .where('id', '=', employee.clientAccountId)
    .execute();
  return { ...employee, companyId };
}

export async function newCompany(t: TestApp): Promise<Company> {
  const master = await createCustomer(t.database.db, { kind: 'WHOLESALE' });
  const employee = await employeeOf(t, master.companyId!);
  const sub = await ok(
    asCustomer(t, master.token, 'POST', '/sub-company', {
      name: 'Tartu Kool',
      addresses: [{ street: 'Rüütli 2', city: 'Tartu', postcode: '51007', countryCode: 'EE' }],
    }),
  );
  return { master, employee, subCompanyId: Number(sub.id) };
}
