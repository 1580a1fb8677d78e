import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, basketOf, call, read } from './helpers.js';

// After `npm start` (the demo seed) a basket can be filled, discounted with the README's codes
// and given a delivery; a second seed changes nothing.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await seedDemo(t.database, { now: Date.now() });
}, 120_000);
afterAll(() => t.close());

it('has delivery methods, parcel machines and the README discount codes', async () => {
  const db = t.database.db;
  const book = await db
    .selectFrom('product')
    .innerJoin('product_store', 'product_store.product_id', 'product.id')
    .select('product.id')
    .where('product_store.store_code', '=', 'WEB')
    .where('product.type', '=', 'BOOK')
    .where('product.is_active', '=', true)
    .where('product.hidden_web', '=', false)
    .where('product.web_stock', '>', 2)
    .where('product.availability', '=', 'AVAILABLE')
    .orderBy('product.id')
    .executeTakeFirstOrThrow();
  const basket = await add(t, {}, Number(book.id), 2);
  const who = { token: basket.basketToken! };
  const methods = (await call(t, 'GET', '/basket/delivery-methods', who)).json() as Array<{
    id: number;
    kind: string;
    parcelMachines: Array<{ id: number }>;
  }>;
  expect(new Set(methods.map((m) => m.kind))).toEqual(
    new Set(['PARCEL_MACHINE', 'COURIER', 'EXPRESS_COURIER', 'SHOP_PICKUP', 'DRIVE_IN', 'INTERNATIONAL']),
  );
  const omniva = methods.find((m) => m.kind === 'PARCEL_MACHINE')!;
  basketOf(await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: omniva.id, parcelMachineId: omniva.parcelMachines[0]!.id }));
  for (const code of ['tere10', 'RAAMAT5', 'TASUTA', 'SUVI2026']) {
    expect(basketOf(await call(t, 'POST', '/basket/add-discount', who, { code })).discounts[0]!.code).toBe(code.toUpperCase());
  }
  expect((await call(t, 'POST', '/basket/add-discount', who, { code: 'VANA' })).statusCode).toBe(422);
  expect((await read(t, who)).deliveryMethod!.kind).toBe('PARCEL_MACHINE');
  const count = async () => (await db.selectFrom('delivery_method').select('id').execute()).length;
  const before = await count();
  await seedDemo(t.database, { now: Date.now() });
  expect(await count()).toBe(before);
});
