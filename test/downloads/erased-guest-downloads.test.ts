import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDownloadWorld, get, strangersGuestOrder, type DownloadItem, type DownloadWorld } from './helpers.js';

// The erasure of a person (DELETE /client-account) strips the guest orders billed to their login email,
// as it strips their accounts' orders, and keeps them for accounting; their entitlements stay with them.
// The files end with the person, as an erased client's do (its links are refused and it cannot log in):
// the order mail's link (a checksum, in a forwarded mail or a gateway's return URL) lists and links
// none of them, and a link made before the erasure serves nothing.

let world: DownloadWorld;
let code: string;
let query: string;
let item: DownloadItem;
let linkMadeBefore: string;

beforeAll(async () => {
  world = await createDownloadWorld();
  const db = world.t.database.db;
  const bought = await strangersGuestOrder(world);
  ({ code, query, item } = bought);
  const link = await get(world, `/order/${code}/download/${item.id}/link${query}`);
  expect(link.statusCode, link.body).toBe(200);
  linkMadeBefore = new URL((link.json() as { url: string }).url).pathname;
  // Delivered (the back office completed it): an open order would refuse the erasure.
  await db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('id', '=', bought.orderId).execute();
  // The person asks for the erasure (a user without a password, with a fresh login).
  const erased = await world.t.app.inject({
    method: 'DELETE',
    url: '/client-account',
    headers: { authorization: `Bearer ${world.stranger.bearer}`, store: 'WEB' },
    payload: {},
  });
  expect(erased.statusCode, erased.body).toBeLessThan(300);
  const order = await db.selectFrom('customer_order').select('billing_email').where('code', '=', code).executeTakeFirstOrThrow();
  expect(order.billing_email).toMatch(/@erased\.invalid$/);
});

afterAll(async () => {
  await world?.close();
});

describe('a guest order of a person erased since', () => {
  it("lists and links none of its files to the order mail's link", async () => {
    const list = await get(world, `/order/${code}/download${query}`);
    expect(list.statusCode, list.body).toBe(403);
    const link = await get(world, `/order/${code}/download/${item.id}/link${query}`);
    expect(link.statusCode, link.body).toBe(403);
  });

  it('serves nothing through a link made before the erasure', async () => {
    const response = await get(world, linkMadeBefore);
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-disposition']).toBeUndefined();
  });

  it("keeps the order's entitlement (accounting)", async () => {
    const db = world.t.database.db;
    const order = await db.selectFrom('customer_order').select('id').where('code', '=', code).executeTakeFirstOrThrow();
    expect(await db.selectFrom('order_entitlement').select('product_id').where('order_id', '=', order.id).execute()).toHaveLength(1);
  });
});
