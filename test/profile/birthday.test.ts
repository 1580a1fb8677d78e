import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from './helpers.js';

// A birthday is from 1900 up to yesterday, a day in Tallinn, where the shop and its customers are.
// Read in UTC, for two or three hours after midnight there yesterday was still "today": a customer
// born yesterday (or typing it in a hurry) was refused at registration and in the profile.

const clock = fixedClock(Date.parse('2026-12-05T00:30:00+02:00'));
const [today, yesterday] = ['2026-12-05', '2026-12-04'];

let t: TestApp;
let customer: TestCustomer;
beforeAll(async () => {
  t = await createTestApp({ clock });
  customer = await createCustomer(t.database.db);
  // Its token is made at the real time, for an hour: it holds at the app's time.
  await t.database.db
    .updateTable('access_token')
    .set({ expires_at: clock.now() + 3_600_000 })
    .execute();
});
afterAll(async () => {
  await t?.close();
});

describe('a birthday at 00:30 in Tallinn on 2026-12-05 (22:30 UTC the day before)', () => {
  it('may be yesterday there, not today, in the profile', async () => {
    const call = as(t, customer.token);
    const refused = await call('PUT', '/client-account', { birthday: today });
    expect(expectFieldErrors(refused)).toEqual(['birthday']);
    const changed = await call('PUT', '/client-account', { birthday: yesterday });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await call('GET', '/client-account')).json()).toMatchObject({ birthday: yesterday });
  });

  it('may be yesterday there, not today, at registration', async () => {
    const register = (email: string, birthday: string) =>
      t.app.inject({ method: 'POST', url: '/auth/register', headers: { store: 'WEB' }, payload: { email, birthday } });
    expect(expectFieldErrors(await register(`born-today-${Date.now()}@example.ee`, today))).toEqual(['birthday']);
    const registered = await register(`born-yesterday-${Date.now()}@example.ee`, yesterday);
    expect(registered.statusCode, registered.body).toBe(200);
  });
});
