import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from './helpers.js';

// A PUT of the profile or the preferences that names none of their fields ({} or {"foo": 1}, whose
// unknown field is dropped) is a 422 that writes nothing: it answered 200 and still moved the user's
// updated_at, or wrote a preferences row for a client who had none.

let t: TestApp;
let customer: TestCustomer;
beforeAll(async () => {
  t = await createTestApp();
  customer = await createCustomer(t.database.db);
});
afterAll(async () => {
  await t?.close();
});

const userRow = () =>
  t.database.db
    .selectFrom('app_user')
    .innerJoin('client_account', 'client_account.user_id', 'app_user.id')
    .selectAll('app_user')
    .where('client_account.id', '=', customer.clientAccountId)
    .executeTakeFirstOrThrow();
const preferenceRows = () =>
  t.database.db.selectFrom('client_preference').selectAll().where('client_account_id', '=', customer.clientAccountId).execute();
const outbox = async () => ({
  jobs: Number(
    (
      await t.database.db
        .selectFrom('job')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ),
  events: Number(
    (
      await t.database.db
        .selectFrom('integration_event')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ),
});

/** Runs `refused` and checks it wrote nothing: the user row, the preferences rows, the jobs and events. */
async function expectNothingWritten(refused: () => Promise<void>): Promise<void> {
  // An updated_at long past: a change of nothing that still touched the row would show.
  await t.database.db
    .updateTable('app_user')
    .set({ updated_at: 1_000_000 })
    .where('id', '=', (await userRow()).id)
    .execute();
  const [user, preferences, written] = [await userRow(), await preferenceRows(), await outbox()];
  await refused();
  expect(await userRow()).toEqual(user);
  expect(await preferenceRows()).toEqual(preferences);
  expect(await outbox()).toEqual(written);
}

describe('a PUT with no field it names', () => {
  it.each(['/client-account', '/client-account/preferences'])('%s: is the 422 of {} and writes nothing', async (url) => {
    const call = as(t, customer.token);
    await expectNothingWritten(async () => {
      const empty = await call('PUT', url, {});
      expect(expectFieldErrors(empty)).toEqual(['']);
      for (const body of [{ foo: 1 }, { foo: 1, bar: 'x' }]) {
        const response = await call('PUT', url, body);
        expect(response.statusCode, JSON.stringify(body)).toBe(422);
        expect(response.json()).toEqual(empty.json());
      }
    });
    // A field it names is changed; one it does not name beside it is dropped.
    const changed = await call(
      'PUT',
      url,
      url === '/client-account' ? { firstName: 'Kati', foo: 1 } : { newsletterLanguage: 'en', foo: 1 },
    );
    expect(changed.statusCode, changed.body).toBe(200);
  });

  it.each([
    ['/client-account', 'marketingConsents'],
    ['/client-account/preferences', 'channels'],
    ['/client-account/preferences', 'notifications'],
  ])('%s: a nested %s with no field it names is a 422 on it and writes nothing', async (url, field) => {
    const call = as(t, customer.token);
    await expectNothingWritten(async () => {
      for (const nested of [{}, { foo: 1 }]) expect(expectFieldErrors(await call('PUT', url, { [field]: nested }))).toEqual([field]);
    });
  });
});
