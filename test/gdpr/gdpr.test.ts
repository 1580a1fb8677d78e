import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/infra/tokens.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createAccountsTestApp, GOOD_PASSWORD, login, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createCustomer, createEmployee } from '../helpers/customers.js';
import { exportUser } from '../data-export/fixtures.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { as } from '../profile/helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// "Your data" through HTTP: the export holds every part of the caller and nothing of anyone else
// or any secret; the erasure takes the person out of everything, keeps their orders for
// accounting, ends every login and is refused while it must not happen.

let t: AccountsTestApp;
let shop: Shop;
let book: number;
/** Sold out: what a back-in-stock request is for. */
let soldOut: number;

interface Person {
  email: string;
  token: string;
  code: string;
  orderId: number;
}

const contact = (name: string, email: string) => ({
  shippingName: name,
  shippingEmail: email,
  shippingPhone: '+372 5000 0001',
  shippingAddress: `${name} tänav 7`,
  billingName: name,
  billingEmail: email,
  billingPhone: '+372 5000 0001',
  billingAddress: `${name} tänav 7`,
  paymentMethodId: 'CASH_ON_DELIVERY',
});

/** A registered client with a profile, an address, a consent (the newsletter subscription), a social identity, a session action, an order and a basket. */
async function person(name: string): Promise<Person> {
  const email = uniqueEmail(name.toLowerCase().replace(/\W/g, ''));
  const token = await registerVerified(t, email);
  const call = as(t, token);
  const db = t.database.db;
  const account = await db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['client_account.code', 'app_user.id'])
    .where('app_user.email', '=', email)
    .executeTakeFirstOrThrow();
  const profile = await call('PUT', '/client-account', {
    phone: '+372 5123 4567',
    gender: 'FEMALE',
    birthday: '1990-04-01',
    marketingConsents: { email: true },
  });
  expect(profile.statusCode, profile.body).toBe(200);
  const address = await call('POST', '/client-account/address', {
    kind: 'SHIPPING',
    name,
    phone: '+372 5555 5555',
    address: 'Rüütli 2',
    city: 'Tartu',
    postcode: '51007',
    countryNavCode: 'EE',
  });
  expect(address.statusCode, address.body).toBe(201);
  const now = Date.now();
  await db
    .insertInto('social_identity')
    .values({ provider: 'google', subject: `google-${account.code}`, user_id: account.id, email, created_at: now })
    .execute();
  await db
    .insertInto('session_action')
    .values({
      session_id: `session-${account.code}`,
      store_code: 'WEB',
      product_code: 'P-1',
      client_code: account.code,
      action_type: 'VIEW',
      created_at: now,
    })
    .execute();
  expect((await call('POST', '/wishlist', { productId: book })).statusCode).toBe(201);
  const request = await call('POST', '/back-in-stock', { productId: soldOut });
  expect(request.statusCode, request.body).toBe(201);
  const who = await fill(t, { bearer: token }, [[book, 2]]);
  const placed = await checkout(t, who, checkoutForm(shop, contact(name, email)));
  expect(placed.statusCode, placed.body).toBe(200);
  await fill(t, { bearer: token }, [[book, 1]]);
  return { email, token, code: account.code, orderId: orderLink(placed.json().location).orderId };
}

/** The back office delivered the order (erasure waits for open orders). */
const complete = (orderId: number) =>
  t.database.db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('id', '=', orderId).execute();

let alice: Person;
let bob: Person;

beforeAll(async () => {
  t = await createAccountsTestApp();
  shop = await setUpShop(t);
  book = await stockedBook(t, shop, 100, 12.5);
  soldOut = await stockedBook(t, shop, 0);
  alice = await person('Alice Aasmäe');
  bob = await person('Bob Birkenfeld');
});
afterAll(async () => t?.close());

