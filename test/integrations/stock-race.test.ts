import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { withTableHeld } from '../helpers/lock-waits.js';
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
  await backOfficeImport(t, 'shops', [{ code: 'DEPOT', names: { et: 'Ladu' }, city: 'Tallinn', webStock: true }]);
  expect((await postFeed(t, 'STOCKY', 'products', ndjson([book('ST-1')]), secret)).json().errors).toEqual([]);
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
