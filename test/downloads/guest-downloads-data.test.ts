import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDownloadWorld, get, strangersGuestOrder, type DownloadWorld } from './helpers.js';

// "Your data" holds the guest orders billed to the person's login email (orders.personal-data.ts); since a
// guest's e-books are downloaded from its order (GET /order/{code}/download), what those orders give to
// download and how much of it was used belongs beside them in the export's `downloads`, as a client's does.

let world: DownloadWorld;
let guestCode: string;

beforeAll(async () => {
  world = await createDownloadWorld();
  const { code, query, item } = await strangersGuestOrder(world);
  guestCode = code;
  // The guest downloads its e-book once, from its order.
  const link = await get(world, `/order/${guestCode}/download/${item.id}/link${query}`);
  expect(link.statusCode, link.body).toBe(200);
  expect((await get(world, new URL((link.json() as { url: string }).url).pathname)).statusCode).toBe(200);
});

afterAll(async () => {
  await world?.close();
});

describe("the export of a person's guest orders", () => {
  it('lists their downloads beside the orders, with the downloads used', async () => {
    const response = await get(world, '/client-account/export', world.stranger, { store: 'WEB' });
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json() as {
      orders: { items: Array<{ code: string }> };
      downloads: Array<{ orderCode: string; downloadsUsed: number }>;
    };
    expect(data.orders.items.map((order) => order.code)).toContain(guestCode);
    expect(data.downloads).toEqual([expect.objectContaining({ orderCode: guestCode, productId: world.ebooks[0]!.id, downloadsUsed: 1 })]);
    // The client who bought the same book with the same billing address has its own purchase only.
    const customers = (await get(world, '/client-account/export', world.customer, { store: 'WEB' })).json() as typeof data;
    expect(customers.downloads.map((row) => row.orderCode)).not.toContain(guestCode);
  });
});
