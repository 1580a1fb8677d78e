import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccountsTestApp, login, me, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

it('registers, verifies through the real mail, logs in and knows who it is', async () => {
  const email = uniqueEmail();
  const fromVerify = await registerVerified(t, email);
  expect((await me(t, fromVerify)).json()).toMatchObject({ email, role: 'SIMPLE', webStoreNavCode: 'WEB' });
  const response = await login(t, email);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toEqual({
    accessToken: expect.any(String),
    basket: expect.objectContaining({ id: null, items: [], itemCount: 0, total: 0, currency: 'EUR' }),
  });
});
