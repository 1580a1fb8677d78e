import { expect } from 'vitest';
import { call, type Who } from '../basket/helpers.js';
import { createCustomer } from '../helpers/customers.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook, type Shop } from '../orders/helpers.js';

/**
 * A new client's order of a book and a virtual card (`voucher`, with `giftCard`'s amount, recipient and
 * date) paid at the test gateway: PENDING_PROCESSING, its jobs not run yet. Answers the order's id and
 * a read of its status and code. `now`: when the buyer's account is made (the app's clock, when a test moves it).
 */
export async function paidCardOrder(t: TestApp, shop: Shop, voucher: number, giftCard: Record<string, unknown>, now?: number) {
  const db = t.database.db;
  const buyer = await createCustomer(db, { now });
  const who: Who = { bearer: buyer.token };
  await fill(t, who, [[await stockedBook(t, shop, 5), 1]]);
  expect((await call(t, 'POST', '/basket/add-product', who, { productId: voucher, quantity: 1, giftCard })).statusCode).toBe(200);
  const placed = await checkout(t, who, checkoutForm(shop, { paymentMethodId: 'TEST_GATEWAY' }));
  expect(placed.statusCode, placed.body).toBe(200);
  const link = orderLink(placed.json().location);
  const form = (await t.app.inject({ method: 'GET', url: link.path })).json() as { url: string };
  const paid = await t.app.inject({
    method: 'POST',
    url: new URL(form.url).pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'action=pay',
  });
  expect(paid.statusCode).toBe(303);
  const order = () => db.selectFrom('customer_order').select(['status', 'code']).where('id', '=', link.orderId).executeTakeFirstOrThrow();
  await expect.poll(async () => (await order()).status, { timeout: 10_000 }).toBe('PENDING_PROCESSING');
  return { orderId: link.orderId, order };
}
