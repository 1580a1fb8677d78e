import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, type AccountsTestApp } from '../helpers/accounts.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { call, companyMaster } from './fixtures.js';

// A wholesale master's sub-companies with their delivery addresses, over HTTP.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const tartu = { street: 'Rüütli 2', city: 'Tartu', postcode: '51007', countryCode: 'EE' };
const parnu = { recipient: 'Laotöötaja', street: 'Rüütli 1', city: 'Pärnu', postcode: '80010', countryCode: 'EE', phone: '+372 5555 5555' };

describe('sub-companies', () => {
  it('are created, listed, changed (addresses replaced) and deleted', async () => {
    const master = await companyMaster(t, 'WHOLESALE');
    const created = await call(t, 'POST', '/sub-company', master.token, {
      name: 'Tartu Kool',
      registryCode: '80012345',
      addresses: [tartu, parnu],
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.headers['cache-control']).toBe('no-store');
    const sub = created.json();
    expect(sub).toEqual({
      id: expect.any(Number),
      name: 'Tartu Kool',
      registryCode: '80012345',
      addresses: [
        { id: expect.any(Number), recipient: null, phone: null, ...tartu },
        { id: expect.any(Number), ...parnu },
      ],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const listed = await call(t, 'GET', '/sub-company', master.token);
    expect(listed.json()).toEqual([sub]);
    expect(listed.headers['x-pagination-total-count']).toBe('1');

    const renamed = await call(t, 'PUT', `/sub-company/${sub.id}`, master.token, { name: 'Tartu Gümnaasium', registryCode: null });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Tartu Gümnaasium', registryCode: null, addresses: sub.addresses });

    const moved = await call(t, 'PUT', `/sub-company/${sub.id}`, master.token, { addresses: [parnu] });
    expect(moved.json().addresses).toEqual([{ id: expect.any(Number), ...parnu }]);
    expect(moved.json().name).toBe('Tartu Gümnaasium');

    expect((await call(t, 'DELETE', `/sub-company/${sub.id}`, master.token)).json()).toEqual({});
    expect((await call(t, 'GET', '/sub-company', master.token)).json()).toEqual([]);
    expectErrorBody(await call(t, 'PUT', `/sub-company/${sub.id}`, master.token, { name: 'X' }), 404, 'Not Found');
    expectErrorBody(await call(t, 'DELETE', `/sub-company/${sub.id}`, master.token), 404, 'Not Found');
    const left = await t.database.db.selectFrom('sub_company_address').select('id').where('sub_company_id', '=', sub.id).execute();
    expect(left).toEqual([]);
  });

  it('refuses an address in a country not on the country list with a 422 on it, and saves nothing', async () => {
    const master = await companyMaster(t, 'WHOLESALE');
    // Two letters that are no country (a typo of EE), as a client's address refuses them.
    const typo = { ...tartu, countryCode: 'EA' };
    const refused = await call(t, 'POST', '/sub-company', master.token, { name: 'Tartu Kool', addresses: [tartu, typo] });
    expect(expectFieldErrors(refused)).toEqual(['addresses.1.countryCode']);
    expect((await call(t, 'GET', '/sub-company', master.token)).json()).toEqual([]);
    const created = await call(t, 'POST', '/sub-company', master.token, { name: 'Tartu Kool', addresses: [tartu] });
    expect(created.statusCode, created.body).toBe(200);
    const changed = await call(t, 'PUT', `/sub-company/${created.json().id}`, master.token, { name: 'Pärnu Kool', addresses: [typo] });
    expect(expectFieldErrors(changed)).toEqual(['addresses.0.countryCode']);
    expect((await call(t, 'GET', '/sub-company', master.token)).json()).toEqual([created.json()]);
  });

  it('are paged', async () => {
    const master = await companyMaster(t, 'WHOLESALE');
    for (const name of ['A', 'B', 'C']) expect((await call(t, 'POST', '/sub-company', master.token, { name })).statusCode).toBe(200);
    const page = await call(t, 'GET', '/sub-company?page=2&per-page=2', master.token);
    expect(page.json().map((sub: { name: string }) => sub.name)).toEqual(['C']);
    expect(page.headers['x-pagination-page-count']).toBe('2');
  });

  it.each([
    [{}, ['name']],
    [{ name: '' }, ['name']],
    [{ name: 'X', registryCode: '!' }, ['registryCode']],
    [{ name: 'X', addresses: [{ ...tartu, countryCode: 'est' }] }, ['addresses.0.countryCode']],
    [{ name: 'X', addresses: [{ ...tartu, phone: 'call me' }] }, ['addresses.0.phone']],
    [{ name: 'X', addresses: Array.from({ length: 21 }, () => tartu) }, ['addresses']],
    [{ name: 'X', addresses: 'Tartu' }, ['addresses']],
  ])('refuses %j with a 422', async (body, fields) => {
    const master = await companyMaster(t, 'WHOLESALE');
    const named = expectFieldErrors(await call(t, 'POST', '/sub-company', master.token, body));
    expect(named.sort()).toEqual(fields);
    expect((await call(t, 'GET', '/sub-company', master.token)).json()).toEqual([]);
  });

  it('drops a field the form or an address does not name, whatever it holds, as the other forms do', async () => {
    const master = await companyMaster(t, 'WHOLESALE');
    // A NUL no column takes: a field that was kept (and ignored) made it the 422 of a field nobody reads.
    const extra = { note: 'a\u0000b' };
    const created = await call(t, 'POST', '/sub-company', master.token, {
      name: 'Lisaväljad',
      ...extra,
      addresses: [{ ...tartu, ...extra }],
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().addresses).toEqual([{ id: expect.any(Number), recipient: null, phone: null, ...tartu }]);
    const changed = await call(t, 'PUT', `/sub-company/${created.json().id}`, master.token, { addresses: [{ ...parnu, ...extra }] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().addresses).toEqual([{ id: expect.any(Number), ...parnu }]);
  });

  it('refuses a change with no field it names, as an empty one, with a 422 that moves nothing', async () => {
    const master = await companyMaster(t, 'WHOLESALE');
    const { id } = (await call(t, 'POST', '/sub-company', master.token, { name: 'X' })).json();
    // An updatedAt long past: a change of nothing that still touched the row would show.
    await t.database.db.updateTable('sub_company').set({ updated_at: 1_000_000 }).where('id', '=', id).execute();
    const before = (await call(t, 'GET', '/sub-company', master.token)).json();
    for (const body of [{}, { foo: 1 }, { foo: 1, bar: 'x' }]) {
      const response = await call(t, 'PUT', `/sub-company/${id}`, master.token, body);
      expect(expectFieldErrors(response), JSON.stringify(body)).toEqual(['']);
      expect(response.json()).toEqual((await call(t, 'PUT', `/sub-company/${id}`, master.token, {})).json());
    }
    expect((await call(t, 'GET', '/sub-company', master.token)).json()).toEqual(before);
    // A field it names is changed; one it does not name beside it is dropped.
    const renamed = await call(t, 'PUT', `/sub-company/${id}`, master.token, { name: 'Y', foo: 1 });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ id, name: 'Y' });
    expect(renamed.json()).not.toHaveProperty('foo');
  });
});
