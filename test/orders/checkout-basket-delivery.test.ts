import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basketOf, call, type BasketAnswer, type Who } from '../basket/helpers.js';
import { DPD_LINE, importLines, WORLD_LINE } from '../basket/import-helpers.js';
import { createCustomer } from '../helpers/customers.js';
import { expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, checkoutFormWith, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { ebook, orderRow } from './purchase-helpers.js';

// The delivery a shopper chose on the basket (PUT /basket/delivery) is the order's when the
// checkout form names none. Checkout answered a 422 "deliveryMethodId cannot be blank" (and
// dropped the basket's choice), so a front-end had to send the choice twice, and the total the
// basket showed was not the one the order got. The basket's choice is judged again by the same
// rules as one the form names; a form that names one wins and prices the order.

let t: TestApp;
let shop: Shop;
const method = {} as Record<'DPD' | 'WORLD', number>;
let machine: number;

beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  const machines = await importLines(t, 'parcel-machines', [
    { carrier: 'DPD', code: 'D1', name: 'Rocca al Mare', city: 'Tallinn', address: 'Paldiski mnt 102' },
  ]);
  expect(machines.statusCode, machines.body).toBe(200);
  const methods = await importLines(t, 'delivery-methods', [DPD_LINE, WORLD_LINE]);
  expect(methods.statusCode, methods.body).toBe(200);
  const db = t.database.db;
  for (const code of ['DPD', 'WORLD'] as const)
    method[code] = Number((await db.selectFrom('delivery_method').select('id').where('code', '=', code).executeTakeFirstOrThrow()).id);
  machine = Number((await db.selectFrom('parcel_machine').select('id').where('code', '=', 'D1').executeTakeFirstOrThrow()).id);
});
afterAll(() => t?.close());

/** The checkout form without a delivery method: the basket's holds. */
function formWithoutDelivery(overrides: Record<string, unknown> = {}) {
  const { deliveryMethodId: _named, ...form } = checkoutForm(shop, overrides);
  return form;
}

const shoppers: Array<[string, () => Promise<Who>]> = [
  ['a guest', async () => ({})],
  ['a logged-in client', async () => ({ bearer: (await createCustomer(t.database.db)).token })],
];

async function basketWithDelivery(who: Who, choice: Record<string, unknown>): Promise<{ who: Who; basket: BasketAnswer }> {
  const filled = await fill(t, who, [[await stockedBook(t, shop, 5), 1]]);
  const chosen = await call(t, 'PUT', '/basket/delivery', filled, choice);
  expect(chosen.statusCode, chosen.body).toBe(200);
  return { who: filled, basket: basketOf(chosen) };
}

async function placedOrder(response: Awaited<ReturnType<typeof checkout>>) {
  expect(response.statusCode, response.body).toBe(200);
  return orderRow(t.database.db, orderLink(response.json().location).orderId);
}

const cents = (euros: number) => Math.round(euros * 100);

