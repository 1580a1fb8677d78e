import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct, setStoreDiscounts } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, basketOf, call, type Who } from './helpers.js';
import { importLines } from './import-helpers.js';

// The discount-code conditions discount-codes.test.ts leaves out: including a product, excluding
// a binding and a product type, two included kinds that must both match, a minimum sum on a
// free-parcel-machine code, and codes meant for business and wholesale clients.

let t: TestApp;
const p = {} as Record<'novel' | 'paper' | 'pen' | 'usedPaper', number>;
const code = {} as Record<keyof typeof p, string>;
let omniva = 0;
let machine = 0;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  // No store discount: a code's amount is its percent of the shop price.
  await setStoreDiscounts(db, 'WEB', 0, 0);
  const preorder = { availability: 'COMING_SOON' as const, deliveryTime: 'PREORDER' as const };
  p.novel = await createProduct(db, { ...preorder, price: 20, binding: 'HARDCOVER' });
  p.paper = await createProduct(db, { ...preorder, price: 10, binding: 'PAPERBACK' });
  p.pen = await createProduct(db, { ...preorder, price: 4, type: 'OFFICE_EQUIPMENT', binding: null, vatRate: 24 });
  p.usedPaper = await createProduct(db, { ...preorder, price: 6, type: 'USED_BOOK', binding: 'PAPERBACK' });
  for (const [name, id] of Object.entries(p)) {
    code[name as keyof typeof p] = (await db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow()).code;
  }
  const machines = await importLines(t, 'parcel-machines', [
    { carrier: 'OMNIVA', code: '2001', name: 'Kristiine', city: 'Tallinn', address: 'Endla 45' },
  ]);
  expect(machines.json()).toMatchObject({ outcomes: { created: 1 }, errorCount: 0 });
  const methods = await importLines(t, 'delivery-methods', [
    {
      code: 'OMNIVA',
      kind: 'PARCEL_MACHINE',
      carrier: 'OMNIVA',
      names: { et: 'Omniva pakiautomaat' },
      prices: [{ store: 'WEB', price: 2.99 }],
      daysMin: 1,
      daysMax: 3,
    },
  ]);
  expect(methods.json()).toMatchObject({ outcomes: { created: 1 }, errorCount: 0 });
  omniva = Number((await db.selectFrom('delivery_method').select('id').executeTakeFirstOrThrow()).id);
  machine = Number((await db.selectFrom('parcel_machine').select('id').executeTakeFirstOrThrow()).id);
  const imported = await importLines(t, 'discount-codes', [
    { code: 'ONLYNOVEL', percent: 10, include: { products: [code.novel] } },
    { code: 'NOHARDCOVER', percent: 10, exclude: { bindings: ['HARDCOVER'] } },
    { code: 'NOPENS', percent: 10, exclude: { types: ['OFFICE_EQUIPMENT'] } },
    { code: 'PAPERBOOKS', percent: 10, include: { bindings: ['PAPERBACK'], types: ['BOOK'] } },
    { code: 'FREEPM30', freeParcelMachine: true, minBasket: 30 },
    { code: 'WHOLESALE', percent: 10, customerKinds: ['WHOLESALE'] },
    { code: 'COMPANIES', percent: 10, customerKinds: ['BUSINESS', 'WHOLESALE'] },
  ]);
  expect(imported.statusCode, imported.body).toBe(200);
  expect(imported.json()).toMatchObject({ outcomes: { created: 7 }, errorCount: 0 });
});
afterAll(() => t.close());

let ipCounter = 0;
/** A basket of the lines, from its own address (the wrong-code limit counts per address). */
async function basketWith(lines: Array<[number, number]>, extra: Who = {}): Promise<Who> {
  ipCounter += 1;
  let who: Who = { ...extra, ip: `10.1.0.${ipCounter}` };
  for (const [id, quantity] of lines) {
    const basket = await add(t, who, id, quantity);
    if (who.bearer === undefined) who = { ...who, token: basket.basketToken! };
  }
  return who;
}
const addCode = (who: Who, discountCode: string) => call(t, 'POST', '/basket/add-discount', who, { code: discountCode });
const amountFor = async (discountCode: string, lines: Array<[number, number]>) =>
  basketOf(await addCode(await basketWith(lines), discountCode)).discountAmount;

