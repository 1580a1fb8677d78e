import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basketOf, call, type Who } from '../basket/helpers.js';
import { importLines } from '../basket/import-helpers.js';
import { createCustomer } from '../helpers/customers.js';
import { expectFieldErrorInEachLanguage, expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, setUpShop, stockedBook, type Shop } from './helpers.js';

// A delivery method the back office switches off (an import line with `active: false`) after a
// shopper chose it. The basket showed `deliveryMethod: null`, so the choice vanished without a
// word, and choosing it again was a 422 "There is no delivery method {id} in this store", which
// is untrue. The basket now keeps the choice, `available: false` and costing nothing, as it does a
// choice whose parcel machine closed; choosing it is a 422 saying it is not available now; and
// checkout refuses it on deliveryMethodId and changes nothing.

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

const switchExpress = async (active: boolean) => {
  const imported = await importLines(t, 'delivery-methods', [{ ...EXPRESS_LINE, active }]);
  expect(imported.statusCode, imported.body).toBe(200);
};

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  await switchExpress(true);
  express = Number(
    (await t.database.db.selectFrom('delivery_method').select('id').where('code', '=', 'EXPRESS').executeTakeFirstOrThrow()).id,
  );
});
afterAll(() => t?.close());

const shoppers: Array<[string, () => Promise<Who>]> = [
  ['a guest', async () => ({})],
  ['a logged-in client', async () => ({ bearer: (await createCustomer(t.database.db)).token })],
];

describe.each(shoppers)('a delivery method switched off after %s chose it', (_, shopper) => {
  it('stays the basket’s choice, not available and costing nothing, and is available again once switched on', async () => {
    await switchExpress(true);
    const who = await fill(t, await shopper(), [[await stockedBook(t, shop, 5), 1]]);
    const chosen = basketOf(await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: express }));
    expect([chosen.deliveryMethod?.available, chosen.deliveryCost, chosen.total]).toEqual([true, 9.9, 29.9]);

    await switchExpress(false);
    const basket = basketOf(await call(t, 'GET', '/basket', who));
    expect(basket.deliveryMethod).toMatchObject({ id: express, code: 'EXPRESS', available: false });
    expect([basket.deliveryCost, basket.total]).toEqual([0, 20]);
    expect((await call(t, 'GET', '/checkout/meta', who)).json().chosenDelivery).toMatchObject({ id: express, available: false });

    await switchExpress(true);
    expect(basketOf(await call(t, 'GET', '/basket', who)).deliveryMethod).toMatchObject({ id: express, available: true });
  });

  it('is a 422 on deliveryMethodId saying it is not available now, when chosen', async () => {
    await switchExpress(false);
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
    await switchExpress(true);
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, await shopper(), [[book, 2]]);
    basketOf(await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: express }));
    await switchExpress(false);
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
