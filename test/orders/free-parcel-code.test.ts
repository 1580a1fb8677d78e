import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basketOf, call } from '../basket/helpers.js';
import { DPD_LINE, importLines } from '../basket/import-helpers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';

// A code that only makes parcel machines free is used like any other: the order names it, and it
// counts against its limit (it was never counted, so its limit never held).

let t: TestApp;
let shop: Shop;
let dpd: number;
let machine: number;
beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  const db = t.database.db;
  expect(
    (
      await importLines(t, 'parcel-machines', [
        { carrier: 'DPD', code: 'D1', name: 'Rocca al Mare', city: 'Tallinn', address: 'Paldiski mnt 102' },
      ])
    ).statusCode,
  ).toBe(200);
  // DPD_LINE as it was written here: heavy baskets too (the import's default).
  const methods = await importLines(t, 'delivery-methods', [{ ...DPD_LINE, suitsHeavy: true }]);
  expect(methods.statusCode, methods.body).toBe(200);
  dpd = Number((await db.selectFrom('delivery_method').select('id').where('code', '=', 'DPD').executeTakeFirstOrThrow()).id);
  machine = Number((await db.selectFrom('parcel_machine').select('id').where('code', '=', 'D1').executeTakeFirstOrThrow()).id);
  expect((await importLines(t, 'discount-codes', [{ code: 'FREEPM1', freeParcelMachine: true, maxUses: 1 }])).statusCode).toBe(200);
});
afterAll(() => t?.close());

const uses = async () =>
  Number(
    (await t.database.db.selectFrom('discount_code').select('used_count').where('code', '=', 'FREEPM1').executeTakeFirstOrThrow())
      .used_count,
  );

describe('a code that only makes parcel machines free', () => {
  it('with a courier is neither refused nor named nor counted: it changed nothing', async () => {
    await importLines(t, 'discount-codes', [{ code: 'FREEPM2', freeParcelMachine: true }]);
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [[book, 1]]);
    const coded = basketOf(await call(t, 'POST', '/basket/add-discount', who, { code: 'FREEPM2' }));
    expect(coded.discounts[0]).toMatchObject({ applied: false, reason: { code: 'DELIVERY_NOT_COVERED' } });
    const placed = await checkout(t, who, checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
    const order = await t.database.db
      .selectFrom('customer_order')
      .select(['discount_code', 'delivery_cents'])
      .where('id', '=', orderLink(placed.json().location).orderId)
      .executeTakeFirstOrThrow();
    expect([order.discount_code, Number(order.delivery_cents)]).toEqual([null, 590]);
    const code = await t.database.db
      .selectFrom('discount_code')
      .select('used_count')
      .where('code', '=', 'FREEPM2')
      .executeTakeFirstOrThrow();
    expect(Number(code.used_count)).toBe(0);
  });

  it('is named by the order and counted, and its last use is the last', async () => {
    const book = await stockedBook(t, shop, 5);
    const choice = { deliveryMethodId: dpd, parcelMachineId: machine };
    const basketAt = async () => {
      const who = await fill(t, {}, [[book, 1]]);
      basketOf(await call(t, 'PUT', '/basket/delivery', who, choice));
      return { who, coded: await call(t, 'POST', '/basket/add-discount', who, { code: 'FREEPM1' }) };
    };
    const first = await basketAt();
    const basket = basketOf(first.coded);
    expect([basket.deliveryCost, basket.discounts[0]!.applied]).toEqual([0, true]);
    const placed = await checkout(t, first.who, checkoutForm(shop, choice));
    expect(placed.statusCode, placed.body).toBe(200);
    const { orderId } = orderLink(placed.json().location);
    const order = await t.database.db
      .selectFrom('customer_order')
      .select(['discount_code', 'delivery_cents'])
      .where('id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect([order.discount_code, Number(order.delivery_cents)]).toEqual(['FREEPM1', 0]);
    expect(await uses()).toBe(1);

    // Used up: the next basket is told so, and pays for its parcel machine.
    const second = await basketAt();
    expect(second.coded.statusCode).toBe(422);
    expect(second.coded.json()).toEqual([{ field: 'code', message: 'Kood on ära kasutatud.' }]);
    expect(basketOf(await call(t, 'GET', '/basket', second.who)).deliveryCost).toBe(3.49);
    expect(await uses()).toBe(1);
  });
});
