import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Who } from '../basket/helpers.js';
import { EMAIL_DELIVERY_LINE, importLines } from '../basket/import-helpers.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from './helpers.js';
import { ebook } from './purchase-helpers.js';

// A basket of e-books only goes by e-mail (a method for digital-only baskets, which the back office
// may file under any kind, the demo's under COURIER): no parcel is handed over, so nobody collects
// cash on delivery or a payment in the shop. Such an order would be processed at once as "nothing
// to pay online" and its e-books granted for free; the payment methods that are paid at the
// parcel's hand-over are neither offered nor accepted for it.

let t: TestApp;
let shop: Shop;
let email: number;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  const imported = await importLines(t, 'delivery-methods', [EMAIL_DELIVERY_LINE]);
  expect(imported.statusCode, imported.body).toBe(200);
  const row = await t.database.db.selectFrom('delivery_method').select('id').where('code', '=', 'EMAIL').executeTakeFirstOrThrow();
  email = Number(row.id);
});
afterAll(async () => {
  await t?.close();
});

const orderCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('customer_order')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('paying for a basket of e-books only', () => {
  for (const kind of ['GUEST', 'SIMPLE'] as const) {
    it(`offers a ${kind === 'GUEST' ? 'guest' : 'client'} only the methods paid before the e-books go out`, async () => {
      const buyer: Who = kind === 'GUEST' ? {} : { bearer: (await createCustomer(t.database.db)).token };
      const who = await fill(t, buyer, [[await ebook(t, 9), 1]]);
      const meta = await call(t, 'GET', '/checkout/meta', who);
      expect(meta.statusCode, meta.body).toBe(200);
      expect((meta.json().deliveryMethods as Array<{ id: number }>).map((method) => method.id)).toEqual([email]);
      expect((meta.json().paymentMethods as Array<{ id: string }>).map((method) => method.id)).toEqual(['TEST_GATEWAY']);

      const before = await orderCount();
      for (const paymentMethodId of ['CASH_ON_DELIVERY', 'PAY_IN_SHOP']) {
        const refused = await checkout(t, who, checkoutForm(shop, { deliveryMethodId: email, paymentMethodId }));
        expect(refused.statusCode, refused.body).toBe(422);
        expect(refused.json()).toEqual([{ field: 'paymentMethodId', message: expect.any(String) }]);
      }
      expect(await orderCount()).toBe(before);
      // The basket is still there, and the gateway pays for it.
      const paid = await checkout(t, who, checkoutForm(shop, { deliveryMethodId: email, paymentMethodId: 'TEST_GATEWAY' }));
      expect(paid.statusCode, paid.body).toBe(200);
      expect(await orderCount()).toBe(before + 1);
    });
  }

  it('still lets cash on delivery pay a parcel that carries an e-book beside a book', async () => {
    const book = await stockedBook(t, shop, 3, 15);
    const who = await fill(t, {}, [
      [book, 1],
      [await ebook(t, 9), 1],
    ]);
    const meta = await call(t, 'GET', '/checkout/meta', who);
    expect((meta.json().paymentMethods as Array<{ id: string }>).map((method) => method.id)).toEqual([
      'TEST_GATEWAY',
      'PAY_IN_SHOP',
      'CASH_ON_DELIVERY',
    ]);
    const placed = await checkout(t, who, checkoutForm(shop, { paymentMethodId: 'CASH_ON_DELIVERY' }));
    expect(placed.statusCode, placed.body).toBe(200);
  });
});
