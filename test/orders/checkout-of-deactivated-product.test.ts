import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createProduct } from '../helpers/catalogue.js';
import { lockWaiters, tableLockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import type { Who } from '../basket/helpers.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from './helpers.js';
import { ebook } from './purchase-helpers.js';

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

async function expectRefusedWithoutOrder(answer: Awaited<ReturnType<typeof checkout>>, refused: number, ...kept: number[]): Promise<void> {
  const product = await productOf(refused);
  expect(answer.statusCode, answer.body).toBe(422);
  expect(answer.json()).toEqual([{ field: `lines.${product.code}`, message: expect.stringContaining(product.name) as unknown as string }]);
  // Other tests here make orders: none has a line of these products.
  const lines = await t.database.db
    .selectFrom('order_line')
    .select('order_id')
    .where('product_id', 'in', [refused, ...kept])
    .execute();
  expect(lines).toEqual([]);
  expect(Number(product.reserved_quantity)).toBe(0);
  for (const id of kept) expect(Number((await productOf(id)).reserved_quantity)).toBe(0);
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

// A line that holds no stock (an e-book, an audiobook: a download) took no lock of its product's row,
// so a deactivation of it (a feed's batch, the back office, `supplier remove`) that committed after
// the checkout read its products again and before the order committed went unseen: the order was made
// of a product no longer sold. The checkout now takes every line's product row (in share mode where it
// holds no stock), in product id order with the holds, before it reads them again.
describe('a checkout of a line that holds no stock, beside a deactivation of its product (PostgreSQL)', () => {
  /** Baskets with an e-book: alone (nothing to ship, so no delivery), and after a book (a lower id); a preorder so. */
  const baskets = {
    'an e-book': async () => {
      const download = await ebook(t, 9);
      return { download, books: [] as number[], form: checkoutForm(shop, { deliveryMethodId: undefined }) };
    },
    'an e-book beside a book': async () => {
      const book = await stockedBook(t, shop, 5);
      const download = await ebook(t, 9);
      return { download, books: [book], form: checkoutForm(shop) };
    },
    // Not a download, but held from no stock either.
    'a preorder beside a book': async () => {
      const book = await stockedBook(t, shop, 5);
      const download = await createProduct(t.database.db, { name: 'Tulekul', deliveryTime: 'PREORDER', price: 15 });
      return { download, books: [book], form: checkoutForm(shop) };
    },
  };

  async function basketOf(make: (typeof baskets)[keyof typeof baskets]) {
    const made = await make();
    const who = await fill(t, {}, [...made.books.map((id): [number, number] => [id, 1]), [made.download, 1]]);
    return { ...made, who };
  }

  const deactivate = (id: number) =>
    t.database.db
      .transaction()
      .execute((trx) => trx.updateTable('product').set({ is_active: false, updated_at: Date.now() }).where('id', '=', id).execute());

  it.skipIf(engine !== 'postgres').each(Object.keys(baskets) as Array<keyof typeof baskets>)(
    'with %s: a deactivation after its second read waits for its order to commit',
    async (name) => {
      const db = t.database.db;
      const { download, books, form, who } = await basketOf(baskets[name]);
      // The order's lines wait on the test's lock: the checkout has held its stock and read its products again.
      const hold = await db.startTransaction().execute();
      let answer: Awaited<ReturnType<typeof checkout>> | undefined;
      let request: Promise<void> | undefined;
      let deactivation: Promise<unknown> | undefined;
      let deactivated = false;
      try {
        await sql`lock table order_line in share mode`.execute(hold);
        request = checkout(t, who, form).then((response) => void (answer = response));
        await until(
          'the checkout to wait on its lines',
          async () => answer !== undefined || (await tableLockWaiters(db, 'order_line')) >= 1,
        );
        expect(answer).toBeUndefined();
        deactivation = deactivate(download).then(() => void (deactivated = true));
        await until('the deactivation to end or wait', async () => deactivated || (await lockWaiters(db)) >= 2);
        // Before, it committed here, and the order below was made of a product no longer sold.
        expect(deactivated).toBe(false);
        await hold.commit().execute();
      } catch (error) {
        await hold.rollback().execute();
        await Promise.allSettled([request, deactivation]);
        throw error;
      }
      await request;
      await deactivation;
      // The order was made before the deactivation: the product was sold when it committed.
      expect(answer!.statusCode, answer!.body).toBe(200);
      const ordered = [...books, download];
      const lines = await db
        .selectFrom('order_line')
        .select('product_id')
        .where('product_id', 'in', ordered)
        .orderBy('product_id')
        .execute();
      expect(lines.map((line) => Number(line.product_id))).toEqual(ordered.sort((a, b) => a - b));
      const product = await db.selectFrom('product').select('is_active').where('id', '=', download).executeTakeFirstOrThrow();
      expect(Boolean(product.is_active)).toBe(false);
    },
    60_000,
  );

  it.skipIf(engine !== 'postgres').each(Object.keys(baskets) as Array<keyof typeof baskets>)(
    'with %s: is refused when the product was deactivated while the checkout waited for its row',
    async (name) => {
      const db = t.database.db;
      const { download, books, form, who } = await basketOf(baskets[name]);
      // The writer holds the e-book's row, changed and not yet committed.
      const writer = await db.startTransaction().execute();
      let answer: Awaited<ReturnType<typeof checkout>> | undefined;
      let request: Promise<void> | undefined;
      try {
        await writer.updateTable('product').set({ is_active: false, updated_at: Date.now() }).where('id', '=', download).execute();
        request = checkout(t, who, form).then((response) => void (answer = response));
        // It priced the basket with the e-book as it was, and waits to take its row.
        await until('the checkout to wait on the e-book', async () => answer !== undefined || (await lockWaiters(db)) >= 1);
        expect(answer).toBeUndefined();
        await writer.commit().execute();
      } catch (error) {
        await writer.rollback().execute();
        throw error;
      }
      await request;
      await expectRefusedWithoutOrder(answer!, download, ...books);
    },
    60_000,
  );
});

describe('two checkouts of one e-book', () => {
  it('share its row: neither waits for the other, and both make their orders', async () => {
    const db = t.database.db;
    const download = await ebook(t, 9);
    const buyers: Who[] = [await fill(t, {}, [[download, 1]]), await fill(t, {}, [[download, 1]])];
    // Two buyers: one buyer's orders take the lock of their event stream one after the other (order-events.ts).
    const form = (index: number) => checkoutForm(shop, { deliveryMethodId: undefined, billingEmail: `buyer${index}@example.ee` });
    const placed = () => Promise.all(buyers.map((who, index) => checkout(t, who, form(index))));
    let answers: Awaited<ReturnType<typeof placed>>;
    if (engine !== 'postgres') answers = await placed();
    else {
      // Both hold the e-book's row and wait on the test's lock to write their lines: neither waits on the other's row.
      const hold = await db.startTransaction().execute();
      let running: ReturnType<typeof placed> | undefined;
      try {
        await sql`lock table order_line in share mode`.execute(hold);
        running = placed();
        running.catch(() => {});
        await until('both checkouts to wait', async () => (await lockWaiters(db)) >= 2);
        expect(await tableLockWaiters(db, 'order_line')).toBe(2);
        await hold.commit().execute();
      } catch (error) {
        await hold.rollback().execute();
        await Promise.allSettled([running]);
        throw error;
      }
      answers = await running;
    }
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const lines = await db.selectFrom('order_line').select('product_id').where('product_id', '=', download).execute();
    expect(lines).toHaveLength(2);
  }, 60_000);
});
