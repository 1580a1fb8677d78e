import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  mailTo,
  me,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';

// Every account route against input it must refuse: the right status in the documented shape,
// never a 500, and nothing written. Routes that need a token get a valid one, so what is refused
// is the input under test and not the token.

let t: AccountsTestApp;
let accessToken: string;
let verificationToken: string;
let resetToken: string;

beforeAll(async () => {
  t = await createAccountsTestApp();
  accessToken = await registerVerified(t, uniqueEmail('holder'));

  const pending = uniqueEmail('pending');
  await register(t, pending);
  verificationToken = tokenFromMail(await mailTo(t, pending), 'verificationToken');

  const forgetful = uniqueEmail('forgetful');
  await registerVerified(t, forgetful);
  await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email: forgetful } });
  resetToken = tokenFromMail(await mailTo(t, forgetful, /Parooli taastamine/), 'passwordResetToken');
});
afterAll(() => t.close());

const businessForm = () => ({
  companyName: 'Raamatukoi OÜ',
  registryCode: '12345678',
  vatNumber: 'EE100000001',
  address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
  contact: { firstName: 'Juku', lastName: 'Tamm', email: uniqueEmail('biz'), phone: '+3725551234' },
});

interface Route {
  /** The query string the route needs to get as far as its body. */
  query?: () => string;
  bearer?: boolean;
  /** A body the route accepts; routes without one take no body. */
  valid?: () => Record<string, unknown>;
}

const ROUTES = {
  'POST /auth/register': { valid: () => ({ email: uniqueEmail() }) },
  'POST /auth/register-simple': { valid: () => ({ email: uniqueEmail(), firstName: 'Mari', lastName: 'Maasikas' }) },
  'POST /auth/register-business': { valid: businessForm },
  'POST /auth/register-wholesale': { valid: () => ({ ...businessForm(), expectedYearlyTurnover: 100_000 }) },
  'GET /auth/verify-email-meta': { query: () => `verificationToken=${verificationToken}` },
  'POST /auth/verify-email': {
    query: () => `verificationToken=${verificationToken}`,
    valid: () => ({ password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD, termsAccepted: true }),
  },
  'POST /auth/reset-password': { valid: () => ({ email: uniqueEmail() }) },
  'POST /auth/set-new-password': {
    query: () => `passwordResetToken=${resetToken}`,
    valid: () => ({ password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD }),
  },
  'POST /auth/login': { valid: () => ({ email: uniqueEmail(), password: GOOD_PASSWORD, web_store_nav_code: 'WEB' }) },
  'POST /auth/switch-web-store': { bearer: true, valid: () => ({ webStoreNavCode: 'WEB2' }) },
  'POST /auth/logout': { bearer: true },
  'GET /user/me': { bearer: true },
} satisfies Record<string, Route>;

type RouteKey = keyof typeof ROUTES;
const ALL_ROUTES = Object.keys(ROUTES) as RouteKey[];
const POST_ROUTES = ALL_ROUTES.filter((key) => key.startsWith('POST '));
const BODY_ROUTES = ALL_ROUTES.filter((key) => (ROUTES[key] as Route).valid !== undefined);
const TOKEN_QUERY_ROUTES = ['GET /auth/verify-email-meta', 'POST /auth/verify-email', 'POST /auth/set-new-password'] as const;

interface Call {
  /** A JSON body (an object); `raw` sends text as it is instead. */
  body?: Record<string, unknown>;
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Replaces the route's own query string ('' for none). */
  query?: string;
}

