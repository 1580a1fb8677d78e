import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOfficeApp } from '../helpers/back-office.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import type { TestApp } from '../helpers/test-app.js';

// Two validation messages made in http/validation.ts for every route: a date or date-time that is
// not in its format says which form is expected, with an example (it said "has an invalid format"),
// and a query parameter given more than once says so (a repeated id said "must be a positive whole
// number", which the client had sent).

let t: TestApp;
let key: string;
let customer: TestCustomer;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
  customer = await createCustomer(t.database.db);
});
afterAll(() => t.close());

const get = (url: string, language: string, token?: string) =>
  t.app.inject({ method: 'GET', url, headers: { 'x-app-language': language, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

const message = async (url: string, language = 'en', token = key) =>
  expectErrorBody(await get(url, language, token), 400, 'Bad Request').message;

const FROM = 'from=2026-11-01T00:00:00Z';
const TO = 'to=2026-11-30T00:00:00Z';

describe('a date-time query parameter in another form', () => {
  it('names RFC 3339 with an example, in each language, on every route', async () => {
    expect(await message('/admin/orders?updatedSince=2026-11-30')).toBe(
      'Invalid value of "updatedSince": updatedSince must be a date and time in RFC 3339 form with a time zone, e.g. 2026-11-30T10:15:00Z.',
    );
    expect(await message(`/admin/ctr?from=2026-11-01+10:00:00&${TO}`)).toContain('e.g. 2026-11-30T10:15:00Z');
    expect(await message('/admin/orders?updatedSince=yesterday', 'et')).toContain('nt 2026-11-30T10:15:00Z');
    expect(await message(`/admin/ctr?${FROM}&to=2026-11-30`, 'ru')).toContain('например 2026-11-30T10:15:00Z');
  });
});

describe('a date in a body in another form', () => {
  it('names YYYY-MM-DD with an example and changes nothing', async () => {
    const put = (birthday: string, language: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/client-account',
        headers: { 'x-app-language': language, authorization: `Bearer ${customer.token}` },
        payload: { birthday },
      });
    const profile = () => t.app.inject({ method: 'GET', url: '/client-account', headers: { authorization: `Bearer ${customer.token}` } });
    const before = (await profile()).json();
    const refused = await put('30.11.1990', 'en');
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toEqual([{ field: 'birthday', message: 'birthday must be a date in the format YYYY-MM-DD, e.g. 2026-11-30.' }]);
    expect((await put('1990-11-31', 'et')).json()[0].message).toContain('nt 2026-11-30');
    expect((await put('1990/11/30', 'ru')).json()[0].message).toContain('например 2026-11-30');
    expect((await profile()).json()).toEqual(before);
  });
});

describe('a query parameter given more than once', () => {
  it('says so, in each language, whatever the parameter', async () => {
    expect(await message('/product?categoryId=1&categoryId=2', 'en', '')).toBe(
      'Invalid value of "categoryId": categoryId is given more than once; give it once.',
    );
    expect(await message('/product?per-page=5&per-page=5', 'et', '')).toBe(
      'Parameetri "per-page" väärtus on vigane: per-page on antud mitu korda; andke see ainult üks kord.',
    );
    expect(await message(`/admin/ctr?${FROM}&${FROM}&${TO}`, 'ru')).toContain('указан несколько раз');
    expect(await message('/admin/orders?updatedSince=2026-11-30T00:00:00Z&updatedSince=x', 'en')).toContain('given more than once');
  });

  it("is still the value's own message when given once", async () => {
    expect(await message('/product?categoryId=1.5', 'en', '')).toContain('must be a positive whole number');
  });
});
