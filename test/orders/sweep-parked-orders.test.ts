import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { card } from '../gift-cards/helpers.js';
import type { TestApp } from '../helpers/test-app.js';
import { createTestApp } from '../helpers/test-app.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { sweepDepsOf } from './everypay-helpers.js';
import { call, checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { age, orderStatus, stockedBook as bookWithStock } from './processing-helpers.js';

// Without BACKOFFICE_ORDERS_URL a processed order waits in PENDING_NAV_PROCESSING for the operators'
// pull feed (GET /admin/orders) and their status report: that is where it belongs, not stuck in a
// hand-off that keeps failing. The sweep's 8 hours must not fail it (which gave its gift cards their
// money back and its discount code's use, while the order was paid and the back office ships it).

const HOUR = 3_600_000;
let t: TestApp;
let shop: Shop;
let key: string;
beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  key = await createApiKey(t.database.db, 'back-office', Date.now());
});
afterAll(async () => {
  await t?.close();
});

const balanceOf = async (code: string) =>
  (await t.app.inject({ method: 'GET', url: `/virtual-gift-card/balance?code=${encodeURIComponent(code)}` })).json().balance as number;

describe('without a back office', () => {
  it('a paid order waiting for the pull feed is not failed after 8 hours; the back office then completes it', async () => {
    const giftCard = await card(t, 100);
    const who = await fill(t, {}, [[await stockedBook(t, shop, 3, 20), 1]]);
    expect((await call(t, 'POST', '/basket/add-gift-card', who, { code: giftCard })).statusCode).toBe(200);
    const placed = await checkout(t, who, checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
    const { orderId, path } = orderLink(placed.json().location);
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    await t.drainJobs();
    expect(await orderStatus(t.database.db, orderId)).toBe('PENDING_NAV_PROCESSING');
    expect(await balanceOf(giftCard)).toBe(100 - 25.9);

    await age(t.database.db, orderId, 9 * 60);
    await sweepOrders(sweepDepsOf(t), Date.now());
    expect(await orderStatus(t.database.db, orderId)).toBe('PENDING_NAV_PROCESSING');
    expect(await balanceOf(giftCard)).toBe(100 - 25.9);

    const code = (await t.database.db.selectFrom('customer_order').select('code').where('id', '=', orderId).executeTakeFirstOrThrow()).code;
    const reported = await t.app.inject({
      method: 'POST',
      url: `/admin/orders/${code}/status`,
      headers: { authorization: `Bearer ${key}` },
      payload: { status: 'Shipped', createdAt: new Date(Date.now() - 8 * HOUR).toISOString() },
    });
    expect(reported.statusCode, reported.body).toBe(200);
    expect(await orderStatus(t.database.db, orderId)).toBe('COMPLETED');
    expect(await balanceOf(giftCard)).toBe(100 - 25.9);
  });
});

describe('with a back office', () => {
  it('an order whose hand-off has failed for 8 hours is still failed as stuck', async () => {
    const office = await createTestApp({
      env: {
        BACKOFFICE_ORDERS_URL: 'http://127.0.0.1:9/orders',
        BACKOFFICE_ORDERS_SECRET: 'x'.repeat(32),
        BACKOFFICE_ORDERS_TIMEOUT_MS: '500',
      },
    });
    try {
      const book = await bookWithStock(office.database.db, 3);
      const parked = await insertOrder(office.database.db, { status: 'PENDING_NAV_PROCESSING', lines: [book], at: Date.now() - 9 * HOUR });
      await sweepOrders(sweepDepsOf(office), Date.now());
      expect(await orderStatus(office.database.db, parked.id)).toBe('FAILED');
    } finally {
      await office.close();
    }
  });
});
