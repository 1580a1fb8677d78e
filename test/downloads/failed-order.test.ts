import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { sweepDepsOf } from '../orders/everypay-helpers.js';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// An order that ends FAILED (stuck in processing, the back office never had it) is given up: it is no
// longer among the paid ones (the purchase history drops it), the gift cards that paid for it get their
// shares back and the cards it bought are voided. Its e-books stayed on the buyer's download list, and a
// link handed out before went on serving the file.

let world: DownloadWorld;
beforeAll(async () => {
  // A back office that never answers: the hand-off keeps failing, the order waits in PROCESSING.
  world = await createDownloadWorld({
    BACKOFFICE_ORDERS_URL: 'http://127.0.0.1:9/orders',
    BACKOFFICE_ORDERS_SECRET: 'back-office-secret-for-the-tests-0123456789',
    BACKOFFICE_ORDERS_TIMEOUT_MS: '200',
  });
  const [book] = world.ebooks;
  expect((await upload(world, book!.code, 'EPUB', randomBytes(1000))).statusCode).toBe(200);
});
afterAll(async () => {
  await world?.close();
});

describe('the downloads of an order that ended FAILED', () => {
  it('are neither listed nor served', async () => {
    const [item] = await downloads(world, world.customer);
    expect(item).toBeDefined();
    const path = await linkPath(world, world.customer, item!.id);

    const stuck = world.t.config.orders.stuckAfterMs + 60_000;
    expect(await sweepOrders(sweepDepsOf(world.t), Date.now() + stuck)).toEqual({
      ran: true,
      result: expect.objectContaining({ failed: 1 }),
    });
    const { status } = await world.t.database.db
      .selectFrom('customer_order')
      .select('status')
      .where('id', '=', world.orderId)
      .executeTakeFirstOrThrow();
    expect(status).toBe('FAILED');

    expect(await downloads(world, world.customer)).toEqual([]);
    expect((await get(world, `/download/${item!.id}/link`, world.customer)).statusCode).toBe(404);
    expect((await get(world, path, world.customer)).statusCode).toBe(403);
  });
});
