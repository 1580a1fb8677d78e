import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WISHLIST_ITEMS } from '../../src/modules/wishlist/index.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A product the client may no longer see drops out of the wishlist's page and count: a list of
// products mostly hidden since (taken out of the web shop, ended) shows a few items. Such a list is
// not full: it makes room by dropping the hidden products, the longest on the list first, so the
// client is never told "at most 500" over a list that shows 1 and has nothing to remove.

let t: TestApp;
let client: TestCustomer;
let hidden: number[];

/** A client of the app whose list holds MAX_WISHLIST_ITEMS - 1 products, hidden from the web shop since. */
async function listOfHiddenProducts(app: TestApp): Promise<{ client: TestCustomer; hidden: number[] }> {
  const db = app.database.db;
  const owner = await createCustomer(db);
  const ids: number[] = [];
  for (let i = 0; i < MAX_WISHLIST_ITEMS - 1; i += 1) ids.push(await createProduct(db, { name: `Peidetud ${i}` }));
  const now = Date.now() - 86_400_000;
  // Added when they were on sale (the oldest first), then taken out of the web shop.
  await db
    .insertInto('wishlist_item')
    .values(ids.map((product_id, i) => ({ client_account_id: owner.clientAccountId, store_code: 'WEB', product_id, created_at: now + i })))
    .execute();
  await db.updateTable('product').set({ hidden_web: true }).where('id', 'in', ids).execute();
  return { client: owner, hidden: ids };
}

beforeAll(async () => {
  t = await createTestApp();
  ({ client, hidden } = await listOfHiddenProducts(t));
}, 120_000);
afterAll(() => t.close());

const add = (productId: number, app = t) =>
  app.app.inject({ method: 'POST', url: '/wishlist', headers: { authorization: `Bearer ${client.token}` }, payload: { productId } });
const list = () => t.app.inject({ url: '/wishlist', headers: { authorization: `Bearer ${client.token}` } });
const rows = (app = t, owner = client) =>
  app.database.db
    .selectFrom('wishlist_item')
    .select('product_id')
    .where('client_account_id', '=', owner.clientAccountId)
    .execute()
    .then((found) => found.map((row) => Number(row.product_id)));

describe('a wishlist of products hidden since they were added', () => {
  it('takes new products while it shows fewer than the cap, dropping the longest-hidden rows to make room', async () => {
    const first = await createProduct(t.database.db, { name: 'Nähtav 1' });
    const second = await createProduct(t.database.db, { name: 'Nähtav 2' });
    expect((await add(first)).statusCode).toBe(201);
    const shown = await list();
    expect(shown.headers['x-pagination-total-count']).toBe('1');

    const added = await add(second);
    expect(added.statusCode, added.body).toBe(201);
    const after = await list();
    expect(after.headers['x-pagination-total-count']).toBe('2');
    expect((after.json() as Array<{ product: { id: number } }>).map((item) => item.product.id)).toEqual([second, first]);
    // One hidden row went, the one added first; the rest stay, to come back if their products do.
    const kept = await rows();
    expect(kept).toHaveLength(MAX_WISHLIST_ITEMS);
    expect(kept).not.toContain(hidden[0]);
    expect(kept).toContain(hidden[1]);
  }, 60_000);
});

describe('a full wishlist judged with the caches on', () => {
  it('keeps a product shown again since the catalogue cached it as hidden', async () => {
    const cached = await createTestApp({ env: { CATALOGUE_CACHE_TTL_MS: '60000' } });
    try {
      const { client: owner, hidden: ids } = await listOfHiddenProducts(cached);
      const headers = { authorization: `Bearer ${owner.token}` };
      const first = await createProduct(cached.database.db, { name: 'Nähtav' });
      const inject = (productId: number) => cached.app.inject({ method: 'POST', url: '/wishlist', headers, payload: { productId } });
      expect((await inject(first)).statusCode).toBe(201);
      // The list's page reads every product's base into the cache, the oldest as hidden; then it is back on sale.
      expect((await cached.app.inject({ url: '/wishlist', headers })).headers['x-pagination-total-count']).toBe('1');
      await cached.database.db.updateTable('product').set({ hidden_web: false }).where('id', '=', ids[0]!).execute();

      const second = await createProduct(cached.database.db, { name: 'Nähtav 2' });
      const added = await inject(second);
      expect(added.statusCode, added.body).toBe(201);
      const kept = await rows(cached, owner);
      expect(kept).toContain(ids[0]);
      expect(kept).not.toContain(ids[1]);
    } finally {
      await cached.close();
    }
  }, 120_000);
});
