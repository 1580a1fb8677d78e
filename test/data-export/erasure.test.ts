import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, GOOD_PASSWORD, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { exportRows, placeOrder } from '../orders/purchase-helpers.js';
import { as } from '../profile/helpers.js';

// What the analytics partner still reads of a person after their erasure (DELETE /client-account):
// the orders are kept (GUEST or the client code), the person is taken out of them.

let t: AccountsTestApp;
let shop: Shop;
beforeAll(async () => {
  t = await createAccountsTestApp();
  shop = await setUpShop(t);
});
afterAll(async () => t?.close());

describe('the sales history after an erasure', () => {
  it("holds neither the city nor the session of the person's guest orders billed to their email", async () => {
    const email = uniqueEmail('guestbuyer');
    const token = await registerVerified(t, email);
    const book = await stockedBook(t, shop, 5);
    // Bought as a guest with the login email as the billing email: one of the person's orders ("your data").
    const guest = await placeOrder(t, shop, { session: 'session-guest-erased' }, [[book, 1]], {
      form: { billingEmail: email, shippingEmail: email, shippingCity: 'Haapsalu', billingCity: 'Haapsalu' },
    });
    // A stranger's guest order in the same town is not theirs.
    const stranger = await placeOrder(t, shop, { session: 'session-stranger' }, [[book, 1]], {
      form: { billingEmail: uniqueEmail('stranger'), shippingCity: 'Haapsalu' },
    });
    await t.drainJobs();
    expect(await exportRows(t, guest.code)).toEqual([
      expect.objectContaining({ client: 'GUEST', city: 'Haapsalu', session: 'session-guest-erased' }),
    ]);
    await t.database.db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('id', '=', guest.orderId).execute();

    const erased = await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);
    // The order itself lost its city and session: so does its row in the export.
    const order = await t.database.db
      .selectFrom('customer_order')
      .select(['shipping_city', 'session_id'])
      .where('id', '=', guest.orderId)
      .executeTakeFirstOrThrow();
    expect(order).toEqual({ shipping_city: '[erased]', session_id: null });
    expect(await exportRows(t, guest.code)).toEqual([
      expect.objectContaining({ order: guest.code, client: 'GUEST', city: '[erased]', session: null }),
    ]);
    expect(await exportRows(t, stranger.code)).toEqual([
      expect.objectContaining({ client: 'GUEST', city: 'Haapsalu', session: 'session-stranger' }),
    ]);
  });
});
