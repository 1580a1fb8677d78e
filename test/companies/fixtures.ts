import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { GOOD_PASSWORD, login, mailTo, me, tokenFromMail, verify, type AccountsTestApp } from '../helpers/accounts.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import type { Shop } from '../orders/helpers.js';
import { placeOrder } from '../orders/purchase-helpers.js';

// Shared steps of the companies tests: requests with a bearer token, and the invitation flow
// through the real SMTP server, the verification link and the login.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export function call(
  t: AccountsTestApp,
  method: Method,
  url: string,
  token?: string,
  payload?: unknown,
  store = 'WEB',
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { store };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
}

/** A master of a new company of the kind, with a token (the account written straight to the tables). */
export async function companyMaster(t: AccountsTestApp, kind: 'BUSINESS' | 'WHOLESALE', companyDiscountPercent = 0): Promise<TestCustomer> {
  return createCustomer(t.database.db, { kind, companyDiscountPercent });
}

/** Sends an invitation and expects it to be accepted; answers the company user. */
export async function invite(t: AccountsTestApp, token: string, email: string, role: 'MASTER' | 'EMPLOYEE' = 'EMPLOYEE') {
  const response = await call(t, 'POST', '/company-user', token, { email, firstName: 'Tiit', lastName: 'Töötaja', role });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { id: number; email: string; role: string; status: string; clientCode: string; createdAt: string };
}

/**
 * Follows the newest invitation mail to `email`: the verification link sets the password; then
 * logs in as the person and answers that login's token.
 */
export async function acceptInvitation(t: AccountsTestApp, email: string): Promise<string> {
  await t.drainJobs();
  const mails = t.smtp.mails.filter((mail) => mail.text?.includes('verificationToken') && JSON.stringify(mail.to).includes(email));
  const mail = mails.at(-1) ?? (await mailTo(t, email));
  const verified = await verify(t, tokenFromMail(mail, 'verificationToken'));
  expect(verified.statusCode, verified.body).toBe(200);
  const loggedIn = await login(t, email, GOOD_PASSWORD);
  expect(loggedIn.statusCode, loggedIn.body).toBe(200);
  return loggedIn.json().accessToken as string;
}

async function ok(response: Promise<LightMyRequestResponse>, status = 200): Promise<LightMyRequestResponse> {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer;
}

/** What a person sees of their own account with this token: its code, orders, addresses, wishlist and basket. */
export async function seenBy(t: AccountsTestApp, token: string) {
  const orders = (await ok(call(t, 'GET', '/order', token))).json() as Array<{ code: string }>;
  const addresses = (await ok(call(t, 'GET', '/client-account/address', token))).json() as Array<{ address: string }>;
  const wishlist = (await ok(call(t, 'GET', '/wishlist', token))).json() as unknown[];
  const basket = (await ok(call(t, 'GET', '/basket', token))).json() as { products?: unknown[]; items?: unknown[] };
  return {
    clientCode: (await ok(me(t, token))).json().clientCode as string,
    orders: orders.map((order) => order.code),
    addresses: addresses.map((address) => address.address),
    wishlist: wishlist.length,
    basketLines: (basket.products ?? basket.items ?? []).length,
  };
}

/**
 * Uses the account of this token: an order of `book` (paid by invoice, as a company pays; a retail
 * customer pays another way), a delivery address on `street`, a wishlist line and a basket line;
 * answers the order's code.
 */
export async function useAccount(
  t: AccountsTestApp,
  shop: Shop,
  book: number,
  token: string,
  street: string,
  paymentMethodId = 'INVOICE',
): Promise<string> {
  const order = await placeOrder(t, shop, { bearer: token, ip: '203.0.113.40' }, [[book, 1]], { form: { paymentMethodId } });
  await ok(
    call(t, 'POST', '/client-account/address', token, {
      kind: 'SHIPPING',
      name: 'Tiit Töötaja',
      phone: '+372 5123 4567',
      address: street,
      city: 'Tartu',
      postcode: '51007',
      countryNavCode: 'EE',
      isDefault: true,
    }),
    201,
  );
  await ok(call(t, 'POST', '/wishlist', token, { productId: book }), 201);
  await ok(call(t, 'POST', '/basket/add-product', token, { productId: book, quantity: 2 }));
  return order.code;
}
