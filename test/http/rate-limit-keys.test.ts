import { afterAll, beforeAll, expect, it } from 'vitest';
import { storedRateLimitKey } from '../../src/infra/rate-limit.js';
import { createProduct } from '../helpers/catalogue.js';
import { createAccountsTestApp, login, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// Rate-limit counters are keyed by who asks: a login email, a guest's back-in-stock address, a client
// address. They live for a day and an erasure does not look at them, so none may hold an email or
// an address as it is; each is its scope and a hash.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t?.close());

it('no counter key holds the email or the client address it counts; each is its scope and a hash of the whole key', async () => {
  const email = uniqueEmail();
  const address = '198.51.100.23';
  await registerVerified(t, email);
  const wrong = await t.app.inject({
    method: 'POST',
    url: '/auth/login',
    headers: { store: 'WEB' },
    payload: { email, password: 'not-the-password-1', web_store_nav_code: 'WEB' },
    remoteAddress: address,
  });
  expect(wrong.statusCode).toBe(422);
  const soldOut = await createProduct(t.database.db, { name: 'Otsas', availability: 'TEMPORARILY_OUT_OF_STOCK' });
  const guest = uniqueEmail();
  const asked = await t.app.inject({
    method: 'POST',
    url: '/back-in-stock',
    payload: { productId: soldOut, email: guest },
    remoteAddress: address,
  });
  expect(asked.statusCode, asked.body).toBe(202);
  expect((await login(t, email)).statusCode).toBe(200);

  const keys = (await t.database.db.selectFrom('rate_limit').select('key').execute()).map((row) => row.key);
  for (const plain of [email, guest, address]) expect(keys.filter((key) => key.toLowerCase().includes(plain.toLowerCase()))).toEqual([]);
  expect(keys).toEqual(
    expect.arrayContaining(
      [`auth:ip:${address}`, `back-in-stock:ip:${address}`, `back-in-stock:email:${guest.toLowerCase()}`].map(storedRateLimitKey),
    ),
  );
  // Resubmit records (infra/resubmit.ts) share the table, keyed by a hash of the submission already.
  const shapes = [/^[a-z-]+(:[^:#]+)?#[\w-]{43}$/, /^resubmit:[a-z-]+:[0-9a-f]{64}$/];
  expect(keys.filter((key) => !shapes.some((shape) => shape.test(key)))).toEqual([]);
});
