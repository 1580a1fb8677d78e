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
});

describe('paying for a parcel that carries a download beside a book', () => {
  // An e-book, an audiobook or any other download is granted as soon as its order is processed, which
  // an order paid at a parcel's hand-over is at once, and nothing here learns that the courier or the
  // shop took the money. Beside a book it rode along with cash on delivery, and the buyer who then
  // refused the parcel (or never collected it) kept the download without paying.
  const PAY_NOW = 'An e-book, audiobook or other download is sent before the parcel is paid: choose a payment method that pays now.';
  const download = {
    'an e-book': () => ebook(t, 9),
    'an audiobook': () => createProduct(t.database.db, { type: 'AUDIOBOOK', binding: 'MP3', deliveryTime: 'INSTANT_DOWNLOAD', price: 12 }),
    // Not one of the digital types, but sent as a download: granted on processing all the same.
    'music sent as a download': () =>
      createProduct(t.database.db, { type: 'MUSIC', binding: 'MP3', deliveryTime: 'INSTANT_DOWNLOAD', price: 5 }),
  };
  const CASES = [
    { kind: 'GUEST', item: 'an e-book' },
    { kind: 'SIMPLE', item: 'an e-book' },
    { kind: 'SIMPLE', item: 'an audiobook' },
    { kind: 'GUEST', item: 'music sent as a download' },
  ] as const;
  const formFor = (paymentMethodId: string) =>
    checkoutForm(
      shop,
      paymentMethodId === 'PAY_IN_SHOP' ? { paymentMethodId, deliveryMethodId: shop.methods.SHOP, shopCode: 'TLN1' } : { paymentMethodId },
    );
  // Keys are the buyer's own: one for every basket here.
  const KEY = { 'idempotency-key': 'pay-now' };
  const offered = async (who: Who) =>
    ((await call(t, 'GET', '/checkout/meta', who)).json().paymentMethods as Array<{ id: string }>).map((method) => method.id);

  for (const { kind, item } of CASES) {
    it(`is not paid at the hand-over with ${item} in a ${kind === 'GUEST' ? 'guest' : 'client'}'s basket: only a method that pays now`, async () => {
      const buyer: Who = kind === 'GUEST' ? {} : { bearer: (await createCustomer(t.database.db)).token };
      const book = await stockedBook(t, shop, 3, 15);
      const who = await fill(t, buyer, [
        [book, 1],
        [await download[item](), 1],
      ]);
      expect(await offered(who)).toEqual(['TEST_GATEWAY']);

      const before = await orderCount();
      const basket = await call(t, 'GET', '/basket', who);
      for (const paymentMethodId of ['CASH_ON_DELIVERY', 'PAY_IN_SHOP']) {
        // The same key the paying checkout sends below: a refusal keeps nothing of it.
        const refused = await checkout(t, who, formFor(paymentMethodId), { 'x-app-language': 'en', ...KEY });
        expect(refused.statusCode, refused.body).toBe(422);
        // Said why: the delivery chosen goes with the method, the download does not.
        expect(refused.json()).toEqual([{ field: 'paymentMethodId', message: PAY_NOW }]);
      }
      // Nothing written: no order, the basket as it was (its delivery too), no copy held.
      expect(await orderCount()).toBe(before);
      expect((await call(t, 'GET', '/basket', who)).json()).toEqual(basket.json());
      const held = await t.database.db.selectFrom('product').select('reserved_quantity').where('id', '=', book).executeTakeFirstOrThrow();
      expect(Number(held.reserved_quantity)).toBe(0);

      const form = formFor('TEST_GATEWAY');
      const paid = await checkout(t, who, form, KEY);
      expect(paid.statusCode, paid.body).toBe(200);
      // Sent twice (a double click): the same order, not a second one.
      const again = await checkout(t, who, form, KEY);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toEqual(paid.json());
      expect(await orderCount()).toBe(before + 1);
    });
  }

  it('says so in Estonian and Russian too', async () => {
    const who = await fill(t, {}, [
      [await stockedBook(t, shop, 3, 15), 1],
      [await ebook(t, 9), 1],
    ]);
    const messages = [];
    for (const language of ['et', 'ru']) {
      const refused = await checkout(t, who, formFor('CASH_ON_DELIVERY'), { 'x-app-language': language });
      expect(refused.statusCode, refused.body).toBe(422);
      messages.push(refused.json());
    }
    expect(messages).toEqual([
      [
        {
          field: 'paymentMethodId',
          message:
            'E-raamat, audioraamat või muu allalaaditav toode saadetakse enne paki eest maksmist: vali makseviis, millega maksad kohe.',
        },
      ],
      [
        {
          field: 'paymentMethodId',
          message:
            'Электронная книга, аудиокнига или другой загружаемый товар отправляется до оплаты посылки: выберите способ оплаты, которым платите сразу.',
        },
      ],
    ]);
  });

  it('offers cash on delivery again once the download is taken out, and takes it', async () => {
    const digital = await ebook(t, 9);
    const who = await fill(t, { bearer: (await createCustomer(t.database.db)).token }, [
      [await stockedBook(t, shop, 3, 15), 1],
      [digital, 1],
    ]);
    expect(await offered(who)).toEqual(['TEST_GATEWAY']);
    const removed = await call(t, 'DELETE', `/basket/remove-product?productId=${digital}`, who);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await offered(who)).toEqual(['TEST_GATEWAY', 'PAY_IN_SHOP', 'CASH_ON_DELIVERY']);
    const placed = await checkout(t, who, formFor('CASH_ON_DELIVERY'));
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
