import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/infra/clock.js';
import { supplierCommand } from '../../src/modules/integrations/index.js';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkoutBesideWriterWaitingOnX, productsOutOfHeapOrder } from './checkout-beside-bulk-writer.js';
import { fill, setUpShop, type Shop } from './helpers.js';

// `storefront supplier remove` deletes the supplier's row, and the foreign key sets supplier_id to
// null on every product it kept: one UPDATE of all of them. Before the removal took those rows in id
// order first, it could deadlock with a checkout (checkout-beside-bulk-writer.ts): the checkout's
// 500, or the command's failure.

let t: TestApp;
let shop: Shop;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  if (engine === 'postgres') shop = await setUpShop(t);
});
afterAll(() => t?.close());

describe.skipIf(engine !== 'postgres')("a checkout while a supplier is removed, its products' supplier_id set null", () => {
  it('is not ended on a deadlock: the removal takes the products in id order', async () => {
    const db = t.database.db;
    await addSupplier(db, 'GONE', 'Leaving Books', Date.now());
    const supplier = await db.selectFrom('supplier').select('id').where('code', '=', 'GONE').executeTakeFirstOrThrow();
    const { a, b, x } = await productsOutOfHeapOrder(t, shop, (ids) =>
      db.updateTable('product').set({ supplier_id: supplier.id }).where('id', 'in', Object.values(ids)).execute(),
    );
    // Its statistics read (as autovacuum would): a table of a page or two is read whole, in heap
    // order, rather than through product_supplier_idx (supplier_id, is_active, id), whose order is
    // the ids' only among the active ones. A supplier that keeps many products is read in heap order
    // (a seq or bitmap scan) on any table.
    await sql`analyze product`.execute(db);
    const who = await fill(t, {}, [
      [b, 1],
      [a, 1],
    ]);

    const printed: string[] = [];
    const answer = await checkoutBesideWriterWaitingOnX(t, shop, who, { a, b, x }, 'the removal', () =>
      supplierCommand({ db, clock: systemClock }, ['remove', 'GONE'], (line) => printed.push(line)),
    );
    expect(answer.statusCode, answer.body).toBe(200);
    expect(printed).toEqual(['Supplier "GONE" removed; its 3 active products are the back office\'s now.']);
    const kept = await db.selectFrom('product').select('supplier_id').where('id', 'in', [a, b, x]).execute();
    expect(kept.map((row) => row.supplier_id)).toEqual([null, null, null]);
  }, 60_000);
});
