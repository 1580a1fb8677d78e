import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from './helpers.js';

// A basket line whose product can no longer be ordered (deactivated by a feed, hidden from the web)
// is refused at checkout: a 422 on `lines.<code>` that names it, and no order. The checkout prices
// the basket from the products as they are when it reads them, then holds the stock of those that
// ship from it, in product id order (orders' stock.repository.ts). On PostgreSQL a writer of the
// product (a feed's deactivation batch) may hold its row then: the hold waits for that commit and
// is then made on the row as the writer left it, checking only the free stock, so the checkout
// made an order of a product deactivated before its order existed.

let t: TestApp;
let shop: Shop;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
});
afterAll(() => t?.close());

const changes = {
  deactivated: { is_active: false },
  'hidden from the web': { hidden_web: true },
} as const;

async function productOf(id: number) {
  return t.database.db.selectFrom('product').select(['code', 'name', 'reserved_quantity']).where('id', '=', id).executeTakeFirstOrThrow();
}

async function expectRefusedWithoutOrder(answer: Awaited<ReturnType<typeof checkout>>, refused: number, kept: number): Promise<void> {
  const product = await productOf(refused);
  expect(answer.statusCode, answer.body).toBe(422);
  expect(answer.json()).toEqual([{ field: `lines.${product.code}`, message: expect.stringContaining(product.name) as unknown as string }]);
  const orders = await t.database.db.selectFrom('customer_order').select('id').execute();
  expect(orders).toEqual([]);
  expect(Number(product.reserved_quantity)).toBe(0);
  expect(Number((await productOf(kept)).reserved_quantity)).toBe(0);
}

describe('a checkout of a basket line whose product can no longer be ordered', () => {
  it.each(Object.entries(changes))('is refused when the product was %s before it', async (_, change) => {
    const a = await stockedBook(t, shop, 5);
    const b = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [
      [b, 1],
      [a, 1],
    ]);
    await t.database.db.updateTable('product').set(change).where('id', '=', a).execute();
    await expectRefusedWithoutOrder(await checkout(t, who, checkoutForm(shop)), a, b);
  });

  it.skipIf(engine !== 'postgres').each(Object.entries(changes))(
    'is refused when the product was %s while the checkout waited for its row',
    async (_, change) => {
      const db = t.database.db;
      const a = await stockedBook(t, shop, 5);
      const b = await stockedBook(t, shop, 5);
      const who = await fill(t, {}, [
        [b, 1],
        [a, 1],
      ]);
      // The writer's transaction (a feed's deactivation batch) holds A's row, changed and not yet committed.
      const writer = await db.startTransaction().execute();
      let answer: Awaited<ReturnType<typeof checkout>> | undefined;
      let request: Promise<void> | undefined;
      try {
        await writer.updateTable('product').set(change).set({ updated_at: Date.now() }).where('id', '=', a).execute();
        request = checkout(t, who, checkoutForm(shop)).then((response) => {
          answer = response;
        });
        // It priced the basket with A as it was (the change not committed), and waits to hold A's stock.
        await until('the checkout to wait on A', async () => answer !== undefined || (await lockWaiters(db)) >= 1);
        expect(answer).toBeUndefined();
        await writer.commit().execute();
      } catch (error) {
        await writer.rollback().execute();
        throw error;
      }
      await request;
      await expectRefusedWithoutOrder(answer!, a, b);
    },
    60_000,
  );
});
