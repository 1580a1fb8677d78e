import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/infra/clock.js';
import { supplierCommand } from '../../src/modules/integrations/index.js';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from './helpers.js';

// `storefront supplier remove` deletes the supplier's row, and the foreign key sets supplier_id to
// null on every product it kept: one UPDATE of all of them, which on PostgreSQL locks their rows in
// the order its plan meets them, on a small table the heap's, not the ids' once a row was updated.
// A checkout holds its products' stock in product id order (orders' stock.repository.ts): the
// removal took B, waited on X (here held by the test, as any write of it holds it), then wanted A,
// which a checkout of A and B held while it waited for B, and PostgreSQL ended one of them: the
// checkout's 500, or the command's failure.

let t: TestApp;
let shop: Shop;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  if (engine === 'postgres') shop = await setUpShop(t);
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

describe.skipIf(engine !== 'postgres')("a checkout while a supplier is removed, its products' supplier_id set null", () => {
  it('is not ended on a deadlock: the removal takes the products in id order', async () => {
    const db = t.database.db;
    await addSupplier(db, 'GONE', 'Leaving Books', Date.now());
    const a = await stockedBook(t, shop, 5);
    const b = await stockedBook(t, shop, 5);
    const x = await stockedBook(t, shop, 5);
    expect(a < b && b < x).toBe(true);
    const supplier = await db.selectFrom('supplier').select('id').where('code', '=', 'GONE').executeTakeFirstOrThrow();
    await db.updateTable('product').set({ supplier_id: supplier.id }).where('id', 'in', [a, b, x]).execute();
    // A's row rewritten (an indexed column): its live version now lies after B's and X's in the heap.
    await sql`update product set updated_at = updated_at + 1 where id = ${a}`.execute(db);
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
    const hold = await db.startTransaction().execute();
    let removed: { failed?: unknown } | undefined;
    let answer: Awaited<ReturnType<typeof checkout>> | undefined;
    let removal: Promise<void> | undefined;
    let request: Promise<void> | undefined;
    try {
      await sql`select id from product where id = ${x} for no key update`.execute(hold);
      removal = supplierCommand({ db, clock: systemClock }, ['remove', 'GONE'], (line) => printed.push(line)).then(
        () => void (removed = {}),
        (failed: unknown) => void (removed = { failed }),
      );
      await until('the removal to wait on X', async () => removed !== undefined || (await lockWaiters(db)) >= 1);
      expect(removed).toBeUndefined();
      // The removal holds what it took before X: A too (lower id than B), or the checkout below deadlocks.
      expect(await lockedByOthers(b)).toBe(true);
      expect(await lockedByOthers(a)).toBe(true);
      request = checkout(t, who, checkoutForm(shop)).then((response) => {
        answer = response;
      });
      await until('the checkout to wait on the removal', async () => answer !== undefined || (await lockWaiters(db)) >= 2);
      await hold.commit().execute();
    } catch (error) {
      await hold.rollback().execute();
      throw error;
    }
    await request;
    await removal;
    expect(answer!.statusCode, answer!.body).toBe(200);
    expect(removed).toEqual({});
    expect(printed).toEqual(['Supplier "GONE" removed; its 3 active products are the back office\'s now.']);
    const kept = await db.selectFrom('product').select('supplier_id').where('id', 'in', [a, b, x]).execute();
    expect(kept.map((row) => row.supplier_id)).toEqual([null, null, null]);
  }, 60_000);
});
