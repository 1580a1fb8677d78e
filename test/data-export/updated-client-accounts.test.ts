import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gdprCommand } from '../../src/modules/gdpr/index.js';
import { systemClock } from '../../src/infra/clock.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from '../profile/helpers.js';
import { T0, exportUser, insertCategory, ymdHis } from './fixtures.js';

// /client-account takes updatedFrom and updatedTo: an analyst who read an account when it was
// created learns of the person's later edits (gender, birthday) and of the categories followed.

let t: TestApp;
let authorization: string;
let edited: TestCustomer;
let following: TestCustomer;
let untouched: TestCustomer;
const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });
const clients = (response: { json(): unknown }) => (response.json() as Array<{ client: string }>).map((item) => item.client);
const q = (ms: number) => encodeURIComponent(ymdHis(ms));

beforeAll(async () => {
  t = await createTestApp({ env: { DATA_EXPORT_SETTLE_MS: '0', DATA_EXPORT_COUNT_CACHE_TTL_MS: '0' } });
  const db = t.database.db;
  ({ authorization } = await exportUser(db));
  await insertCategory(db, 'LUULE', null, 1, { et: 'Luule' });
  edited = await createCustomer(db);
  following = await createCustomer(db);
  untouched = await createCustomer(db);
  // Accounts made (and last changed) long ago, one second apart.
  for (const [i, customer] of [edited, following, untouched].entries())
    await db
      .updateTable('client_account')
      .set({ created_at: T0 + i * 1000, updated_at: T0 + i * 1000 })
      .where('id', '=', customer.clientAccountId)
      .execute();
});
afterAll(() => t?.close());

describe('GET /client-account with an update window', () => {
  it('finds the accounts whose person or followed categories changed after creation, not an unchanged one', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const profile = await as(t, edited.token)('PUT', '/client-account', { gender: 'MALE', birthday: '1980-02-03' });
    expect(profile.statusCode, profile.body).toBe(200);
    const follow = await as(t, following.token)('PUT', '/category-preference', { categories: ['LUULE'] });
    expect(follow.statusCode, follow.body).toBe(200);

    const response = await get(`/client-account?updatedFrom=${q(before)}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(clients(response).sort()).toEqual([edited.clientCode, following.clientCode].sort());
    const items = response.json() as Array<{ client: string; gender: string; birthday: string | null; preferences: string[] }>;
    expect(items.find((item) => item.client === edited.clientCode)).toMatchObject({ gender: 'MALE', birthday: '1980-02-03T00:00:00Z' });
    expect(items.find((item) => item.client === following.clientCode)!.preferences).toEqual(['LUULE']);
    // The creation window still finds all three, as created.
    expect(clients(await get(`/client-account?createdFrom=${q(T0)}&createdTo=${q(T0 + 2000)}`))).toEqual([
      edited.clientCode,
      following.clientCode,
      untouched.clientCode,
    ]);
  });

  it('the same set chosen again is no change', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000 + 1000;
    await new Promise((resolve) => setTimeout(resolve, before - Date.now()));
    const again = await as(t, following.token)('PUT', '/category-preference', { categories: ['LUULE'] });
    expect(again.statusCode, again.body).toBe(200);
    expect(clients(await get(`/client-account?updatedFrom=${q(before)}`))).toEqual([]);
  });

  it('updatedTo bounds the window; both windows may be given together', async () => {
    expect(clients(await get(`/client-account?updatedFrom=${q(T0)}&updatedTo=${q(T0 + 2000)}`))).toEqual([untouched.clientCode]);
    expect(clients(await get(`/client-account?createdFrom=${q(T0)}&createdTo=${q(T0)}&updatedFrom=${q(T0 + 5000)}`))).toEqual([
      edited.clientCode,
    ]);
  });

  it('finds an account whose person was erased (`gdpr erase`): its gender and birthday are gone', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    await gdprCommand({ db: t.database.db, clock: systemClock }, ['erase', await emailOf(t.database.db, untouched)], () => {});
    const response = await get(`/client-account?updatedFrom=${q(before)}`);
    expect(response.json()).toEqual([expect.objectContaining({ client: untouched.clientCode, gender: '', birthday: null })]);
  });

  it.each([['updatedFrom'], ['updatedTo']])('a malformed %s is a 400 naming it', async (field) => {
    const body = expectErrorBody(await get(`/client-account?${field}=2026-11-01`), 400, 'Bad Request');
    expect(body.message).toContain(field);
  });
});
