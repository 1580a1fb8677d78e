import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { addDays, localTime } from '../../src/infra/shop-time.js';
import { createAccountsTestApp, GOOD_PASSWORD, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { checkout, checkoutFormWith, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { as } from '../profile/helpers.js';

// An order waiting in a shop to be collected is not yet delivered, whatever its status: the back office
// may have completed it (it has it) while it waits on the shelf. The erasure is refused (409) while it
// waits, as for any open order, since the shop hands it over to the name on it; once collected, or
// past the last day the shop keeps it, the person is erased.

let t: AccountsTestApp;
let shop: Shop;
let key: string;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  key = await createApiKey(t.database.db, 'back-office', Date.now());
});
afterAll(async () => t?.close());

const admin = (path: string, payload?: object) =>
  t.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) });
const today = () => localTime(Date.now()).date;

/** A book to collect at TLN1, paid in the shop, processed and completed by the back office; its code. */
async function completedPickupOrder(token: string, email: string): Promise<{ id: number; code: string }> {
  const book = await stockedBook(t, shop, 3);
  const who = await fill(t, { bearer: token }, [[book, 1]]);
  const form = checkoutFormWith(shop.methods.SHOP, {
    shopCode: 'TLN1',
    paymentMethodId: 'PAY_IN_SHOP',
    billingEmail: email,
    shippingEmail: email,
    shippingName: 'Jaan Tamm',
  });
  const placed = await checkout(t, who, form);
  expect(placed.statusCode, placed.body).toBe(200);
  const { orderId, path } = orderLink(placed.json().location);
  expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
  await t.drainJobs();
  await t.database.db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('id', '=', orderId).execute();
  const row = await t.database.db.selectFrom('customer_order').select('code').where('id', '=', orderId).executeTakeFirstOrThrow();
  return { id: orderId, code: row.code! };
}

const erase = (token: string) => as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD });

describe('the erasure and an order waiting in a shop', () => {
  it('is refused while the order waits to be collected, and erases once it was collected', async () => {
    const email = uniqueEmail('pickup');
    const token = await registerVerified(t, email);
    const order = await completedPickupOrder(token, email);
    const reported = await admin(`/admin/orders/${order.code}/ready-for-pickup`, { collectBy: addDays(today(), 5) });
    expect(reported.statusCode, reported.body).toBe(200);

    const refused = await erase(token);
    expect(refused.statusCode, refused.body).toBe(409);
    const kept = await t.database.db
      .selectFrom('customer_order')
      .select('shipping_name')
      .where('id', '=', order.id)
      .executeTakeFirstOrThrow();
    expect(kept.shipping_name).toBe('Jaan Tamm');

    expect((await admin(`/admin/orders/${order.code}/collected`)).statusCode).toBe(200);
    const erased = await erase(token);
    expect(erased.statusCode, erased.body).toBe(204);
  }, 60_000);

  it('erases once the last day the shop keeps the order has passed', async () => {
    const email = uniqueEmail('pickup-late');
    const token = await registerVerified(t, email);
    const order = await completedPickupOrder(token, email);
    expect((await admin(`/admin/orders/${order.code}/ready-for-pickup`, { collectBy: today() })).statusCode).toBe(200);
    expect((await erase(token)).statusCode).toBe(409);
    await t.database.db
      .updateTable('order_pickup')
      .set({ collect_by: addDays(today(), -1) })
      .where('order_id', '=', order.id)
      .execute();
    const erased = await erase(token);
    expect(erased.statusCode, erased.body).toBe(204);
  }, 60_000);
});
