import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectFieldErrors } from '../helpers/http.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// Text people type (src/http/text.ts): a field of one line (a name, a city, a title) refuses every
// control character, a text of several lines (a message, notes, a comment) keeps tabs and line
// breaks and refuses the others. One field of each module that takes such text, through HTTP: the
// refusal is a 422 naming the field in the caller's language, and nothing is stored. Text with
// letters of any language, apostrophes, hyphens and spaces passes as before.

let t: TestApp;
let customer: TestCustomer;
let business: TestCustomer;
let wholesale: TestCustomer;
let operatorKey: string;

beforeAll(async () => {
  t = await createTestApp();
  customer = await createCustomer(t.database.db, { firstName: 'Mari', lastName: 'Maasikas' });
  business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
  wholesale = await createCustomer(t.database.db, { kind: 'WHOLESALE' });
  operatorKey = await createApiKey(t.database.db, 'text-fields', Date.now());
});
afterAll(() => t?.close());

/** Tables a refused request may change: rate-limit counters count refusals too, signing secrets are made on first use. */
const COUNTERS = new Set(['rate_limit', 'app_secret', 'session_action', 'banner_ctr']);

/** count(*) of every table but the counters. */
async function rowCounts(): Promise<Record<string, number>> {
  const db = t.database.db;
  const tables = (
    engine === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and name not like 'sqlite_%' and sql not like 'create virtual table%'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
  ).rows
    .map((row) => row.name)
    .filter((name) => !COUNTERS.has(name) && !name.startsWith('kysely_migration'));
  const row = (
    await sql
      .raw<Record<string, number | string>>(`select ${tables.map((name, i) => `(select count(*) from "${name}") as c${i}`).join(', ')}`)
      .execute(db)
  ).rows[0]!;
  return Object.fromEntries(tables.map((name, i) => [name, Number(row[`c${i}`])]));
}

type Method = 'GET' | 'POST' | 'PUT';
const send = (method: Method, url: string, options: { token?: string; payload?: object; language?: string } = {}) =>
  t.app.inject({
    method,
    url,
    headers: {
      'x-app-language': options.language ?? 'en',
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    },
    ...(options.payload === undefined ? {} : { payload: options.payload }),
  });

/** The 422's message for `field`, which must be among its fields. */
function messageFor(response: LightMyRequestResponse, field: string): string {
  expect(expectFieldErrors(response)).toContain(field);
  return (response.json() as Array<{ field: string; message: string }>).find((entry) => entry.field === field)!.message;
}