describe.each(shoppers)('checkout without a delivery in the form, for %s', (_, shopper) => {
  it('takes the parcel machine chosen on the basket, at the total the basket showed', async () => {
    const { who, basket } = await basketWithDelivery(await shopper(), { deliveryMethodId: method.DPD, parcelMachineId: machine });
    expect(basket.deliveryCost).toBe(3.49);
    const order = await placedOrder(await checkout(t, who, formWithoutDelivery()));
    expect(order).toMatchObject({ delivery_method_code: 'DPD', delivery_kind: 'PARCEL_MACHINE' });
    expect(Number(order.parcel_machine_id)).toBe(machine);
    expect([Number(order.delivery_cents), Number(order.total_cents)]).toEqual([cents(basket.deliveryCost), cents(basket.total)]);
  });

  it('takes the shop pickup chosen on the basket', async () => {
    const { who, basket } = await basketWithDelivery(await shopper(), { deliveryMethodId: shop.methods.SHOP, shopCode: 'TLN1' });
    const order = await placedOrder(await checkout(t, who, formWithoutDelivery({ paymentMethodId: 'TEST_GATEWAY' })));
    expect(order).toMatchObject({ delivery_method_code: 'SHOP', delivery_kind: 'SHOP_PICKUP', delivery_shop_code: 'TLN1' });
    expect([Number(order.delivery_cents), Number(order.total_cents)]).toEqual([0, cents(basket.total)]);
  });

  it('takes the international delivery and its country chosen on the basket, with that country in the address', async () => {
    const { who, basket } = await basketWithDelivery(await shopper(), { deliveryMethodId: method.WORLD, countryCode: 'LV' });
    expect(basket.deliveryCost).toBe(7.5);
    const order = await placedOrder(await checkout(t, who, formWithoutDelivery({ shippingCountryNavCode: 'LV' })));
    expect(order).toMatchObject({ delivery_method_code: 'WORLD', delivery_country: 'LV', shipping_country: 'LV' });
    expect([Number(order.delivery_cents), Number(order.total_cents)]).toEqual([750, cents(basket.total)]);
  });

  it('takes the courier chosen on the basket', async () => {
    const { who, basket } = await basketWithDelivery(await shopper(), { deliveryMethodId: shop.methods.COURIER });
    const order = await placedOrder(await checkout(t, who, formWithoutDelivery()));
    expect(order).toMatchObject({ delivery_method_code: 'COURIER', delivery_country: 'EE' });
    expect([Number(order.delivery_cents), Number(order.total_cents)]).toEqual([590, cents(basket.total)]);
  });

  it('still asks for a delivery when none was chosen on the basket either', async () => {
    const who = await fill(t, await shopper(), [[await stockedBook(t, shop, 5), 1]]);
    expect(expectFieldErrors(await checkout(t, who, formWithoutDelivery()))).toEqual(['deliveryMethodId']);
  });
});

describe('a checkout on the basket’s delivery sent twice', () => {
  it('answers the first order, one order placed, whether sent after it or at once', async () => {
    for (const atOnce of [false, true]) {
      const { who } = await basketWithDelivery({}, { deliveryMethodId: method.DPD, parcelMachineId: machine });
      const form = formWithoutDelivery();
      const [first, second] = atOnce
        ? await Promise.all([checkout(t, who, form), checkout(t, who, form)])
        : [await checkout(t, who, form), await checkout(t, who, form)];
      expect([first.statusCode, second.statusCode], second.body).toEqual([200, 200]);
      expect(second.json().location).toBe(first.json().location);
      expect(await placedOrder(first)).toMatchObject({ delivery_method_code: 'DPD' });
    }
  });
});

