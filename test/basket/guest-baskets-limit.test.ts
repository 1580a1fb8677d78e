import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, call, read } from './helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// Every basket write without a basket-token makes a new guest basket, kept 30 days: one client
// address may make BASKET_RATE_LIMIT_PER_IP of them; writes to a basket it has are not counted there.
// Every guest write, to a new basket or one it has, counts against BASKET_WRITE_RATE_LIMIT_PER_IP.

let t: TestApp;
let book: number;
beforeAll(async () => {
  t = await createTestApp({ env: { BASKET_RATE_LIMIT_PER_IP: '3/1h', BASKET_WRITE_RATE_LIMIT_PER_IP: '6/1h' } });
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

it("counts a guest's writes per client address, to a basket it has too: past the limit a 429 that changes nothing", async () => {
  const from = '198.51.100.50';
  const basketToken = (await add(t, { ip: from }, book)).basketToken!;
  for (let i = 2; i <= 6; i += 1) expect((await add(t, { ip: from, token: basketToken }, book)).items[0]!.quantity).toBe(i);
  const refused = await call(t, 'PUT', '/basket/change-quantity', { ip: from, token: basketToken }, { productId: book, quantity: 1 });
  expectErrorBody(refused, 429, 'Too Many Requests');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect((await read(t, { ip: from, token: basketToken })).items[0]!.quantity).toBe(6);
  // The same basket from another address, and a client, are not counted against it.
  expect((await add(t, { ip: '198.51.100.51', token: basketToken }, book)).items[0]!.quantity).toBe(7);
});