const ESCAPE = 'Maa\u001b[31msikas';
const address = { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' };
const form = (overrides: Record<string, unknown>) => ({
  email: `text.${Math.random().toString(36).slice(2, 10)}@example.ee`,
  firstName: 'Mari',
  lastName: 'Maasikas',
  ...overrides,
});
const checkoutLine = (prefix: string) => ({
  [`${prefix}Name`]: 'Mari Maasikas',
  [`${prefix}Email`]: 'mari@example.ee',
  [`${prefix}Phone`]: '+372 5555 1234',
  [`${prefix}Address`]: 'Pikk 1',
  [`${prefix}City`]: 'Tallinn',
  [`${prefix}Postcode`]: '10123',
  [`${prefix}CountryNavCode`]: 'EE',
});
const checkoutForm = (overrides: Record<string, unknown>) => ({
  ...checkoutLine('shipping'),
  ...checkoutLine('billing'),
  deliveryMethodId: 1,
  paymentMethodId: 'TEST_GATEWAY',
  termsAccepted: true,
  ...overrides,
});
const contentPage = (seoTitle: string) => ({
  store: 'WEB',
  slug: 'tekstivaljad',
  translations: { et: { title: 'Tekstiväljad', body: '<p>Sisu</p>\n\t<p>Teine</p>', seoTitle } },
});

/** A request with one bad text field, and the field its 422 names. */
interface Case {
  module: string;
  field: string;
  request: (value: string, language?: string) => Promise<LightMyRequestResponse>;
  /** Optional read of what the request would have changed, the same before and after. */
  read?: () => Promise<unknown>;
  multiline?: boolean;
}

const CASES: Case[] = [
  {
    module: 'accounts (registration)',
    field: 'lastName',
    request: (value, language) => send('POST', '/auth/register-simple', { language, payload: form({ lastName: value }) }),
  },
  {
    module: 'accounts (business registration)',
    field: 'address.city',
    request: (value, language) =>
      send('POST', '/auth/register-business', {
        language,
        payload: {
          email: `text.b.${Math.random().toString(36).slice(2, 10)}@example.ee`,
          companyName: 'Raamat OÜ',
          registryCode: '12345678',
          address: { ...address, city: value },
          contact: { firstName: 'Mari', lastName: 'Maasikas', email: 'mari.b@example.ee', phone: '+372 5555 1234' },
        },
      }),
  },
  {
    module: 'accounts (wholesale message)',
    field: 'message',
    multiline: true,
    request: (value, language) =>
      send('POST', '/auth/register-wholesale', {
        language,
        payload: {
          email: `text.w.${Math.random().toString(36).slice(2, 10)}@example.ee`,
          companyName: 'Raamat OÜ',
          registryCode: '87654321',
          address,
          contact: { firstName: 'Mari', lastName: 'Maasikas', email: 'mari.w@example.ee', phone: '+372 5555 1234' },
          expectedYearlyTurnover: 10_000,
          message: value,
        },
      }),
  },
  {
    module: 'profile',
    field: 'lastName',
    request: (value, language) => send('PUT', '/client-account', { language, token: customer.token, payload: { lastName: value } }),
    read: async () => (await send('GET', '/client-account', { token: customer.token })).json().lastName,
  },
  {
    module: 'profile (addresses)',
    field: 'city',
    request: (value, language) =>
      send('POST', '/client-account/address', {
        language,
        token: customer.token,
        payload: {
          kind: 'SHIPPING',
          name: 'Mari Maasikas',
          phone: '+372 5555 5555',
          address: 'Rüütli 2',
          city: value,
          postcode: '51007',
          countryNavCode: 'EE',
        },
      }),
  },
  {
    module: 'companies (company users)',
    field: 'lastName',
    request: (value, language) =>
      send('POST', '/company-user', {
        language,
        token: business.token,
        payload: { email: 'tiit.text@example.ee', firstName: 'Tiit', lastName: value, role: 'EMPLOYEE' },
      }),
  },
  {
    module: 'companies (sub-company addresses)',
    field: 'addresses.0.street',
    request: (value, language) =>
      send('POST', '/sub-company', {
        language,
        token: wholesale.token,
        payload: { name: 'Tartu kool', addresses: [{ ...address, street: value }] },
      }),
  },
  {
    module: 'content (operator edits)',
    field: 'translations.et.seoTitle',
    request: (value, language) =>
      send('PUT', '/admin/content/content-pages/TEXT1', { language, token: operatorKey, payload: contentPage(value) }),
    read: async () => (await send('GET', '/content-page/tekstivaljad')).json().seoTitle ?? null,
  },
  {
    module: 'content (a code the operator names: a banner placement)',
    field: 'placement',
    request: (value, language) =>
      send('PUT', '/admin/content/banners/TEXT3', {
        language,
        token: operatorKey,
        payload: { store: 'WEB', placement: value, translations: { et: { title: 'Bänner' } } },
      }),
  },
  {
    module: 'contact',
    field: 'subject',
    request: (value, language) =>
      send('POST', '/contact', { language, payload: { name: 'Mari Maasikas', email: 'mari@example.ee', subject: value, message: 'Tere' } }),
  },
  {
    module: 'contact (message)',
    field: 'message',
    multiline: true,
    request: (value, language) =>
      send('POST', '/contact', { language, payload: { name: 'Mari Maasikas', email: 'mari@example.ee', subject: 'Tere', message: value } }),
  },
  {
    module: 'orders (checkout)',
    field: 'shippingCity',
    request: (value, language) =>
      send('POST', '/checkout', { language, token: customer.token, payload: checkoutForm({ shippingCity: value }) }),
  },
  {
    module: 'orders (checkout notes)',
    field: 'notes',
    multiline: true,
    request: (value, language) => send('POST', '/checkout', { language, token: customer.token, payload: checkoutForm({ notes: value }) }),
  },
  {
    module: 'basket (virtual gift card)',
    field: 'giftCard.recipientName',
    request: (value, language) =>
      send('POST', '/basket/add-product', {
        language,
        token: customer.token,
        payload: {
          productId: 1,
          quantity: 1,
          giftCard: { amount: 25, recipientName: value, recipientEmail: 'juku@example.ee', deliveryDate: '2030-01-01' },
        },
      }),
  },
  {
    module: 'catalogue (comments)',
    field: 'body',
    multiline: true,
    request: (value, language) => send('POST', '/product/1/comments', { language, token: customer.token, payload: { body: value } }),
  },
];

/** Control characters each kind of field refuses; the line breaks and tab only in a field of one line. */
const REFUSED_EVERYWHERE = ['\u0000', '\u0001', '\u0007', '\u0008', '\u000b', '\u000c', '\u001b', '\u001f', '\u007f', '\u0085', '\u009f'];
const LINE_BREAKS = ['\n', '\r\n', '\t'];

describe('a text field with control characters', () => {
  it.each(CASES)('is refused with a 422 on its field and stores nothing: $module $field', async (testCase) => {
    const before = await rowCounts();
    const seen = await testCase.read?.();
    const refused = [...REFUSED_EVERYWHERE, ...(testCase.multiline ? [] : LINE_BREAKS)];
    for (const character of refused) {
      const response = await testCase.request(`Mari${character}Maasikas`);
      expect(messageFor(response, testCase.field), JSON.stringify(character)).toBe(
        `${testCase.field} contains characters that are not allowed.`,
      );
    }
    // The escape sequence of a terminal colour, in Estonian.
    const estonian = await testCase.request(ESCAPE, 'et');
    expect(messageFor(estonian, testCase.field)).toBe(`${testCase.field} sisaldab lubamatuid märke.`);
    expect(await rowCounts()).toEqual(before);
    if (testCase.read) expect(await testCase.read()).toEqual(seen);
  });
});

describe('messages', () => {
  it('name the field in the caller language; blank text is "cannot be blank"', async () => {
    const payload = (lastName: string) => ({ payload: form({ lastName }) });
    const estonian = await send('POST', '/auth/register-simple', { ...payload(ESCAPE), language: 'et' });
    expect(messageFor(estonian, 'lastName')).toBe('lastName sisaldab lubamatuid märke.');
    const russian = await send('POST', '/auth/register-simple', { ...payload(ESCAPE), language: 'ru' });
    expect(messageFor(russian, 'lastName')).toBe('Значение «lastName» содержит недопустимые символы.');
    const blank = await send('POST', '/auth/register-simple', payload(' \u00a0 '));
    expect(messageFor(blank, 'lastName')).toBe('lastName cannot be blank.');
    const both = await send('POST', '/contact', { payload: { name: '\u0001', email: 'mari@example.ee', subject: ' ', message: '\n\t' } });
    expect(both.json()).toEqual([
      { field: 'name', message: 'name contains characters that are not allowed.' },
      { field: 'subject', message: 'subject cannot be blank.' },
      { field: 'message', message: 'message cannot be blank.' },
    ]);
  });
});

describe('text without control characters', () => {
  it('passes as before: letters of any language, apostrophes, hyphens, spaces; tabs and line breaks where text has several lines', async () => {
    const registered = await send('POST', '/auth/register-simple', {
      payload: form({ firstName: 'Õie-Mari Žanna', lastName: "O'Brien-Ääremaa Иванова 李" }),
    });
    expect(registered.statusCode, registered.body).toBe(200);
    const renamed = await send('PUT', '/client-account', { token: customer.token, payload: { lastName: "D'Artagnan-Šõrm" } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().lastName).toBe("D'Artagnan-Šõrm");
    const saved = await send('POST', '/client-account/address', {
      token: customer.token,
      payload: {
        kind: 'BILLING',
        name: 'Jean-Luc Lévesque',
        phone: '+372 5555 5555',
        address: "Rue de l'Église 3",
        city: "Saint-Jean-d'Angély",
        postcode: '17400',
        countryNavCode: 'EE',
      },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const page = await send('PUT', '/admin/content/content-pages/TEXT2', {
      token: operatorKey,
      payload: { ...contentPage('Lugemisnurk – “parim”'), slug: 'lugemisnurk' },
    });
    expect(page.statusCode, page.body).toBe(200);
    const contact = await send('POST', '/contact', {
      payload: {
        name: 'Mari Maasikas',
        email: 'mari@example.ee',
        subject: 'Tellimus № 5',
        message: 'Tere!\r\n\tKas mu raamat on teel?\nAitäh',
      },
    });
    expect(contact.statusCode, contact.body).toBeLessThan(300);
  });
});