describe('conditions', () => {
  it('includes a product by its code: only that line is discounted', async () => {
    expect(
      await amountFor('ONLYNOVEL', [
        [p.novel, 1],
        [p.paper, 1],
      ]),
    ).toBe(2);
    const other = await basketWith([[p.paper, 1]]);
    expect(basketOf(await addCode(other, 'ONLYNOVEL')).discounts[0]).toMatchObject({
      applied: false,
      amount: 0,
      reason: { code: 'NO_ELIGIBLE_ITEMS' },
    });
  });

  it('excludes a binding: the hardcover line is left out', async () => {
    expect(
      await amountFor('NOHARDCOVER', [
        [p.novel, 1],
        [p.paper, 1],
      ]),
    ).toBe(1);
  });

  it('excludes a product type: the office equipment line is left out', async () => {
    expect(
      await amountFor('NOPENS', [
        [p.novel, 1],
        [p.pen, 2],
      ]),
    ).toBe(2);
  });

  it('with two included kinds covers only lines that match both (binding and type)', async () => {
    // The paperback book matches both; the hardcover book only the type; the used paperback only the binding.
    expect(
      await amountFor('PAPERBOOKS', [
        [p.novel, 1],
        [p.paper, 1],
        [p.usedPaper, 1],
      ]),
    ).toBe(1);
  });
});

describe('a free-parcel-machine code with a minimum sum', () => {
  it('keeps the parcel machine charged below the minimum, and makes it free once the sum reaches it', async () => {
    const who = await basketWith([[p.novel, 1]]);
    basketOf(await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: omniva, parcelMachineId: machine }));
    const below = basketOf(await addCode(who, 'freepm30'));
    expect(below.discounts[0]).toMatchObject({ code: 'FREEPM30', applied: false, amount: 0, reason: { code: 'BELOW_MINIMUM' } });
    expect([below.subtotal, below.deliveryCost, below.total]).toEqual([20, 2.99, 22.99]);
    const reached = await add(t, who, p.paper, 1);
    expect(reached.discounts[0]).toMatchObject({ code: 'FREEPM30', applied: true, reason: null });
    expect([reached.subtotal, reached.deliveryCost, reached.total]).toEqual([30, 0, 30]);
    // Taking a line off brings it back below the minimum: the machine is charged again.
    const removed = basketOf(await call(t, 'DELETE', `/basket/remove-product?productId=${p.paper}`, who));
    expect([removed.discounts[0]!.applied, removed.deliveryCost]).toEqual([false, 2.99]);
  });
});

describe('customer kinds', () => {
  it('gives a wholesale-only code to a wholesale client and refuses it to everyone else (422 on code)', async () => {
    const wholesale = await createCustomer(t.database.db, { kind: 'WHOLESALE' });
    const applied = basketOf(await addCode(await basketWith([[p.novel, 1]], { bearer: wholesale.token }), 'wholesale'));
    expect(applied.discounts[0]).toMatchObject({ code: 'WHOLESALE', applied: true, reason: null });
    expect(applied.discountAmount).toBeGreaterThan(0);
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const retail = await createCustomer(t.database.db);
    for (const bearer of [business.token, retail.token, undefined]) {
      const who = await basketWith([[p.novel, 1]], bearer === undefined ? {} : { bearer });
      expect(expectFieldErrors(await addCode(who, 'WHOLESALE'))).toEqual(['code']);
    }
  });

  it('gives a code for business and wholesale clients to both, and refuses it to a retail client and a guest', async () => {
    for (const kind of ['BUSINESS', 'WHOLESALE'] as const) {
      const client = await createCustomer(t.database.db, { kind });
      const basket = basketOf(await addCode(await basketWith([[p.novel, 1]], { bearer: client.token }), 'COMPANIES'));
      expect(basket.discounts[0], kind).toMatchObject({ applied: true });
    }
    const retail = await createCustomer(t.database.db);
    expect(expectFieldErrors(await addCode(await basketWith([[p.novel, 1]], { bearer: retail.token }), 'COMPANIES'))).toEqual(['code']);
    expect(expectFieldErrors(await addCode(await basketWith([[p.novel, 1]]), 'COMPANIES'))).toEqual(['code']);
  });

  it('refuses a customer kind the import does not know, with the line in the errors', async () => {
    const response = await importLines(t, 'discount-codes', [{ code: 'NOBODY', percent: 10, customerKinds: ['VIP'] }]);
    expect(response.json()).toMatchObject({ errorCount: 1 });
  });
});
