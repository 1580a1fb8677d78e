import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeStore } from '../../src/modules/store/index.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';

// GET /bank/create-form carries no store header (the front-end redirects the shopper's browser to
// it), but it starts the payment of an order of one store: while that store is locked for
// maintenance it is the spec's 423, and no payment starts; the shopper retries once it ends. The
// gateway's callbacks and the shopper's return of a payment already started are not refused.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  // The test gateway's callback goes nowhere (the discard port): only the start of a payment is looked at.
  t = await createTestApp({ env: { TEST_GATEWAY: 'on', PUBLIC_URL: 'http://127.0.0.1:9' } });
  shop = await setUpShop(t);
});
afterAll(() => t?.close());

async function placedOrder() {
  const who = await fill(t, {}, [[await stockedBook(t, shop, 5), 1]]);
  const placed = await checkout(t, who, checkoutForm(shop));
  expect(placed.statusCode, placed.body).toBe(200);
  return orderLink(placed.json().location);
}

const paymentsOf = async (orderId: number) =>
  (await t.database.db.selectFrom('order_payment').select('id').where('order_id', '=', orderId).execute()).length;

describe('GET /bank/create-form of an order whose store is locked', () => {
  it('is a 423 with the lock end as Retry-After, and starts no payment; once unlocked the payment starts', async () => {
    const link = await placedOrder();
    await changeStore(t.database.db, 'WEB', { isLocked: true, lockedUntil: Date.now() + 300_000 }, Date.now());
    try {
      const locked = await t.app.inject({ method: 'GET', url: link.path });
      expectErrorBody(locked, 423, 'Locked');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(290);
      expect(await paymentsOf(link.orderId)).toBe(0);
      const order = await t.database.db
        .selectFrom('customer_order')
        .select('status')
        .where('id', '=', link.orderId)
        .executeTakeFirstOrThrow();
      expect(order.status).toBe('NEW');
    } finally {
      await changeStore(t.database.db, 'WEB', { isLocked: false, lockedUntil: null }, Date.now());
    }
    const form = await t.app.inject({ method: 'GET', url: link.path });
    expect(form.statusCode, form.body).toBe(200);
    expect(await paymentsOf(link.orderId)).toBe(1);
  });

  it("is not refused for another store's lock", async () => {
    const link = await placedOrder();
    await changeStore(t.database.db, 'WEB2', { isLocked: true }, Date.now());
    try {
      const form = await t.app.inject({ method: 'GET', url: link.path });
      expect(form.statusCode, form.body).toBe(200);
    } finally {
      await changeStore(t.database.db, 'WEB2', { isLocked: false }, Date.now());
    }
  });
});
