import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { setUpShop, stockedBook, type Shop } from './helpers.js';
import { orderStatus, placeOrder } from './purchase-helpers.js';

// A processed order's hand-off job parks the order for the sweep when its last attempt fails. A worker
// killed during that last attempt (a deploy while the back office was slow) leaves the job to be
// kept as dead by the next worker, unrun: nothing parked the order, and the sweep hands off only
// parked ones, so the paid order sat in PROCESSING until it was failed as stuck, the back office long
// up again. The sweep hands such an order off too.

const SECRET = 'back-office-shared-secret-0123456789abcdef';
const HOUR = 3_600_000;
let t: TestApp;
let office: HttpReceiver;
let shop: Shop;
beforeAll(async () => {
  office = await startHttpReceiver();
  t = await createTestApp({ env: { BACKOFFICE_ORDERS_URL: `${office.url}/orders`, BACKOFFICE_ORDERS_SECRET: SECRET } });
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t.close();
  await office.close();
});

describe('an order whose hand-off job died with its worker during the last attempt', () => {
  it('is handed off by the sweep once the back office answers, not left in PROCESSING to fail', async () => {
    const db = t.database.db;
    office.respondWith(503);
    const book = await stockedBook(t, shop, 5, 12.5);
    const order = await placeOrder(t, shop, {}, [[book, 1]]);
    await t.drainJobs();
    expect(await orderStatus(db, order.orderId)).toBe('PROCESSING');
    // Its last attempt was claimed, and the worker that claimed it was killed: the claim ran out.
    const now = Date.now();
    const handoff = await db
      .updateTable('job')
      .set((eb) => ({ status: 'running', attempts: eb.ref('max_attempts'), locked_until: now - 1 }))
      .where('type', '=', 'order.handoff')
      .where('status', '=', 'pending')
      .returning('id')
      .executeTakeFirstOrThrow();
    office.respondWith(200);
    await t.jobs.worker.drain({ includeDelayed: true });
    const job = await db.selectFrom('job').select(['status', 'last_error']).where('id', '=', handoff.id).executeTakeFirstOrThrow();
    expect(job.status).toBe('dead');
    const sweep = { db, config: t.config.orders, gateways: {}, log: t.app.log };
    await sweepOrders(sweep, now + 2 * HOUR);
    await sweepOrders(sweep, now + 2 * HOUR + 3 * 60_000);
    expect(await orderStatus(db, order.orderId)).toBe('COMPLETED');
    expect(office.requests.filter((request) => (request.body as { code?: string }).code === order.code).length).toBeGreaterThan(1);
  });
});
