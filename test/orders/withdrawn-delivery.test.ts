import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basketOf, call, type Who } from '../basket/helpers.js';
import { importLines } from '../basket/import-helpers.js';
import { createProduct, setStock } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectFieldErrorInEachLanguage, expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from './helpers.js';

// A delivery method the back office withdraws from the basket's store after a shopper chose it:
// switched off (an import line with `active: false`), or its price for the store removed (an
// import line that prices it in the other store only). The basket showed `deliveryMethod: null`,
// so the choice vanished without a word, and choosing it again was a 422 "There is no delivery
// method {id} in this store", which is untrue. The basket now keeps the choice, `available: false`
// and costing nothing (never charged: a method without a price has none to charge), as it does a
// choice whose parcel machine closed; choosing it is a 422 saying it is not available now; and
// checkout refuses it on deliveryMethodId and changes nothing. Either way the shopper is told the
// same: which of the back office's switches withdrew it is nothing they can act on.

let t: TestApp;
let shop: Shop;
let express: number;

const EXPRESS_LINE = {
  code: 'EXPRESS',
  kind: 'EXPRESS_COURIER',
  names: { et: 'Kiirkuller', en: 'Express courier' },
  prices: [{ store: 'WEB', price: 9.9 }],
  daysMin: 0,
  daysMax: 1,
};

const importExpress = async (line: Record<string, unknown>) => {
  const imported = await importLines(t, 'delivery-methods', [{ ...EXPRESS_LINE, ...line }]);
  expect(imported.statusCode, imported.body).toBe(200);
  expect(imported.json().errorCount, imported.body).toBe(0);
};
const offerExpress = () => importExpress({ active: true });

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  await offerExpress();
  express = Number(
    (await t.database.db.selectFrom('delivery_method').select('id').where('code', '=', 'EXPRESS').executeTakeFirstOrThrow()).id,
  );
});
afterAll(() => t?.close());

const shoppers: Array<[string, () => Promise<Who>]> = [
  ['a guest', async () => ({})],
  ['a logged-in client', async () => ({ bearer: (await createCustomer(t.database.db)).token })],
];
const withdrawals: Array<[string, () => Promise<void>]> = [
  ['switched off', () => importExpress({ active: false })],
  ['priced in another store only', () => importExpress({ prices: [{ store: 'WEB2', price: 7.9 }] })],
];
const cases = shoppers.flatMap(([who, shopper]) => withdrawals.map(([how, withdraw]) => [how, who, shopper, withdraw] as const));

describe.each(cases)('a delivery method %s after %s chose it', (_how, _who, shopper, withdrawExpress) => {
  it('stays the basket’s choice, not available and costing nothing, and is available again once offered', async () => {
    await offerExpress();
    const who = await fill(t, await shopper(), [[await stockedBook(t, shop, 5), 1]]);
    const chosen = basketOf(await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: express }));
    expect([chosen.deliveryMethod?.available, chosen.deliveryCost, chosen.total]).toEqual([true, 9.9, 29.9]);

    await withdrawExpress();
    const basket = basketOf(await call(t, 'GET', '/basket', who));
    expect(basket.deliveryMethod).toMatchObject({ id: express, code: 'EXPRESS', available: false });
    expect([basket.deliveryCost, basket.total]).toEqual([0, 20]);
    expect((await call(t, 'GET', '/checkout/meta', who)).json().chosenDelivery).toMatchObject({ id: express, available: false });

    await offerExpress();
    const again = basketOf(await call(t, 'GET', '/basket', who));
    expect([again.deliveryMethod?.id, again.deliveryMethod?.available, again.deliveryCost]).toEqual([express, true, 9.9]);
  });

  it('is a 422 on deliveryMethodId saying it is not available now, when chosen', async () => {
    await withdrawExpress();
    const who = await fill(t, await shopper(), [[await stockedBook(t, shop, 5), 1]]);
    await expectFieldErrorInEachLanguage(
      (headers) => call(t, 'PUT', '/basket/delivery', { ...who, language: headers['x-app-language'] }, { deliveryMethodId: express }),
      'deliveryMethodId',
      {
        et: 'Tarneviis Kiirkuller ei ole praegu saadaval; valige mõni teine.',
        en: 'Delivery method Express courier is not available now; choose another.',
        ru: 'Способ доставки Kiirkuller сейчас недоступен; выберите другой.',
      },
    );
    expect(basketOf(await call(t, 'GET', '/basket', who)).deliveryMethod).toBeNull();
  });

  it('refuses checkout on deliveryMethodId, from the basket’s choice or the form, and places and holds nothing', async () => {
    await offerExpress();
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, await shopper(), [[book, 2]]);
    basketOf(await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: express }));
    await withdrawExpress();
    const ordersBefore = await t.database.db
      .selectFrom('customer_order')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();

    const { deliveryMethodId: _none, ...fromBasket } = checkoutForm(shop);
    for (const form of [fromBasket, checkoutForm(shop, { deliveryMethodId: express })]) {
      const refused = await checkout(t, who, form, { 'x-app-language': 'en' });
      expect(expectFieldErrors(refused)).toEqual(['deliveryMethodId']);
      expect(refused.json()[0].message).toBe('Delivery method Express courier is not available now; choose another.');
    }

    const ordersAfter = await t.database.db
      .selectFrom('customer_order')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(ordersAfter.n)).toBe(Number(ordersBefore.n));
    const product = await t.database.db.selectFrom('product').select('reserved_quantity').where('id', '=', book).executeTakeFirstOrThrow();
    expect(Number(product.reserved_quantity)).toBe(0);
    const basket = basketOf(await call(t, 'GET', '/basket', who));
    expect([basket.itemCount, basket.deliveryMethod?.id, basket.deliveryMethod?.available]).toEqual([2, express, false]);
  });
});

describe('a delivery method priced in another store only', () => {
  it('is still offered there at its own price', async () => {
    await importExpress({ prices: [{ store: 'WEB2', price: 7.9 }] });
    const outletBook = await createProduct(t.database.db, { price: 20, stores: ['WEB2'] });
    await setStock(t.database.db, outletBook, shop.shopId, 5);
    const who = await fill(t, { store: 'WEB2' }, [[outletBook, 1]]);
    const listed = (await call(t, 'GET', '/basket/delivery-methods', who)).json() as Array<{ id: number; price: number }>;
    expect(listed.find((method) => method.id === express)).toMatchObject({ price: 7.9 });
    const chosen = basketOf(await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: express }));
    expect([chosen.deliveryMethod?.available, chosen.deliveryCost]).toEqual([true, 7.9]);
  });
});
