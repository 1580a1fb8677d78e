import { afterAll, beforeAll, expect, it } from 'vitest';
import { basketPruning } from '../../src/modules/basket/index.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, basketOf, call, read } from './helpers.js';

// The hourly maintenance's basket task: empty baskets go a day after their last change, guest
// baskets 30 days after it; a client's basket with lines stays. An expired guest token starts afresh.

let t: TestApp;
let book: number;
const DAY = 86_400_000;
beforeAll(async () => {
  t = await createTestApp();
  book = await createProduct(t.database.db, { availability: 'COMING_SOON', deliveryTime: 'PREORDER' });
});
afterAll(() => t.close());

const age = (id: number, ms: number) =>
  t.database.db
    .updateTable('basket')
    .set({ updated_at: Date.now() - ms })
    .where('id', '=', id)
    .execute();
const exists = async (id: number) =>
  (await t.database.db.selectFrom('basket').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

it('deletes empty baskets after a day and guest baskets after 30 days, keeping the rest', async () => {
  const client = await createCustomer(t.database.db);
  const emptyOld = basketOf(await call(t, 'DELETE', '/basket/clear', { token: (await add(t, {}, book)).basketToken! })).id!;
  const emptyNew = basketOf(await call(t, 'DELETE', '/basket/clear', { token: (await add(t, {}, book)).basketToken! })).id!;
  const guestOld = (await add(t, {}, book)).id!;
  const guestRecent = (await add(t, {}, book)).id!;
  const clientOld = (await add(t, { bearer: client.token }, book)).id!;
  await age(emptyOld, DAY + 1000);
  await age(emptyNew, DAY - 60_000);
  await age(guestOld, 30 * DAY + 1000);
  await age(guestRecent, 29 * DAY);
  await age(clientOld, 90 * DAY);
  const deleted = await basketPruning()(t.database.db, Date.now());
  expect(deleted).toBe(2);
  expect(await Promise.all([emptyOld, emptyNew, guestOld, guestRecent, clientOld].map(exists))).toEqual([false, true, false, true, true]);
  expect(
    await t.database.db.selectFrom('basket_line').select('basket_id').where('basket_id', 'in', [emptyOld, guestOld]).execute(),
  ).toEqual([]);
});

it('treats a guest token past its 30 days as unknown even before the cleanup ran', async () => {
  const basket = await add(t, {}, book, 3);
  await age(basket.id!, 30 * DAY + 1000);
  expect((await read(t, { token: basket.basketToken! })).id).toBeNull();
  const fresh = await add(t, { token: basket.basketToken! }, book, 1);
  expect([fresh.id === basket.id, fresh.basketToken === basket.basketToken, fresh.items[0]!.quantity]).toEqual([false, false, 1]);
});