function send(key: RouteKey, call: Call = {}): Promise<LightMyRequestResponse> {
  const route: Route = ROUTES[key];
  const [method, path] = key.split(' ') as ['GET' | 'POST', string];
  const query = call.query ?? route.query?.() ?? '';
  const headers: Record<string, string> = { ...(route.bearer ? { authorization: `Bearer ${accessToken}` } : {}), ...call.headers };
  let payload: string | undefined;
  if (call.raw !== undefined) {
    payload = call.raw;
    headers['content-type'] = call.contentType ?? 'application/json';
  } else if (call.body !== undefined || route.valid !== undefined) {
    payload = JSON.stringify(call.body ?? route.valid!());
    headers['content-type'] = 'application/json';
  }
  return t.app.inject({ method, url: query === '' ? path : `${path}?${query}`, headers, ...(payload === undefined ? {} : { payload }) });
}

/** The route's valid body with fields changed; `undefined` removes a field. */
function validWith(key: RouteKey, change: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...(ROUTES[key] as Route).valid!(), ...change };
  for (const [field, value] of Object.entries(body)) if (value === undefined) delete body[field];
  return body;
}

const TABLES = ['app_user', 'client_account', 'company', 'wholesale_request', 'job', 'access_token'] as const;

async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await t.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

/** Sends the request and checks it was refused below 500 and wrote nothing. */
async function refused(key: RouteKey, call: Call): Promise<LightMyRequestResponse> {
  const before = await rowCounts();
  const response = await send(key, call);
  expect(response.statusCode, response.body).toBeLessThan(500);
  expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
  expect(await rowCounts()).toEqual(before);
  return response;
}

const longEmail = `${'a'.repeat(288)}@example.ee`;
const name101 = 'N'.repeat(101);

