import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { T0, exportUser, insertSaleSeries } from './fixtures.js';

// Page boundaries are kept per process and shared between walks; the total is kept a few seconds.
// Rows removed between two walks (retention, erasure) must not make the second walk repeat rows.

let t: TestApp;
let authorization: string;
const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });
const orders = (response: { json(): unknown }) => (response.json() as Array<{ order: string }>).map((item) => item.order);

beforeAll(async () => {
  t = await createTestApp();
  ({ authorization } = await exportUser(t.database.db));
  await insertSaleSeries(t.database.db, 15, T0, 'PR');
});
afterAll(() => t?.close());

describe('a walk after rows were removed', () => {
  it('a short first page ends the walk: the next page does not repeat its rows from an older boundary', async () => {
    const first = [...orders(await get('/sales-history?page=1&per-page=10')), ...orders(await get('/sales-history?page=2&per-page=10'))];
    expect(first).toHaveLength(15);
    // The oldest six go (as a retention prune would remove them).
    await t.database.db
      .deleteFrom('sales_history')
      .where('created_at', '<', T0 + 6000)
      .execute();
    const page1 = orders(await get('/sales-history?page=1&per-page=10'));
    expect(page1).toEqual(first.slice(6));
    const page2 = orders(await get('/sales-history?page=2&per-page=10'));
    expect(page2.filter((order) => page1.includes(order))).toEqual([]);
  });
});
