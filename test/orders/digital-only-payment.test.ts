import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Who } from '../basket/helpers.js';
import { EMAIL_DELIVERY_LINE, importLines } from '../basket/import-helpers.js';
import { createProduct } from '../helpers/catalogue.js';
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

describe('paying for a virtual gift card', () => {
  // A virtual gift card is money: it is issued (and spendable) as soon as its order is processed,
  // which an order paid at a parcel's hand-over is at once. Beside a book it rode along with cash on
  // delivery, and the buyer who then refused the parcel kept the card without ever paying.
  it('is not paid at a parcel hand-over, even beside a book: only a method that takes the money first', async () => {
    const voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
    const deliveryDate = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const giftCard = { amount: 50, recipientName: 'Jaan Tamm', recipientEmail: 'jaan@example.ee', message: 'Palju õnne!', deliveryDate };
    const who = await fill(t, {}, [[await stockedBook(t, shop, 3, 15), 1]]);
    const added = await call(t, 'POST', '/basket/add-product', who, { productId: voucher, quantity: 1, giftCard });
    expect(added.statusCode, added.body).toBe(200);
    const meta = await call(t, 'GET', '/checkout/meta', who);
    expect((meta.json().paymentMethods as Array<{ id: string }>).map((method) => method.id)).toEqual(['TEST_GATEWAY']);

    const before = await orderCount();
    for (const [paymentMethodId, deliveryMethodId] of [
      ['CASH_ON_DELIVERY', shop.methods.COURIER],
      ['PAY_IN_SHOP', shop.methods.SHOP],
    ] as const) {
      const form = checkoutForm(shop, {
        paymentMethodId,
        deliveryMethodId,
        ...(paymentMethodId === 'PAY_IN_SHOP' ? { shopCode: 'TLN1' } : {}),
      });
      const refused = await checkout(t, who, form, { 'x-app-language': 'en' });
      expect(refused.statusCode, refused.body).toBe(422);
      // Said why: the delivery chosen goes with the method, the card does not.
      expect(refused.json()).toEqual([
        { field: 'paymentMethodId', message: 'A virtual gift card is paid before it is issued: choose a payment method that pays now.' },
      ]);
    }
    expect(await orderCount()).toBe(before);
    const paid = await checkout(t, who, checkoutForm(shop, { paymentMethodId: 'TEST_GATEWAY' }));
    expect(paid.statusCode, paid.body).toBe(200);
    expect(await orderCount()).toBe(before + 1);
  });
});