describe('field errors: 422 naming the fields', () => {
  const contact = (change: Record<string, unknown>) => ({ ...businessForm().contact, ...change });
  const address = (change: Record<string, unknown>) => ({ ...businessForm().address, ...change });

  it.each<[RouteKey, string, () => Record<string, unknown>, string[]]>([
    // Wrong types.
    ['POST /auth/register', 'email as a number', () => ({ email: 42 }), ['email']],
    ['POST /auth/register', 'newsletter as a string', () => validWith('POST /auth/register', { newsletter: 'yes' }), ['newsletter']],
    ['POST /auth/register', 'firstName as a number', () => validWith('POST /auth/register', { firstName: 7 }), ['firstName']],
    ['POST /auth/register', 'birthday as a number', () => validWith('POST /auth/register', { birthday: 19900517 }), ['birthday']],
    [
      'POST /auth/register-simple',
      'names as a number and a boolean',
      () => validWith('POST /auth/register-simple', { firstName: 1, lastName: true }),
      ['firstName', 'lastName'],
    ],
    [
      'POST /auth/register-simple',
      'newsletter as "true"',
      () => validWith('POST /auth/register-simple', { newsletter: 'true' }),
      ['newsletter'],
    ],
    [
      'POST /auth/register-business',
      'registryCode as a number',
      () => validWith('POST /auth/register-business', { registryCode: 12345678 }),
      ['registryCode'],
    ],
    [
      'POST /auth/register-business',
      'address as a string',
      () => validWith('POST /auth/register-business', { address: 'Pikk 1, Tallinn' }),
      ['address'],
    ],
    [
      'POST /auth/register-business',
      'contact.email as a number',
      () => validWith('POST /auth/register-business', { contact: contact({ email: 42 }) }),
      ['contact.email'],
    ],
    [
      'POST /auth/register-wholesale',
      'turnover as a string',
      () => validWith('POST /auth/register-wholesale', { expectedYearlyTurnover: '100000' }),
      ['expectedYearlyTurnover'],
    ],
    [
      'POST /auth/register-wholesale',
      'turnover as a fraction',
      () => validWith('POST /auth/register-wholesale', { expectedYearlyTurnover: 0.5 }),
      ['expectedYearlyTurnover'],
    ],
    [
      'POST /auth/register-wholesale',
      'message as a number',
      () => validWith('POST /auth/register-wholesale', { message: 12 }),
      ['message'],
    ],
    [
      'POST /auth/verify-email',
      'passwords as numbers',
      () => validWith('POST /auth/verify-email', { password: 12345678, passwordRepeat: 12345678 }),
      ['password', 'passwordRepeat'],
    ],
    [
      'POST /auth/verify-email',
      'termsAccepted as "true"',
      () => validWith('POST /auth/verify-email', { termsAccepted: 'true' }),
      ['termsAccepted'],
    ],
    ['POST /auth/verify-email', 'newsletter as 1', () => validWith('POST /auth/verify-email', { newsletter: 1 }), ['newsletter']],
    ['POST /auth/reset-password', 'email as a number', () => ({ email: 42 }), ['email']],
    ['POST /auth/reset-password', 'email as an object', () => ({ email: { address: 'a@b.ee' } }), ['email']],
    [
      'POST /auth/set-new-password',
      'passwords as numbers',
      () => ({ password: 12345678, passwordRepeat: 12345678 }),
      ['password', 'passwordRepeat'],
    ],
    ['POST /auth/login', 'email as a number', () => validWith('POST /auth/login', { email: 42 }), ['email']],
    ['POST /auth/login', 'password as a number', () => validWith('POST /auth/login', { password: 12345678 }), ['password']],
    [
      'POST /auth/login',
      'web_store_nav_code as a number',
      () => validWith('POST /auth/login', { web_store_nav_code: 1 }),
      ['web_store_nav_code'],
    ],
    ['POST /auth/login', 'an unknown role', () => validWith('POST /auth/login', { role: 'ADMIN' }), ['role']],
    ['POST /auth/switch-web-store', 'webStoreNavCode as a number', () => ({ webStoreNavCode: 2 }), ['webStoreNavCode']],
    // Missing required fields.
    ['POST /auth/register', 'no fields', () => ({}), ['email']],
    [
      'POST /auth/register-simple',
      'no names',
      () => validWith('POST /auth/register-simple', { firstName: undefined, lastName: undefined }),
      ['firstName', 'lastName'],
    ],
    ['POST /auth/register-simple', 'no fields', () => ({}), ['email', 'firstName', 'lastName']],
    ['POST /auth/register-business', 'no fields', () => ({}), ['address', 'companyName', 'contact', 'registryCode']],
    [
      'POST /auth/register-business',
      'no contact phone',
      () => validWith('POST /auth/register-business', { contact: contact({ phone: undefined }) }),
      ['contact.phone'],
    ],
    [
      'POST /auth/register-wholesale',
      'no turnover',
      () => validWith('POST /auth/register-wholesale', { expectedYearlyTurnover: undefined }),
      ['expectedYearlyTurnover'],
    ],
    [
      'POST /auth/register-wholesale',
      'no fields',
      () => ({}),
      ['address', 'companyName', 'contact', 'expectedYearlyTurnover', 'registryCode'],
    ],
    ['POST /auth/verify-email', 'no fields', () => ({}), ['password', 'passwordRepeat', 'termsAccepted']],
    ['POST /auth/reset-password', 'no fields', () => ({}), ['email']],
    ['POST /auth/set-new-password', 'no fields', () => ({}), ['password', 'passwordRepeat']],
    ['POST /auth/set-new-password', 'no repeat', () => ({ password: GOOD_PASSWORD }), ['passwordRepeat']],
    ['POST /auth/login', 'no fields', () => ({}), ['email', 'password', 'web_store_nav_code']],
    ['POST /auth/switch-web-store', 'no fields', () => ({}), ['webStoreNavCode']],
    // Overlong strings.
    ['POST /auth/register', 'an email of 300 characters', () => ({ email: longEmail }), ['email']],
    [
      'POST /auth/register',
      'a first name of 101 characters',
      () => validWith('POST /auth/register', { firstName: name101 }),
      ['firstName'],
    ],
    [
      'POST /auth/register-simple',
      'a last name of 101 characters',
      () => validWith('POST /auth/register-simple', { lastName: name101 }),
      ['lastName'],
    ],
    [
      'POST /auth/register-business',
      'a company name of 201 characters',
      () => validWith('POST /auth/register-business', { companyName: 'C'.repeat(201) }),
      ['companyName'],
    ],
    [
      'POST /auth/register-business',
      'a contact email of 300 characters',
      () => validWith('POST /auth/register-business', { contact: contact({ email: longEmail }) }),
      ['contact.email'],
    ],
    [
      'POST /auth/register-business',
      'a contact name of 101 characters',
      () => validWith('POST /auth/register-business', { contact: contact({ firstName: name101 }) }),
      ['contact.firstName'],
    ],
    [
      'POST /auth/register-business',
      'a street of 201 characters',
      () => validWith('POST /auth/register-business', { address: address({ street: 'S'.repeat(201) }) }),
      ['address.street'],
    ],
    [
      'POST /auth/register-wholesale',
      'a message of 2001 characters',
      () => validWith('POST /auth/register-wholesale', { message: 'm'.repeat(2001) }),
      ['message'],
    ],
    [
      'POST /auth/register-wholesale',
      'a contact email of 300 characters',
      () => validWith('POST /auth/register-wholesale', { contact: contact({ email: longEmail }) }),
      ['contact.email'],
    ],
    [
      'POST /auth/verify-email',
      'a password of 1001 characters',
      () => validWith('POST /auth/verify-email', { password: 'p'.repeat(1001) }),
      ['password'],
    ],
    ['POST /auth/reset-password', 'an email of 300 characters', () => ({ email: longEmail }), ['email']],
    [
      'POST /auth/set-new-password',
      'passwords of 1001 characters',
      () => ({ password: 'p'.repeat(1001), passwordRepeat: 'p'.repeat(1001) }),
      ['password', 'passwordRepeat'],
    ],
    ['POST /auth/login', 'an email of 300 characters', () => validWith('POST /auth/login', { email: longEmail }), ['email']],
    [
      'POST /auth/login',
      'a password of 1001 characters',
      () => validWith('POST /auth/login', { password: 'p'.repeat(1001) }),
      ['password'],
    ],
    ['POST /auth/switch-web-store', 'a store code of 17 characters', () => ({ webStoreNavCode: 'W'.repeat(17) }), ['webStoreNavCode']],
  ])('%s with %s', async (key, _case, body, fields) => {
    const response = await refused(key, { body: body() });
    expect(expectFieldErrors(response).sort()).toEqual(fields);
  });

  // PostgreSQL refuses a NUL character in text; such a value must be refused as input, not reach the database.
  it.each<[RouteKey, string, () => Record<string, unknown>, string[]]>([
    ['POST /auth/register', 'firstName', () => validWith('POST /auth/register', { firstName: 'Ma\u0000ri' }), ['firstName']],
    ['POST /auth/register-simple', 'lastName', () => validWith('POST /auth/register-simple', { lastName: 'Maa\u0000sikas' }), ['lastName']],
    [
      'POST /auth/register-business',
      'companyName',
      () => validWith('POST /auth/register-business', { companyName: 'Raamatukoi\u0000 OÜ' }),
      ['companyName'],
    ],
    [
      'POST /auth/register-wholesale',
      'address.city',
      () => validWith('POST /auth/register-wholesale', { address: address({ city: 'Tal\u0000linn' }) }),
      ['address.city'],
    ],
    ['POST /auth/login', 'email', () => validWith('POST /auth/login', { email: 'mari\u0000@example.ee' }), ['email']],
  ])('%s with a NUL character in %s', async (key, _field, body, fields) => {
    const response = await refused(key, { body: body() });
    expect(expectFieldErrors(response).sort()).toEqual(fields);
  });
});

