import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { book, ndjson, postFeed } from '../integrations/helpers.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkoutBesideWriterWaitingOnX, productsOutOfHeapOrder } from './checkout-beside-bulk-writer.js';
import { fill, setUpShop, type Shop } from './helpers.js';

// A product feed (the back office's or a supplier's, catalogue-import's products.import.ts)
// deactivates the active products it does not list after its last line, up to 500 with one UPDATE
// ... WHERE id IN (...). Before it took those rows in id order first, it could deadlock with a
// checkout (checkout-beside-bulk-writer.ts): the feed's batch runs again, but the checkout was a 500.

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

describe.skipIf(engine !== 'postgres')("a checkout while a supplier's product feed deactivates its products", () => {
  it('is not ended on a deadlock: the feed takes the products it deactivates in id order', async () => {
    const db = t.database.db;
    const supplier = await db.selectFrom('supplier').select('id').where('code', '=', 'DEACT').executeTakeFirstOrThrow();
    const { a, b, x } = await productsOutOfHeapOrder(t, shop, (ids) =>
      db.updateTable('product').set({ supplier_id: supplier.id }).where('id', 'in', Object.values(ids)).execute(),
    );
    const who = await fill(t, {}, [
      [b, 1],
      [a, 1],
    ]);
    // The same lines again (in another order: a request is signed once): they change nothing, and
    // A, B and X are deactivated after them.
    let feed: Awaited<ReturnType<typeof postFeed>> | undefined;
    const answer = await checkoutBesideWriterWaitingOnX(t, shop, who, { a, b, x }, 'the feed', async () => {
      feed = await postFeed(t, 'DEACT', 'products', ndjson([...KEPT].reverse()), secret);
    });
    // Not a deadlock's 500: the checkout waited for the feed, and then its products were inactive
    // (checkout-of-deactivated-product.test.ts): no order of them, no stock held.
    expect(answer.statusCode, answer.body).toBe(422);
    const codes = await db.selectFrom('product').select(['id', 'code']).where('id', 'in', [a, b]).execute();
    const codeOf = (id: number) => codes.find((row) => Number(row.id) === id)!.code;
    expect(answer.json()).toEqual([
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
