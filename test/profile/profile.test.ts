import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportUser } from '../data-export/fixtures.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from './helpers.js';

// GET/PUT /client-account (profile and marketing consents), /client-account/preferences and
// /category-preference, and what the data export then reports of the client.

let t: TestApp;
let alice: TestCustomer;
let bob: TestCustomer;
let carol: TestCustomer;
const categoryIds: Record<string, number> = {};

async function insertCategory(code: string, store: string, name: string) {
  const now = Date.now();
  const row = await t.database.db
    .insertInto('category')
    .values({ code, store_code: store, parent_id: null, level: 1, position: 1, is_active: true, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.database.db.insertInto('category_name').values({ category_id: row.id, language: 'en', name, description: null }).execute();
  categoryIds[code] = Number(row.id);
}

beforeAll(async () => {
  t = await createTestApp();
  alice = await createCustomer(t.database.db);
  bob = await createCustomer(t.database.db);
  carol = await createCustomer(t.database.db);
  await insertCategory('FICTION', 'WEB', 'Fiction');
  await insertCategory('HISTORY', 'WEB', 'History');
  await insertCategory('OUTLET', 'WEB2', 'Outlet only');
});
afterAll(async () => t?.close());

describe('profile', () => {
  it('needs a bearer token on every route, and answers no-store', async () => {
    const guest = as(t, undefined);
    for (const [method, url] of [
      ['GET', '/client-account'],
      ['PUT', '/client-account'],
      ['GET', '/client-account/preferences'],
      ['PUT', '/client-account/preferences'],
      ['GET', '/category-preference'],
      ['PUT', '/category-preference'],
      ['PUT', '/user/me'],
      ['POST', '/user/me/confirm-email'],
    ] as const) {
      const response = await guest(method, url, method === 'GET' ? undefined : {});
      expectErrorBody(response, 401, 'Unauthorized');
      expect(response.headers['cache-control']).toBe('no-store');
    }
    // A token of the other store is no token here.
    expectErrorBody(await as(t, alice.token, 'WEB2')('GET', '/client-account'), 401, 'Unauthorized');
  });

  it('reads and changes the profile; the customer code is read-only', async () => {
    const call = as(t, alice.token);
    const before = await call('GET', '/client-account');
    expect(before.statusCode, before.body).toBe(200);
    expect(before.headers['cache-control']).toBe('no-store');
    expect(before.json()).toMatchObject({
      clientCode: alice.clientCode,
      firstName: 'Mari',
      phone: null,
      gender: null,
      birthday: null,
      language: 'et',
      marketingConsents: { email: { granted: false, givenAt: null, withdrawnAt: null } },
    });
    const changed = await call('PUT', '/client-account', {
      firstName: 'Kati',
      phone: '+372 5123 4567',
      gender: 'FEMALE',
      birthday: '1985-02-28',
      language: 'ru',
      clientCode: 'W999',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({
      clientCode: alice.clientCode,
      firstName: 'Kati',
      lastName: 'Maasikas',
      phone: '+372 5123 4567',
      gender: 'FEMALE',
      birthday: '1985-02-28',
      language: 'ru',
    });
    // null clears what may be empty; what is left out stays.
    const cleared = (await call('PUT', '/client-account', { phone: null, gender: null })).json();
    expect(cleared).toMatchObject({ firstName: 'Kati', phone: null, gender: null, birthday: '1985-02-28' });
  });

  it('records each consent given and withdrawn, with its time', async () => {
    const call = as(t, bob.token);
    const given = (await call('PUT', '/client-account', { marketingConsents: { email: true, sms: true } })).json();
    expect(given.marketingConsents.email).toEqual({ granted: true, givenAt: expect.any(String), withdrawnAt: null });
    expect(given.marketingConsents.sms.granted).toBe(true);
    expect(given.marketingConsents.personalisation).toEqual({ granted: false, givenAt: null, withdrawnAt: null });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const withdrawn = (await call('PUT', '/client-account', { marketingConsents: { email: false } })).json();
    expect(withdrawn.marketingConsents.email).toEqual({
      granted: false,
      givenAt: given.marketingConsents.email.givenAt,
      withdrawnAt: expect.any(String),
    });
    expect(Date.parse(withdrawn.marketingConsents.email.withdrawnAt)).toBeGreaterThan(Date.parse(given.marketingConsents.email.givenAt));
    // Saying the same again records nothing.
    await call('PUT', '/client-account', { marketingConsents: { sms: true } });
    const events = await t.database.db.selectFrom('marketing_consent_event').select(['consent', 'granted']).orderBy('id').execute();
    expect(events.map((e) => [e.consent, Boolean(e.granted)])).toEqual([
      ['EMAIL', true],
      ['SMS', true],
      ['EMAIL', false],
    ]);
    // The email consent is the registration's newsletter flag.
    const user = await t.database.db
      .selectFrom('app_user')
      .select('newsletter')
      .where('email', '=', (await call('GET', '/client-account')).json().email)
      .executeTakeFirstOrThrow();
    expect(Boolean(user.newsletter)).toBe(false);
  });

  it("makes the email consent the address's newsletter subscription in the account's store, withdrawn there alone", async () => {
    const call = as(t, carol.token);
    const email = (await call('GET', '/client-account')).json().email.toLowerCase();
    const subscriptions = () =>
      t.database.db
        .selectFrom('newsletter_subscriber')
        .select(['store_code', 'source', 'withdrawn_at'])
        .where('email', '=', email)
        .execute();
    await call('PUT', '/client-account', { marketingConsents: { email: true } });
    expect(await subscriptions()).toEqual([{ store_code: 'WEB', source: 'profile', withdrawn_at: null }]);
    // Subscribed in the other store too (its own form), then the consent is withdrawn in the profile.
    await t.database.db
      .insertInto('newsletter_subscriber')
      .values({
        email,
        store_code: 'WEB2',
        language: 'et',
        source: 'website',
        consented_at: 1,
        withdrawn_at: null,
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    // WEB's switch is WEB's newsletter: WEB2's, which its own form gave, stays until its own link or switch.
    const withdrawn = (await call('PUT', '/client-account', { marketingConsents: { email: false } })).json();
    expect(withdrawn.marketingConsents.email.granted).toBe(false);
    const byStore = async () => Object.fromEntries((await subscriptions()).map((row) => [row.store_code, row.withdrawn_at]));
    expect(await byStore()).toEqual({ WEB: expect.any(Number), WEB2: null });
    const again = (await call('PUT', '/client-account', { marketingConsents: { email: true } })).json();
    expect(again.marketingConsents.email.granted).toBe(true);
    expect(await byStore()).toEqual({ WEB: null, WEB2: null });
  });

  it('refuses bad profile input with a 422', async () => {
    const call = as(t, bob.token);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    for (const body of [
      { birthday: tomorrow },
      { birthday: '1899-12-31' },
      { birthday: '2001-02-29' },
      { birthday: '2001-13-01' },
      { birthday: '01.02.2001' },
      { gender: 'M' },
      { language: 'de' },
      { firstName: '' },
      { firstName: null },
      { phone: 'call me' },
      { marketingConsents: { email: 'yes' } },
      { firstName: 'x'.repeat(101) },
    ]) {
      expect(expectFieldErrors(await call('PUT', '/client-account', body)).length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect((await call('PUT', '/client-account', [1, 2])).statusCode).toBe(400);
    const broken = await t.app.inject({
      method: 'PUT',
      url: '/client-account',
      headers: { store: 'WEB', authorization: `Bearer ${bob.token}`, 'content-type': 'application/json' },
      payload: '{"firstName":',
    });
    expect(broken.statusCode).toBe(400);
  });

  it('the data export reports the birthday and gender from the profile, birthday null while unknown', async () => {
    await as(t, alice.token)('PUT', '/client-account', { gender: 'OTHER' });
    const { collection } = await exportedClients();
    expect(collection.get(alice.clientCode)).toMatchObject({ gender: 'OTHER', birthday: '1985-02-28T00:00:00Z' });
    expect(collection.get(bob.clientCode)).toMatchObject({ gender: '', birthday: null });
  });
});

describe('preferences', () => {
  it('answers the defaults, then keeps what is changed', async () => {
    const call = as(t, bob.token);
    const defaults = (await call('GET', '/client-account/preferences')).json();
    expect(defaults).toEqual({
      newsletterLanguage: 'et',
      channels: { email: true, sms: false },
      notifications: { orderUpdates: true, backInStock: true, wishlistOffers: false },
    });
    const changed = await call('PUT', '/client-account/preferences', {
      newsletterLanguage: 'en',
      channels: { sms: true },
      notifications: { backInStock: false },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const expected = {
      newsletterLanguage: 'en',
      channels: { email: true, sms: true },
      notifications: { orderUpdates: true, backInStock: false, wishlistOffers: false },
    };
    expect(changed.json()).toEqual(expected);
    expect((await call('GET', '/client-account/preferences')).json()).toEqual(expected);
    // Another client's are their own.
    expect((await as(t, alice.token)('GET', '/client-account/preferences')).json().channels.sms).toBe(false);
    expectFieldErrors(await call('PUT', '/client-account/preferences', { newsletterLanguage: 'fi' }));
    expectFieldErrors(await call('PUT', '/client-account/preferences', { channels: { sms: 1 } }));
  });

  it('follows categories of its store by code or id; unknown ones are a 422', async () => {
    const call = as(t, alice.token);
    expect((await call('GET', '/category-preference')).json()).toEqual([]);
    const saved = await call('PUT', '/category-preference', { categories: ['HISTORY', categoryIds.FICTION, 'HISTORY'] });
    expect(saved.statusCode, saved.body).toBe(200);
    const both = [
      { id: categoryIds.FICTION, code: 'FICTION', name: 'Fiction' },
      { id: categoryIds.HISTORY, code: 'HISTORY', name: 'History' },
    ];
    expect(saved.json()).toEqual(both);
    expect((await call('GET', '/category-preference')).json()).toEqual(both);
    const { collection } = await exportedClients();
    expect(collection.get(alice.clientCode)?.preferences).toEqual(['FICTION', 'HISTORY']);

    const unknown = await call('PUT', '/category-preference', { categories: ['FICTION', 'NOPE', 'OUTLET', 987654] });
    expect(expectFieldErrors(unknown)).toEqual(['categories.1', 'categories.2', 'categories.3']);
    expect((await call('GET', '/category-preference')).json()).toEqual(both);
    expectFieldErrors(await call('PUT', '/category-preference', { categories: Array.from({ length: 51 }, (_, i) => `C${i}`) }));
    expectFieldErrors(await call('PUT', '/category-preference', { categories: [true] }));
    expectFieldErrors(await call('PUT', '/category-preference', {}));

    const emptied = await call('PUT', '/category-preference', { categories: [] });
    expect(emptied.json()).toEqual([]);
  });

  it('pages the followed categories as every list: page and per-page, X-Pagination-* headers', async () => {
    const call = as(t, bob.token);
    const codes = Array.from({ length: 25 }, (_, i) => `PAGED${String(i).padStart(2, '0')}`);
    for (const code of codes) await insertCategory(code, 'WEB', `Paged ${code}`);
    expect((await call('PUT', '/category-preference', { categories: codes })).json()).toHaveLength(25);

    // Without per-page, one page holds all a client may follow (50): clients written before the list
    // was paged still read the whole of it.
    const whole = await call('GET', '/category-preference');
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.json().map((c: { code: string }) => c.code)).toEqual(codes);
    expect(whole.headers['x-pagination-per-page']).toBe('50');
    const first = await call('GET', '/category-preference?per-page=20');
    expect(first.json().map((c: { code: string }) => c.code)).toEqual(codes.slice(0, 20));
    expect(first.headers['x-pagination-total-count']).toBe('25');
    expect(first.headers['x-pagination-page-count']).toBe('2');
    expect(first.headers['x-pagination-per-page']).toBe('20');
    const second = await call('GET', '/category-preference?page=2&per-page=20');
    expect(second.json().map((c: { code: string }) => c.code)).toEqual(codes.slice(20));
    expectErrorBody(await call('GET', '/category-preference?page=0'), 400, 'Bad Request');
    expectErrorBody(await call('GET', '/category-preference?per-page=0'), 400, 'Bad Request');
  });
});

async function exportedClients() {
  const { authorization } = await exportUser(t.database.db);
  const response = await t.app.inject({ method: 'GET', url: '/export/client-account?per-page=1000', headers: { authorization } });
  expect(response.statusCode, response.body).toBe(200);
  const items = response.json() as Array<{ client: string; gender: string; birthday: string | null; preferences: string[] }>;
  return { collection: new Map(items.map((item) => [item.client, item])) };
}