describe('bodies that are not a JSON object', () => {
  const TRANSPORT: Array<[string, Call, number, string]> = [
    ['malformed JSON', { raw: '{"email": "mari@example.ee",' }, 400, 'Bad Request'],
    ['a text/plain body', { raw: 'email=mari@example.ee', contentType: 'text/plain' }, 415, 'Unsupported Media Type'],
    ['a form body', { raw: 'email=mari%40example.ee', contentType: 'application/x-www-form-urlencoded' }, 415, 'Unsupported Media Type'],
    ['an XML body', { raw: '<email>mari@example.ee</email>', contentType: 'application/xml' }, 415, 'Unsupported Media Type'],
    [
      'a body over 1 MiB',
      { raw: JSON.stringify({ email: 'mari@example.ee', padding: 'x'.repeat(1024 * 1024) }) },
      413,
      'Payload Too Large',
    ],
  ];
  it.each(POST_ROUTES.flatMap((key) => TRANSPORT.map(([what, call, status, name]) => [key, what, call, status, name] as const)))(
    '%s with %s: %i',
    async (key, _what, call, status, name) => {
      expectErrorBody(await refused(key, call), status, name);
    },
  );

  // Only routes that take a body: logout has none to check, and GET bodies are not read.
  const SHAPES: Array<[string, string]> = [
    ['an empty body', ''],
    ['an empty JSON array', '[]'],
    ['an array holding the form', '[{"email":"mari@example.ee"}]'],
    ['a JSON string', '"mari@example.ee"'],
    ['JSON null', 'null'],
    ['a JSON number', '42'],
  ];
  it.each(BODY_ROUTES.flatMap((key) => SHAPES.map(([what, raw]) => [key, what, raw] as const)))(
    '%s with %s: 400',
    async (key, _what, raw) => {
      expectErrorBody(await refused(key, { raw }), 400, 'Bad Request');
    },
  );
});

