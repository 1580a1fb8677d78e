import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A field whose schema is a union (literals, a nullable string, a category code or id) took its 422
// message from the union's first branch alone: a bad gender said "allowed values: MALE", a
// fractional category id "must be of type string". The message now describes what the union takes
// (http/union-errors.ts), and a refused body changes nothing.

let t: TestApp;
let customer: TestCustomer;
beforeAll(async () => {
  t = await createTestApp();
  customer = await createCustomer(t.database.db);
});
afterAll(() => t.close());

const send = (method: 'PUT' | 'POST', url: string, payload: unknown, token?: string) =>
  t.app.inject({
    method,
    url,
    headers: { 'x-app-language': 'en', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: payload as object,
  });

/** The 422's `{field, message}` entries. */
async function fieldErrors(method: 'PUT' | 'POST', url: string, payload: unknown, token = customer.token) {
  const response = await send(method, url, payload, token);
  expect(response.statusCode, response.body).toBe(422);
  return response.json() as Array<{ field: string; message: string }>;
}

const profile = async () =>
  (await t.app.inject({ method: 'GET', url: '/client-account', headers: { authorization: `Bearer ${customer.token}` } })).json();

describe('a union of literals', () => {
  it('lists every allowed value, whatever the wrong value', async () => {
    const before = await profile();
    for (const gender of ['X', 5]) {
      expect(await fieldErrors('PUT', '/client-account', { gender })).toEqual([
        { field: 'gender', message: 'gender is invalid; allowed values: MALE, FEMALE, OTHER, null.' },
      ]);
    }
    expect(await fieldErrors('PUT', '/client-account', { language: 'de' })).toEqual([
      { field: 'language', message: 'language is invalid; allowed values: et, en, ru.' },
    ]);
    expect(await profile()).toEqual(before);
  });

  it('lists them in a login role and a query parameter too', async () => {
    const login = { email: 'nobody@example.ee', password: 'secret', web_store_nav_code: 'WEB', role: 'ADMIN' };
    expect(await fieldErrors('POST', '/auth/login', login)).toEqual([
      { field: 'role', message: 'role is invalid; allowed values: SIMPLE, BUSINESS, WHOLESALE.' },
    ]);
    const body = expectErrorBody(
      await t.app.inject({ method: 'GET', url: '/main-page?preview=maybe', headers: { 'x-app-language': 'en' } }),
      400,
      'Bad Request',
    );
    expect(body.message).toBe('Invalid value of "preview": preview is invalid; allowed values: 1, true, 0, false.');
  });

  it("lists them in the preferences' newsletter language and a company user's role", async () => {
    expect(await fieldErrors('PUT', '/client-account/preferences', { newsletterLanguage: 'fi' })).toEqual([
      { field: 'newsletterLanguage', message: 'newsletterLanguage is invalid; allowed values: et, en, ru.' },
    ]);
    expect(await fieldErrors('PUT', '/company-user/1', { role: 'OWNER' })).toEqual([
      { field: 'role', message: 'role is invalid; allowed values: MASTER, EMPLOYEE.' },
    ]);
  });
});

describe('a nullable string', () => {
  it('says what is wrong with a string, and a value of another type that it takes a string or null', async () => {
    expect(await fieldErrors('PUT', '/client-account', { phone: 12345678 })).toEqual([
      { field: 'phone', message: 'phone must be of one of the types: string, null.' },
    ]);
    expect(await fieldErrors('PUT', '/client-account', { phone: '+372 5555 5555 5555 5555 5555 5555 5' })).toEqual([
      { field: 'phone', message: 'phone should contain at most 30 characters.' },
    ]);
  });
});

describe('a category code or id', () => {
  it('says that an id is a positive whole number, for a fraction, and names both for another type', async () => {
    const put = (categories: unknown[]) => fieldErrors('PUT', '/category-preference', { categories });
    expect(await put(['FICTION', 1.5])).toEqual([{ field: 'categories.1', message: 'categories.1 must be a positive whole number.' }]);
    expect(await put([true])).toEqual([{ field: 'categories.0', message: 'categories.0 must be of one of the types: string, integer.' }]);
    expect(await put([0])).toEqual([{ field: 'categories.0', message: 'categories.0 must be no less than 1.' }]);
    expect(await put([''])).toEqual([{ field: 'categories.0', message: 'categories.0 should contain at least 1 characters.' }]);
  });
});