describe('a delivery chosen on the basket that no longer holds', () => {
  it('is a 422 on deliveryMethodId when the basket outgrew the method, and no order is placed', async () => {
    const { who } = await basketWithDelivery({}, { deliveryMethodId: method.DPD, parcelMachineId: machine });
    const heavy = await stockedBook(t, shop, 5);
    await t.database.db.updateTable('product').set({ weight_g: 25_000 }).where('id', '=', heavy).execute();
    await fill(t, who, [[heavy, 1]]);
    expect(basketOf(await call(t, 'GET', '/basket', who)).deliveryMethod).toMatchObject({ id: method.DPD, available: false });
    const refused = await checkout(t, who, formWithoutDelivery());
    expect(expectFieldErrors(refused)).toEqual(['deliveryMethodId']);
    expect(basketOf(await call(t, 'GET', '/basket', who)).itemCount).toBe(2);
  });

  it('is a 422 on deliveryMethodId when the method was switched off, and GET /checkout/meta shows it not available', async () => {
    await importLines(t, 'delivery-methods', [{ ...WORLD_LINE, code: 'GONE' }]);
    const gone = Number(
      (await t.database.db.selectFrom('delivery_method').select('id').where('code', '=', 'GONE').executeTakeFirstOrThrow()).id,
    );
    const { who } = await basketWithDelivery({}, { deliveryMethodId: gone, countryCode: 'FI' });
    expect((await importLines(t, 'delivery-methods', [{ ...WORLD_LINE, code: 'GONE', active: false }])).statusCode).toBe(200);
    expect((await call(t, 'GET', '/checkout/meta', who)).json().chosenDelivery).toMatchObject({ id: gone, available: false });
    expect(expectFieldErrors(await checkout(t, who, formWithoutDelivery({ shippingCountryNavCode: 'FI' })))).toEqual(['deliveryMethodId']);
  });

  it('is a 422 on parcelMachineId when the machine was closed', async () => {
    await importLines(t, 'parcel-machines', [{ carrier: 'DPD', code: 'D9', name: 'Lasnamäe', city: 'Tallinn', address: 'Mustakivi 13' }]);
    const closing = Number(
      (await t.database.db.selectFrom('parcel_machine').select('id').where('code', '=', 'D9').executeTakeFirstOrThrow()).id,
    );
    const { who } = await basketWithDelivery({}, { deliveryMethodId: method.DPD, parcelMachineId: closing });
    await importLines(t, 'parcel-machines', [
      { carrier: 'DPD', code: 'D9', name: 'Lasnamäe', city: 'Tallinn', address: 'Mustakivi 13', active: false },
    ]);
    expect((await call(t, 'GET', '/checkout/meta', who)).json().chosenDelivery).toMatchObject({ id: method.DPD, available: false });
    expect(expectFieldErrors(await checkout(t, who, formWithoutDelivery()))).toEqual(['parcelMachineId']);
  });

  it('is a 422 on shippingCountryNavCode when the address is in another country than the one it was priced for', async () => {
    const { who } = await basketWithDelivery({ language: 'en' }, { deliveryMethodId: method.WORLD, countryCode: 'LV' });
    const refused = await checkout(t, who, formWithoutDelivery({ shippingCountryNavCode: 'FI' }), { 'x-app-language': 'en' });
    expect(expectFieldErrors(refused)).toEqual(['shippingCountryNavCode']);
    expect(refused.json()[0].message).toContain('LV');
  });
});

describe('a form naming a delivery other than the basket’s', () => {
  it('wins: the order records the form’s delivery and is priced with it', async () => {
    const { who, basket } = await basketWithDelivery({}, { deliveryMethodId: method.DPD, parcelMachineId: machine });
    const meta = (await call(t, 'GET', '/checkout/meta', who)).json();
    expect(meta.chosenDelivery).toMatchObject({ id: method.DPD, kind: 'PARCEL_MACHINE', available: true, parcelMachine: { id: machine } });
    const courier = meta.deliveryMethods.find((offered: { id: number }) => offered.id === shop.methods.COURIER);
    const order = await placedOrder(await checkout(t, who, checkoutFormWith(shop.methods.COURIER)));
    expect(order).toMatchObject({ delivery_method_code: 'COURIER', parcel_machine_id: null });
    expect(Number(order.delivery_cents)).toBe(cents(courier.price));
    expect(Number(order.total_cents)).toBe(cents(basket.subtotal) + cents(courier.price));
  });
});

describe('a form naming a parcel machine or shop without its method', () => {
  it('is a 422 on deliveryMethodId, not the basket’s method with the form’s machine or the basket’s machine', async () => {
    const { who } = await basketWithDelivery({}, { deliveryMethodId: method.DPD, parcelMachineId: machine });
    expect(expectFieldErrors(await checkout(t, who, formWithoutDelivery({ parcelMachineId: machine + 1000 })))).toEqual([
      'deliveryMethodId',
    ]);
    expect(expectFieldErrors(await checkout(t, who, formWithoutDelivery({ shopCode: 'TLN1' })))).toEqual(['deliveryMethodId']);
  });
});

describe('a basket with nothing to ship', () => {
  it('needs no delivery, and a courier chosen while it held a paper book is dropped', async () => {
    const paper = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [
      [paper, 1],
      [await ebook(t, 9), 1],
    ]);
    expect((await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: shop.methods.COURIER })).statusCode).toBe(200);
    expect((await call(t, 'DELETE', `/basket/remove-product?productId=${paper}`, who)).statusCode).toBe(200);
    const order = await placedOrder(await checkout(t, who, formWithoutDelivery()));
    expect(order).toMatchObject({ delivery_method_code: 'NONE', delivery_kind: 'NONE' });
    expect([Number(order.delivery_cents), Number(order.total_cents)]).toEqual([0, 900]);
  });
});