describe('an unknown store header', () => {
  it.each(ALL_ROUTES.flatMap((key) => ['SHOP', 'web', 'WEB3'].map((store) => [key, store] as const)))(
    '%s with store %j: 400, even with a valid request',
    async (key, store) => {
      expectErrorBody(await refused(key, { headers: { store } }), 400, 'Bad Request');
    },
  );
});

describe('the token in the query', () => {
  const CASES: Array<[string, (name: string) => string]> = [
    ['missing', () => ''],
    ['empty', (name) => `${name}=`],
    ['201 characters', (name) => `${name}=${'A'.repeat(201)}`],
    ['given twice', (name) => `${name}=a&${name}=b`],
    ['under another name', () => 'token=abc'],
    ['unknown', (name) => `${name}=${'A'.repeat(43)}`],
  ];
  it.each(TOKEN_QUERY_ROUTES.flatMap((key) => CASES.map(([what, query]) => [key, what, query] as const)))(
    '%s with the token %s: 400',
    async (key, _what, query) => {
      const name = key.endsWith('set-new-password') ? 'passwordResetToken' : 'verificationToken';
      expectErrorBody(await refused(key, { query: query(name) }), 400, 'Bad Request');
    },
  );

  it.each(['POST /auth/verify-email', 'POST /auth/set-new-password'] as const)(
    '%s without a token: 400 before the form is looked at',
    async (key) => {
      expectErrorBody(await refused(key, { query: '', body: { password: 1 } }), 400, 'Bad Request');
    },
  );
});

describe('after all of the above', () => {
  it('the tokens used for the requests still work: nothing was consumed or revoked', async () => {
    expect((await me(t, accessToken)).statusCode).toBe(200);
    const reset = await t.app.inject({
      method: 'POST',
      url: `/auth/set-new-password?passwordResetToken=${resetToken}`,
      payload: { password: 'Uus-parool-kuuse-all-77', passwordRepeat: 'Uus-parool-kuuse-all-77' },
    });
    expect(reset.statusCode, reset.body).toBe(200);
    const verified = await verify(t, verificationToken);
    expect(verified.statusCode, verified.body).toBe(200);
  });
});
