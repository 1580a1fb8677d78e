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

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  client = await createCustomer(db);
  hidden = [];
  for (let i = 0; i < MAX_WISHLIST_ITEMS - 1; i += 1) hidden.push(await createProduct(db, { name: `Peidetud ${i}` }));
  const now = Date.now() - 86_400_000;
  // Added when they were on sale (the oldest first), then taken out of the web shop.
  await db
    .insertInto('wishlist_item')
    .values(
      hidden.map((product_id, i) => ({ client_account_id: client.clientAccountId, store_code: 'WEB', product_id, created_at: now + i })),
    )
    .execute();
  await db.updateTable('product').set({ hidden_web: true }).where('id', 'in', hidden).execute();
}, 120_000);
afterAll(() => t.close());

const add = (productId: number) =>
  t.app.inject({ method: 'POST', url: '/wishlist', headers: { authorization: `Bearer ${client.token}` }, payload: { productId } });
const list = () => t.app.inject({ url: '/wishlist', headers: { authorization: `Bearer ${client.token}` } });
const rows = () =>
  t.database.db
    .selectFrom('wishlist_item')
    .select('product_id')
    .where('client_account_id', '=', client.clientAccountId)
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