describe('GET /client-account/export', () => {
  it('needs a bearer token', async () => {
    const response = await as(t, undefined)('GET', '/client-account/export');
    expectErrorBody(response, 401, 'Unauthorized');
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it("is a download of every part of the caller's data, without secrets and without anyone else", async () => {
    const response = await as(t, alice.token)('GET', '/client-account/export');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="personal-data-${alice.code}.json"`);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    const data = response.json();
    expect(data.account.user).toMatchObject({
      email: alice.email,
      firstName: 'Mari',
      phone: '+372 5123 4567',
      birthday: '1990-04-01',
      gender: 'FEMALE',
    });
    expect(data.account.clientAccounts).toEqual([expect.objectContaining({ code: alice.code, store: 'WEB', status: 'ACTIVE' })]);
    expect(data.account.logins.length).toBeGreaterThan(0);
    expect(data.profile.consentHistory).toContainEqual(expect.objectContaining({ consent: 'EMAIL', granted: true }));
    expect(data.profile.addresses).toEqual([expect.objectContaining({ name: 'Alice Aasmäe', city: 'Tartu' })]);
    expect(data.orders.items).toHaveLength(1);
    expect(data.orders.items[0]).toMatchObject({
      shipping: { name: 'Alice Aasmäe', email: alice.email },
      paymentMethod: 'CASH_ON_DELIVERY',
      lines: [expect.objectContaining({ productId: book, quantity: 2, unitPrice: 12.5 })],
    });
    expect(data.basketReminders).toEqual({ lastReminderAt: null });
    expect(data.baskets).toEqual([
      expect.objectContaining({ store: 'WEB', lines: [expect.objectContaining({ productId: book, quantity: 1 })] }),
    ]);
    expect(data.newsletter.subscriptions).toEqual([expect.objectContaining({ store: 'WEB', subscribed: true })]);
    expect(data.socialIdentities).toEqual([expect.objectContaining({ provider: 'google', subject: `google-${alice.code}` })]);
    expect(data.sessionActions).toMatchObject({ items: [{ action: 'VIEW', productCode: 'P-1' }], truncated: false });
    expect(data.wishlist).toEqual([expect.objectContaining({ productId: book, store: 'WEB', rememberedPriceCents: expect.any(Number) })]);
    expect(data.wishlistOfferMails).toEqual([]);
    expect(data.backInStockRequests).toEqual([expect.objectContaining({ email: alice.email, store: 'WEB' })]);
    expect(data.companyMemberships).toEqual([]);
    expect(data.downloads).toEqual([]);
    expect(data.salesHistory.items).toEqual([]);
    expect(data.catalogue).toEqual({ categoryPreferences: [], comments: [], ratings: [] });

    const text = response.body;
    const user = await t.database.db
      .selectFrom('app_user')
      .select('password_hash')
      .where('email', '=', alice.email)
      .executeTakeFirstOrThrow();
    for (const secret of [user.password_hash!, '$argon2', hashToken(alice.token), alice.token, 'password_hash', 'token_hash']) {
      expect(text).not.toContain(secret);
    }
    for (const other of [bob.email, bob.code, 'Bob Birkenfeld']) expect(text).not.toContain(other);
  });

  it('holds at most 10 000 session actions, newest first, and says so when there are more', async () => {
    const frank = await createCustomer(t.database.db);
    const now = Date.now();
    for (let batch = 0; batch < 11; batch += 1) {
      const rows = Array.from({ length: batch === 10 ? 1 : 1000 }, (_, i) => ({
        session_id: 's-frank',
        store_code: 'WEB',
        product_code: `P-${batch * 1000 + i}`,
        client_code: frank.clientCode,
        action_type: 'VIEW' as const,
        created_at: now + batch * 1000 + i,
      }));
      await t.database.db.insertInto('session_action').values(rows).execute();
    }
    const data = (await as(t, frank.token)('GET', '/client-account/export')).json();
    expect(data.sessionActions.items).toHaveLength(10_000);
    expect(data.sessionActions.items[0].productCode).toBe('P-10000');
    expect(data.sessionActions.items.at(-1).productCode).toBe('P-1');
    expect(data.sessionActions).toMatchObject({ truncated: true, note: expect.stringContaining('10000') });
  });

  it('is limited to 5 an hour per user (429 with Retry-After)', async () => {
    const carol = await createCustomer(t.database.db);
    for (let i = 0; i < 5; i += 1) expect((await as(t, carol.token)('GET', '/client-account/export')).statusCode).toBe(200);
    const refused = await as(t, carol.token)('GET', '/client-account/export');
    expectErrorBody(refused, 429, 'Too Many Requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('DELETE /client-account', () => {
  it('needs a bearer token, and refuses bad bodies with a 4xx', async () => {
    expectErrorBody(await as(t, undefined)('DELETE', '/client-account', { password: GOOD_PASSWORD }), 401, 'Unauthorized');
    const call = as(t, bob.token);
    expectFieldErrors(await call('DELETE', '/client-account', { password: 123 }));
    expectFieldErrors(await call('DELETE', '/client-account', { password: 'x'.repeat(1025) }));
    const noBody = await call('DELETE', '/client-account');
    expect(noBody.statusCode).toBeGreaterThanOrEqual(400);
    expect(noBody.statusCode).toBeLessThan(500);
  });

  it('asks for the password of a user who has one, and refuses a wrong one', async () => {
    const call = as(t, bob.token);
    expect(expectFieldErrors(await call('DELETE', '/client-account', {}))).toEqual(['password']);
    expect(expectFieldErrors(await call('DELETE', '/client-account', { password: 'not-it' }))).toEqual(['password']);
    expect((await as(t, bob.token)('GET', '/client-account')).statusCode).toBe(200);
  });

  it('refuses guessing: wrong passwords end in a 429, after which even the right one waits', async () => {
    const erin = uniqueEmail('erin');
    const token = await registerVerified(t, erin);
    let refused;
    for (let i = 0; i < 12 && refused === undefined; i += 1) {
      const response = await as(t, token)('DELETE', '/client-account', { password: `wrong-${i}` });
      if (response.statusCode === 429) refused = response;
      else expect(response.statusCode).toBe(422);
    }
    expect(refused, 'no 429 within 12 wrong passwords').toBeDefined();
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
    expect((await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD })).statusCode).toBe(429);
    expect((await as(t, token)('GET', '/client-account')).statusCode).toBe(200);
  });

  it('is refused while an order is still open', async () => {
    expectErrorBody(await as(t, alice.token)('DELETE', '/client-account', { password: GOOD_PASSWORD }), 409, 'Conflict');
    expect((await as(t, alice.token)('GET', '/client-account')).statusCode).toBe(200);
  });

  it('erases the person: orders kept with amounts and lines but without them, login and token dead, nothing of anyone else touched', async () => {
    const db = t.database.db;
    const orderBefore = await db.selectFrom('customer_order').selectAll().where('id', '=', alice.orderId).executeTakeFirstOrThrow();
    const linesBefore = await db.selectFrom('order_line').selectAll().where('order_id', '=', alice.orderId).execute();
    await complete(alice.orderId);
    // A reset link she asked for, typed in capitals, still queued (the worker has not run yet).
    const reset = await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email: alice.email.toUpperCase() } });
    expect(reset.statusCode, reset.body).toBe(200);
    const exported = (await as(t, alice.token)('GET', '/client-account/export')).json();
    expect(exported.outbox).toContainEqual(expect.objectContaining({ type: expect.any(String), status: 'pending' }));

    const erased = await as(t, alice.token)('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);
    // The queued mail is ended, and no job keeps her address.
    const jobs = await db.selectFrom('job').select(['payload', 'status', 'result']).execute();
    expect(JSON.stringify(jobs).toLowerCase()).not.toContain(alice.email.toLowerCase());
    expect(jobs.filter((job) => job.result === 'cancelled: the person was erased').length).toBeGreaterThan(0);
    expect(jobs.filter((job) => job.status === 'pending' && job.payload.includes('@erased.invalid'))).toEqual([]);

    expectErrorBody(await as(t, alice.token)('GET', '/client-account'), 401, 'Unauthorized');
    // The wishlist and back-in-stock requests go; Bob's stay.
    expect(await db.selectFrom('back_in_stock_request').select('email').execute()).toEqual([{ email: bob.email }]);
    expect(await db.selectFrom('wishlist_item').select('client_account_id').execute()).toHaveLength(1);
    expect((await login(t, alice.email)).statusCode).not.toBe(200);

    const order = await db.selectFrom('customer_order').selectAll().where('id', '=', alice.orderId).executeTakeFirstOrThrow();
    const same = [
      'code',
      'total_cents',
      'subtotal_cents',
      'vat_cents',
      'delivery_cents',
      'created_at',
      'payment_method',
      'shipping_country',
    ] as const;
    for (const column of same) expect(order[column]).toEqual(orderBefore[column]);
    expect(order.status).toBe('COMPLETED');
    expect(await db.selectFrom('order_line').selectAll().where('order_id', '=', alice.orderId).execute()).toEqual(linesBefore);
    expect(order).toMatchObject({
      shipping_name: '[erased]',
      billing_name: '[erased]',
      shipping_phone: '[erased]',
      shipping_address: '[erased]',
    });
    expect(order.shipping_email).toMatch(/@erased\.invalid$/);
    expect(JSON.stringify(order)).not.toMatch(/Alice|Aasmäe|5000 0001/);
    expect(JSON.stringify(order)).not.toContain(alice.email);

    const user = await db.selectFrom('app_user').selectAll().where('email', 'like', '%@erased.invalid').executeTakeFirstOrThrow();
    expect(user).toMatchObject({ first_name: null, last_name: null, phone: null, birthday: null, gender: null, password_hash: null });
    const account = await db
      .selectFrom('client_account')
      .select(['status', 'user_id'])
      .where('code', '=', alice.code)
      .executeTakeFirstOrThrow();
    expect(account.status).toBe('ERASED');
    const userId = Number(account.user_id);
    const count = async (table: 'access_token' | 'social_identity' | 'marketing_consent_event', id = userId) =>
      (await db.selectFrom(table).select('user_id').where('user_id', '=', id).execute()).length;
    expect(await count('access_token')).toBe(0);
    expect(await count('social_identity')).toBe(0);
    expect(await count('marketing_consent_event')).toBe(0);
    expect(await db.selectFrom('newsletter_subscriber').select('id').where('email', '=', alice.email).execute()).toEqual([]);
    expect(await db.selectFrom('session_action').select('id').where('client_code', '=', alice.code).execute()).toEqual([]);
    const accountId = (await db.selectFrom('client_account').select('id').where('code', '=', alice.code).executeTakeFirstOrThrow()).id;
    expect(await db.selectFrom('client_address').select('id').where('client_account_id', '=', accountId).execute()).toEqual([]);
    expect(await db.selectFrom('basket').select('id').where('client_account_id', '=', accountId).execute()).toEqual([]);

    // The analytics partner's export no longer shows her gender or birthday (nor followed categories).
    const partner = await exportUser(db);
    const rows = await t.app.inject({
      method: 'GET',
      url: '/export/client-account?per-page=100',
      headers: { authorization: partner.authorization },
    });
    expect(rows.statusCode, rows.body).toBe(200);
    const row = (rows.json() as Array<{ client: string }>).find((item) => item.client === alice.code);
    expect(row).toMatchObject({ gender: '', birthday: null, preferences: [] });
    const bobsRow = (rows.json() as Array<{ client: string }>).find((item) => item.client === bob.code);
    expect(bobsRow).toMatchObject({ gender: 'FEMALE', birthday: '1990-04-01T00:00:00Z' });

    // Bob is untouched: his order, his login, his export.
    const bobsOrder = await db
      .selectFrom('customer_order')
      .select(['shipping_name'])
      .where('id', '=', bob.orderId)
      .executeTakeFirstOrThrow();
    expect(bobsOrder.shipping_name).toBe('Bob Birkenfeld');
    expect((await login(t, bob.email)).statusCode).toBe(200);
    const bobs = (await as(t, bob.token)('GET', '/client-account/export')).json();
    expect(bobs.socialIdentities).toHaveLength(1);
    expect(bobs.newsletter.subscriptions).toHaveLength(1);
  });

  it('lets a user without a password erase only within 10 minutes of logging in', async () => {
    const db = t.database.db;
    const dan = await createCustomer(db);
    await db
      .updateTable('access_token')
      .set({ created_at: Date.now() - 11 * 60_000 })
      .where('token_hash', '=', hashToken(dan.token))
      .execute();
    expectErrorBody(await as(t, dan.token)('DELETE', '/client-account', {}), 403, 'Forbidden');
    await db.updateTable('access_token').set({ created_at: Date.now() }).where('token_hash', '=', hashToken(dan.token)).execute();
    expect((await as(t, dan.token)('DELETE', '/client-account', {})).statusCode).toBe(204);
    const account = await db.selectFrom('client_account').select('status').where('id', '=', dan.clientAccountId).executeTakeFirstOrThrow();
    expect(account.status).toBe('ERASED');
  });

  it("counts a token re-issued by switching store from the old one's sign-in, so switching does not make a login fresh", async () => {
    const db = t.database.db;
    const eve = await createCustomer(db);
    const signedIn = Date.now() - 11 * 60_000;
    await db.updateTable('access_token').set({ created_at: signedIn }).where('token_hash', '=', hashToken(eve.token)).execute();
    const switched = await as(t, eve.token)('POST', '/auth/switch-web-store', { webStoreNavCode: 'WEB2' });
    expect(switched.statusCode, switched.body).toBe(200);
    const token = (switched.json() as { accessToken: string }).accessToken;
    const stored = await db
      .selectFrom('access_token')
      .select('signed_in_at')
      .where('token_hash', '=', hashToken(token))
      .executeTakeFirstOrThrow();
    expect(Number(stored.signed_in_at)).toBe(signedIn);
    const erase = await t.app.inject({
      method: 'DELETE',
      url: '/client-account',
      headers: { authorization: `Bearer ${token}`, store: 'WEB2' },
      payload: {},
    });
    expectErrorBody(erase, 403, 'Forbidden');
  });

  it('refuses the last master of a company that has other users, and lets a master alone erase', async () => {
    const db = t.database.db;
    const master = await createCustomer(db, { kind: 'BUSINESS' });
    const employee = await createEmployee(db, master);
    expectErrorBody(await as(t, master.token)('DELETE', '/client-account', {}), 409, 'Conflict');
    const membership = (await as(t, employee.token)('GET', '/client-account/export')).json().companyMemberships;
    expect(membership).toEqual([
      expect.objectContaining({ role: 'EMPLOYEE', company: expect.objectContaining({ name: expect.any(String) }) }),
    ]);
    expect((await as(t, employee.token)('DELETE', '/client-account', {})).statusCode).toBe(204);
    expect((await as(t, master.token)('DELETE', '/client-account', {})).statusCode).toBe(204);
    expect(await db.selectFrom('company').select('id').where('id', '=', master.companyId!).execute()).toHaveLength(1);
  });
});

describe('guest orders billed to the email', () => {
  it('are in "your data", hold the erasure while open, and lose the person with it', async () => {
    const carol = await person('Carol Kask');
    const db = t.database.db;
    // Carol also bought as a guest, typing her address in capitals; a stranger's guest order is not hers.
    const guest = await checkout(t, await fill(t, {}, [[book, 1]]), checkoutForm(shop, contact('Carol Kask', carol.email.toUpperCase())));
    expect(guest.statusCode, guest.body).toBe(200);
    const guestOrderId = orderLink(guest.json().location).orderId;
    const other = await checkout(t, await fill(t, {}, [[book, 1]]), checkoutForm(shop, contact('Stranger', uniqueEmail('stranger'))));
    expect(other.statusCode, other.body).toBe(200);
    const codes = async (id: number) =>
      (await db.selectFrom('customer_order').select('code').where('id', '=', id).executeTakeFirstOrThrow()).code;

    const data = (await as(t, carol.token)('GET', '/client-account/export')).json();
    expect(data.orders.items.map((order: { code: string }) => order.code).sort()).toEqual(
      [await codes(carol.orderId), await codes(guestOrderId)].sort(),
    );
    const bobs = (await as(t, bob.token)('GET', '/client-account/export')).json();
    expect(bobs.orders.items.map((order: { code: string }) => order.code)).not.toContain(await codes(guestOrderId));

    await complete(carol.orderId);
    expectErrorBody(await as(t, carol.token)('DELETE', '/client-account', { password: GOOD_PASSWORD }), 409, 'Conflict');
    await complete(guestOrderId);
    expect((await as(t, carol.token)('DELETE', '/client-account', { password: GOOD_PASSWORD })).statusCode).toBe(204);
    const erased = await db.selectFrom('customer_order').selectAll().where('id', '=', guestOrderId).executeTakeFirstOrThrow();
    expect(erased).toMatchObject({ billing_name: '[erased]', shipping_address: '[erased]' });
    expect(erased.billing_email).toMatch(/@erased\.invalid$/);
    const untouched = await db
      .selectFrom('customer_order')
      .select('billing_name')
      .where('id', '=', orderLink(other.json().location).orderId)
      .executeTakeFirstOrThrow();
    expect(untouched.billing_name).not.toBe('[erased]');
  });
});

describe("the back office's copy", () => {
  it('gets the erased orders again from its feed of changed orders, without the person', async () => {
    const dora = await person('Dora Mänd');
    const db = t.database.db;
    await complete(dora.orderId);
    const key = await createApiKey(db, 'back-office', Date.now());
    // The back office has read every change up to now: only a later change shows in its feed.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const since = new Date().toISOString();
    const feed = async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/admin/orders?updatedSince=${encodeURIComponent(since)}&per-page=100`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as Array<{ code: string }>;
    };
    expect(await feed()).toEqual([]);

    expect((await as(t, dora.token)('DELETE', '/client-account', { password: GOOD_PASSWORD })).statusCode).toBe(204);
    const code = (await db.selectFrom('customer_order').select('code').where('id', '=', dora.orderId).executeTakeFirstOrThrow()).code;
    const changed = await feed();
    expect(changed.map((order) => order.code)).toEqual([code]);
    expect(JSON.stringify(changed)).not.toMatch(/Dora|Mänd|5000 0001/);
    expect(JSON.stringify(changed)).not.toContain(dora.email);
    expect(JSON.stringify(changed)).toContain('[erased]');
  });
});
