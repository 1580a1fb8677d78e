import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { firstHoldingThenSecond, withTableHeld } from '../helpers/lock-waits.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { backOfficeImport, book, ndjson, postFeed } from './helpers.js';

// The back office's stock import and a supplier's stock feed each hold their own import lock, so a
// line of each can write the first stock row of one product in one shop at once: both read that
// there is none (on PostgreSQL, with shop_stock held until both wait to write it). Both lines are
// accepted, one after the other, rather than the second failing on the row the first inserted.

let t: TestApp;
let secret: string;
beforeAll(async () => {
  t = await createTestApp();
  secret = await addSupplier(t.database.db, 'STOCKY', 'Stocky Books', Date.now());
  await backOfficeImport(t, 'shops', [
    { code: 'DEPOT', names: { et: 'Ladu' }, city: 'Tallinn', webStock: true },
    { code: 'TARTU', names: { et: 'Tartu pood' }, city: 'Tartu', webStock: true },
  ]);
  expect((await postFeed(t, 'STOCKY', 'products', ndjson([book('ST-1'), book('ST-2')]), secret)).json().errors).toEqual([]);
});
afterAll(() => t.close());

describe('the first stock row of a product in a shop, written by two imports at once', () => {
  it('accepts both lines: one creates the row, the other updates it', async () => {
    const [backOffice, feed] = await withTableHeld(t.database.db, 'shop_stock', () =>
      Promise.all([
        backOfficeImport(t, 'stock', [{ product: 'ST-1', shop: 'DEPOT', quantity: 5 }]),
        postFeed(t, 'STOCKY', 'stock', ndjson([{ product: 'ST-1', shop: 'DEPOT', quantity: 7 }]), secret),
      ]),
    );
    expect(backOffice.reported).toEqual([]);
    expect(feed.statusCode, feed.body).toBe(200);
    expect(feed.json().errors).toEqual([]);
    const outcomes = [backOffice.outcomes, feed.json().outcomes];
    expect(outcomes).toEqual(expect.arrayContaining([{ created: 1 }, { updated: 1 }]));
    const row = await t.database.db
      .selectFrom('shop_stock as s')
      .innerJoin('product as p', 'p.id', 's.product_id')
      .select(['s.quantity', 'p.web_stock'])
      .where('p.code', '=', 'ST-1')
      .executeTakeFirstOrThrow();
    expect([5, 7]).toContain(row.quantity);
    expect(row.web_stock).toBe(row.quantity);
  });
});

describe("a product's stock in two shops, changed by two imports at once", () => {
  // A line sums the product's web stock from its shops' rows in the statement that writes it. On
  // PostgreSQL the second line's statement waits there for the first line's row lock and then wrote
  // the sum it had read before the first committed: the first line's shop counted as it was, and
  // the web stock was short of what the shops hold until the next stock line of the product.
  it('counts both shops in the web stock', async () => {
    expect((await backOfficeImport(t, 'stock', [{ product: 'ST-2', shop: 'TARTU', quantity: 1 }])).reported).toEqual([]);
    expect((await postFeed(t, 'STOCKY', 'stock', ndjson([{ product: 'ST-2', shop: 'DEPOT', quantity: 2 }]), secret)).statusCode).toBe(200);
    // The back office's line waits (integration_stream held) with the product's row written; the
    // supplier's line then writes its own shop's row and reaches the product's.
    const [backOffice, feed] = await firstHoldingThenSecond(
      t.database.db,
      'integration_stream',
      () => backOfficeImport(t, 'stock', [{ product: 'ST-2', shop: 'TARTU', quantity: 5 }]),
      () => postFeed(t, 'STOCKY', 'stock', ndjson([{ product: 'ST-2', shop: 'DEPOT', quantity: 7 }]), secret),
    );
    expect(backOffice.reported).toEqual([]);
    expect(feed.json().errors).toEqual([]);
    const product = await t.database.db.selectFrom('product').select('web_stock').where('code', '=', 'ST-2').executeTakeFirstOrThrow();
    expect(product.web_stock).toBe(12);
  });
});
