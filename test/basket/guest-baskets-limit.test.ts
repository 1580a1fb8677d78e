import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, call } from './helpers.js';

// Every basket write without a basket-token makes a new guest basket, kept 30 days: one client
// address may make BASKET_RATE_LIMIT_PER_IP of them; writes to a basket it has are not counted.

let t: TestApp;
let book: number;
beforeAll(async () => {
  t = await createTestApp({ env: { BASKET_RATE_LIMIT_PER_IP: '3/1h' } });
  const shop = await createShop(t.database.db);
  book = await createProduct(t.database.db, { price: 5 });
  await setStock(t.database.db, book, shop, 100);
});
afterAll(() => t.close());

const guestBaskets = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('basket')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('client_account_id', 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  );

it('counts the new guest baskets of one client address: past the limit a 429 that makes none', async () => {
  const from = '198.51.100.40';
  const tokens: string[] = [];
  for (let i = 0; i < 3; i += 1) tokens.push((await add(t, { ip: from }, book)).basketToken!);
  expect(new Set(tokens).size).toBe(3);
  const before = await guestBaskets();
  const refused = await call(t, 'POST', '/basket/add-product', { ip: from }, { productId: book, quantity: 1 });
  expectErrorBody(refused, 429, 'Too Many Requests');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect(await guestBaskets()).toBe(before);
  // Its own baskets still take writes, and another address makes its own.
  expect((await add(t, { ip: from, token: tokens[0] }, book)).items[0]!.quantity).toBe(2);
  expect((await add(t, { ip: '198.51.100.41' }, book)).basketToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
});
