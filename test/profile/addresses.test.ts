import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, type TestCustomer, SHIPPING_ADDRESS } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from './helpers.js';

// Saved addresses: CRUD, one default per kind, the limit, the country check, another client's
// ids as 404, and GET /checkout/meta offering them.

let t: TestApp;
let alice: TestCustomer;
let bob: TestCustomer;

const home = SHIPPING_ADDRESS;

beforeAll(async () => {
  t = await createTestApp();
  alice = await createCustomer(t.database.db);
  bob = await createCustomer(t.database.db);
});
afterAll(async () => t?.close());

describe('addresses', () => {
  it('needs a bearer token on every route, and answers no-store', async () => {
    const guest = as(t, undefined);
    for (const [method, url] of [
      ['GET', '/client-account/address'],
      ['POST', '/client-account/address'],
      ['PUT', '/client-account/address/1'],
      ['DELETE', '/client-account/address/1'],
    ] as const) {
      const response = await guest(method, url, method === 'POST' || method === 'PUT' ? home : undefined);
      expectErrorBody(response, 401, 'Unauthorized');
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  it('saves, lists, replaces and deletes addresses; one default per kind', async () => {
    const call = as(t, alice.token);
    expect((await call('GET', '/client-account/address')).json()).toEqual([]);
    const first = await call('POST', '/client-account/address', { ...home, isDefault: true });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.json()).toEqual({ id: expect.any(Number), ...home, isDefault: true });
    const second = (
      await call('POST', '/client-account/address', { ...home, address: 'Pikk 1', countryNavCode: 'lv', isDefault: true })
    ).json();
    expect(second.countryNavCode).toBe('LV');
    const billing = (await call('POST', '/client-account/address', { ...home, kind: 'BILLING', isDefault: true })).json();

    let list = (await call('GET', '/client-account/address')).json() as Array<{ id: number; isDefault: boolean }>;
    expect(list.map((a) => [a.id, a.isDefault])).toEqual([
      [first.json().id, false],
      [second.id, true],
      [billing.id, true],
    ]);

    // Making the first the default again takes it from the second; leaving isDefault out keeps it.
    const replaced = await call('PUT', `/client-account/address/${first.json().id}`, { ...home, city: 'Tallinn', isDefault: true });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({ city: 'Tallinn', isDefault: true });
    const kept = await call('PUT', `/client-account/address/${first.json().id}`, { ...home, city: 'Narva' });
    expect(kept.json()).toMatchObject({ city: 'Narva', isDefault: true });
    list = (await call('GET', '/client-account/address')).json();
    expect(list.filter((a) => a.isDefault).map((a) => a.id)).toEqual([first.json().id, billing.id]);

    const deleted = await call('DELETE', `/client-account/address/${second.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expectErrorBody(await call('DELETE', `/client-account/address/${second.id}`), 404, 'Not Found');
    expect((await call('GET', '/client-account/address')).json()).toHaveLength(2);
  });

  it("answers 404 for another client's address, and changes nothing", async () => {
    const mine = (await as(t, alice.token)('POST', '/client-account/address', { ...home, name: 'Alice only' })).json();
    const other = as(t, bob.token);
    expect((await other('GET', '/client-account/address')).json()).toEqual([]);
    expectErrorBody(await other('PUT', `/client-account/address/${mine.id}`, home), 404, 'Not Found');
    expectErrorBody(await other('DELETE', `/client-account/address/${mine.id}`), 404, 'Not Found');
    const still = (await as(t, alice.token)('GET', '/client-account/address')).json() as Array<{ id: number; name: string }>;
    expect(still.find((a) => a.id === mine.id)?.name).toBe('Alice only');
  });

  it('refuses bad input with a 4xx, never a 500', async () => {
    const call = as(t, bob.token);
    expect(expectFieldErrors(await call('POST', '/client-account/address', { ...home, countryNavCode: 'ZZ' }))).toEqual(['countryNavCode']);
    expectFieldErrors(await call('POST', '/client-account/address', { ...home, kind: 'HOME' }));
    expectFieldErrors(await call('POST', '/client-account/address', { ...home, name: '   ' }));
    expectFieldErrors(await call('POST', '/client-account/address', { ...home, isDefault: 'yes' }));
    const { name: _name, ...nameless } = home;
    expectFieldErrors(await call('POST', '/client-account/address', nameless));
    expect((await call('PUT', '/client-account/address/abc', home)).statusCode).toBe(400);
    expect((await call('DELETE', '/client-account/address/0')).statusCode).toBe(400);
    expect((await call('PUT', '/client-account/address/99999999999999999999', home)).statusCode).toBe(400);
    const text = await t.app.inject({
      method: 'POST',
      url: '/client-account/address',
      headers: { store: 'WEB', authorization: `Bearer ${bob.token}`, 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(text.statusCode).toBe(415);
  });

  it('refuses a phone or postcode of spaces alone (which their patterns take), and saves or changes nothing', async () => {
    const erin = await createCustomer(t.database.db);
    const call = as(t, erin.token);
    const blank = await call('POST', '/client-account/address', { ...home, phone: '     ', postcode: '  ' });
    expect(blank.json()).toEqual([
      { field: 'phone', message: 'phone cannot be blank.' },
      { field: 'postcode', message: 'postcode cannot be blank.' },
    ]);
    expect(blank.statusCode).toBe(422);
    expect((await call('GET', '/client-account/address')).json()).toEqual([]);
    const saved = (await call('POST', '/client-account/address', home)).json();
    expect(expectFieldErrors(await call('PUT', `/client-account/address/${saved.id}`, { ...home, postcode: '   ' }))).toEqual(['postcode']);
    expect((await call('GET', '/client-account/address')).json()).toEqual([saved]);
  });

  it('keeps at most 20 addresses per client', async () => {
    const carol = await createCustomer(t.database.db);
    const call = as(t, carol.token);
    for (let i = 0; i < 20; i += 1)
      expect((await call('POST', '/client-account/address', { ...home, address: `Street ${i}` })).statusCode).toBe(201);
    expect(expectFieldErrors(await call('POST', '/client-account/address', home))).toEqual(['kind']);
    const all = await call('GET', '/client-account/address');
    expect(all.json()).toHaveLength(20);

    // Paged as every list is: page and per-page, the X-Pagination-* headers; the default page holds all 20.
    expect(all.headers['x-pagination-total-count']).toBe('20');
    expect(all.headers['x-pagination-page-count']).toBe('1');
    const page = await call('GET', '/client-account/address?page=2&per-page=6');
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json()).toEqual(all.json().slice(6, 12));
    expect(page.headers['x-pagination-current-page']).toBe('2');
    expect(page.headers['x-pagination-per-page']).toBe('6');
    expect(page.headers['x-pagination-page-count']).toBe('4');
    expect(page.headers.link).toContain('rel="next"');
    expect((await call('GET', '/client-account/address?page=5&per-page=6')).json()).toEqual([]);
    expectErrorBody(await call('GET', '/client-account/address?page=0'), 400, 'Bad Request');
    expectErrorBody(await call('GET', '/client-account/address?per-page=lots'), 400, 'Bad Request');
  });

  it('keeps one default per kind when two requests race', async () => {
    const dave = await createCustomer(t.database.db);
    const call = as(t, dave.token);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => call('POST', '/client-account/address', { ...home, address: `Race ${i}`, isDefault: true })),
    );
    const list = (await call('GET', '/client-account/address')).json() as Array<{ isDefault: boolean }>;
    expect(list).toHaveLength(6);
    expect(list.filter((a) => a.isDefault)).toHaveLength(1);
  });

  it('GET /checkout/meta offers the saved addresses, and none to a guest', async () => {
    const meta = await as(t, alice.token)('GET', '/checkout/meta');
    expect(meta.statusCode, meta.body).toBe(200);
    const body = meta.json();
    expect(body.contact).not.toBeNull();
    expect(body.addresses.length).toBeGreaterThan(0);
    expect(body.addresses[0]).toEqual({
      id: expect.any(Number),
      kind: 'SHIPPING',
      name: expect.any(String),
      phone: expect.any(String),
      address: expect.any(String),
      city: expect.any(String),
      postcode: expect.any(String),
      countryNavCode: expect.any(String),
      isDefault: expect.any(Boolean),
    });
    const guest = await as(t, undefined)('GET', '/checkout/meta');
    expect(guest.json().addresses).toEqual([]);
  });
});
