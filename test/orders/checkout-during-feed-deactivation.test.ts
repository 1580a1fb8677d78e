import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { book, ndjson, postFeed } from '../integrations/helpers.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from './helpers.js';

// A product feed (the back office's or a supplier's, catalogue-import's products.import.ts)
// deactivates the active products it does not list after its last line, up to 500 with one UPDATE
// ... WHERE id IN (...). A checkout holds its products' stock in product id order, as every writer
// of several product rows must (orders' stock.repository.ts). The UPDATE locks its rows in the order
// its plan meets them, on a small table the heap's, which is not the ids' once a row was updated
// (its new version is written after the others): the feed took B, waited on X (here held by the
// test, as any write of it holds it), then wanted A, which a checkout of A and B held while it
// waited for B. PostgreSQL ended one of them (deadlock detected): the feed's batch runs again, but
// the checkout is a 500 for the shopper.

let t: TestApp;
let shop: Shop;
let secret: string;

const KEPT = [book('FEED-K1'), book('FEED-K2'), book('FEED-K3')];

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  if (engine !== 'postgres') return;
  shop = await setUpShop(t);
  secret = await addSupplier(t.database.db, 'DEACT', 'Deactivating Books', Date.now());
  // The feed keeps these three: deactivating three more of six is not "more than half".
  const first = await postFeed(t, 'DEACT', 'products', ndjson(KEPT), secret);
  expect(first.statusCode, first.body).toBe(200);
  expect(first.json().errors).toEqual([]);
});
afterAll(() => t?.close());

/** Whether another transaction holds the product's row (a lock probe that does not wait). */
async function lockedByOthers(id: number): Promise<boolean> {
  try {
    await t.database.db.transaction().execute((trx) => sql`select id from product where id = ${id} for no key update nowait`.execute(trx));
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return true;
    throw error;
  }
}

describe.skipIf(engine !== 'postgres')("a checkout while a supplier's product feed deactivates its products", () => {
  it('is not ended on a deadlock: the feed takes the products it deactivates in id order', async () => {
    const db = t.database.db;
    const a = await stockedBook(t, shop, 5);
    const b = await stockedBook(t, shop, 5);
    const x = await stockedBook(t, shop, 5);
    expect(a < b && b < x).toBe(true);
    const supplier = await db.selectFrom('supplier').select('id').where('code', '=', 'DEACT').executeTakeFirstOrThrow();
    await db.updateTable('product').set({ supplier_id: supplier.id }).where('id', 'in', [a, b, x]).execute();
    // A's row rewritten (an indexed column): its live version now lies after B's and X's in the heap.
    await sql`update product set updated_at = updated_at + 1 where id = ${a}`.execute(db);
    const who = await fill(t, {}, [
      [b, 1],
      [a, 1],
    ]);

    const hold = await db.startTransaction().execute();
    let feed: Awaited<ReturnType<typeof postFeed>> | undefined;
    let answer: Awaited<ReturnType<typeof checkout>> | undefined;
    let feedRequest: Promise<void> | undefined;
    let request: Promise<void> | undefined;
    try {
      await sql`select id from product where id = ${x} for no key update`.execute(hold);
      // The same lines again (in another order: a request is signed once): they change nothing, and
      // A, B and X are deactivated after them.
      feedRequest = postFeed(t, 'DEACT', 'products', ndjson([...KEPT].reverse()), secret).then((response) => {
        feed = response;
      });
      await until('the feed to wait on X', async () => feed !== undefined || (await lockWaiters(db)) >= 1);
      expect(feed).toBeUndefined();
      // The feed holds what it took before X: A too (lower id than B), or the checkout below deadlocks.
      expect(await lockedByOthers(b)).toBe(true);
      expect(await lockedByOthers(a)).toBe(true);
      request = checkout(t, who, checkoutForm(shop)).then((response) => {
        answer = response;
      });
      await until('the checkout to wait on the feed', async () => answer !== undefined || (await lockWaiters(db)) >= 2);
      await hold.commit().execute();
    } catch (error) {
      await hold.rollback().execute();
      throw error;
    }
    await request;
    await feedRequest;
    // Not a deadlock's 500: the checkout waited for the feed, and then its products were inactive
    // (checkout-of-deactivated-product.test.ts): no order of them, no stock held.
    expect(answer!.statusCode, answer!.body).toBe(422);
    const codes = await db.selectFrom('product').select(['id', 'code']).where('id', 'in', [a, b]).execute();
    const codeOf = (id: number) => codes.find((row) => Number(row.id) === id)!.code;
    expect(answer!.json()).toEqual([
      { field: `lines.${codeOf(b)}`, message: expect.any(String) as unknown as string },
      { field: `lines.${codeOf(a)}`, message: expect.any(String) as unknown as string },
    ]);
    expect(await db.selectFrom('customer_order').select('id').execute()).toEqual([]);
    const held = await db.selectFrom('product').select('reserved_quantity').where('id', 'in', [a, b]).execute();
    expect(held.map((row) => Number(row.reserved_quantity))).toEqual([0, 0]);
    expect(feed!.statusCode, feed!.body).toBe(200);
    expect(feed!.json()).toMatchObject({ errors: [], outcomes: { unchanged: 3, deactivated: 3 } });
    const active = await db.selectFrom('product').select('is_active').where('id', 'in', [a, b, x]).execute();
    expect(active.map((row) => Boolean(row.is_active))).toEqual([false, false, false]);
  }, 60_000);
});
