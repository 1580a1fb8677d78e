import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryEstimate, type DeliveryMethod } from '../../src/modules/basket/delivery/delivery.rules.js';
import { createProduct, createShop } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, basketOf, call, read, type Who } from './helpers.js';
import { DPD_LINE, EMAIL_DELIVERY_LINE, importLines, WORLD_LINE } from './import-helpers.js';

// Delivery methods and parcel machines, imported as the back office sends them; the methods a
// basket may use with their prices, thresholds and estimates; and choosing one.

let t: TestApp;
const p = {} as Record<'book' | 'heavy' | 'ebook', number>;
const method = {} as Record<string, number>;
const machine = {} as Record<string, number>;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  await createShop(db, { code: 'TLN1', name: 'Viru Keskus', city: 'Tallinn' });
  await createShop(db, { code: 'TRT1', name: 'Tasku', city: 'Tartu' });
  const preorder = { availability: 'COMING_SOON' as const, deliveryTime: 'PREORDER' as const };
  p.book = await createProduct(db, { ...preorder, price: 20 });
  p.heavy = await createProduct(db, { ...preorder, price: 50, name: 'Atlas' });
  await db.updateTable('product').set({ weight_g: 25_000 }).where('id', '=', p.heavy).execute();
  p.ebook = await createProduct(db, { type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD', price: 8 });
  const machines = await importLines(t, 'parcel-machines', [
    { carrier: 'OMNIVA', code: '1001', name: 'Tartu Kaubamaja', city: 'Tartu', address: 'Riia 1' },
    { carrier: 'OMNIVA', code: '1002', name: 'Ülemiste', city: 'Tallinn', address: 'Suur-Sõjamäe 4', active: true },
    { carrier: 'DPD', code: 'D1', name: 'Rocca al Mare', city: 'Tallinn', address: 'Paldiski mnt 102' },
    { carrier: 'DPD', code: 'D2', name: 'Closed', city: 'Tallinn', address: 'Somewhere 1', active: false },
    { carrier: 'DPD', code: 'bad', name: '' },
    { carrier: 'OMNIVA', code: 'LV1', name: 'Origo', city: 'Rīga', address: 'Stacijas laukums 2', country: 'LV' },
  ]);
  expect(machines.json()).toMatchObject({ outcomes: { created: 5 }, errorCount: 1 });
  const methods = await importLines(t, 'delivery-methods', [
    {
      code: 'OMNIVA',
      kind: 'PARCEL_MACHINE',
      carrier: 'OMNIVA',
      names: { et: 'Omniva pakiautomaat', en: 'Omniva parcel machine' },
      prices: [{ store: 'WEB', price: 2.99, freeOver: 40 }],
      daysMin: 1,
      daysMax: 3,
      suitsHeavy: false,
      position: 1,
    },
    { ...DPD_LINE, position: 2 },
    {
      code: 'COURIER',
      kind: 'COURIER',
      names: { et: 'Kuller' },
      prices: [
        { store: 'WEB', price: 5.9, freeOver: 60 },
        { store: 'WEB2', price: 6.9 },
      ],
      daysMin: 1,
      daysMax: 2,
      position: 3,
    },
    {
      code: 'EXPRESS',
      kind: 'EXPRESS_COURIER',
      names: { et: 'Kiirkuller' },
      prices: [{ store: 'WEB', price: 9.9 }],
      daysMin: 0,
      daysMax: 0,
      position: 4,
    },
    {
      code: 'SHOP',
      kind: 'SHOP_PICKUP',
      names: { et: 'Poodi' },
      prices: [{ store: 'WEB', price: 0 }],
      shops: ['TLN1', 'TRT1'],
      daysMin: 2,
      daysMax: 4,
      position: 5,
    },
    {
      code: 'DRIVEIN',
      kind: 'DRIVE_IN',
      names: { et: 'Drive-in' },
      prices: [{ store: 'WEB', price: 1 }],
      shops: ['TRT1'],
      daysMin: 2,
      daysMax: 4,
      position: 6,
    },
    { ...WORLD_LINE, position: 7 },
    { ...EMAIL_DELIVERY_LINE, position: 8 },
    { code: 'OUTLETONLY', kind: 'COURIER', names: { et: 'Outlet' }, prices: [{ store: 'WEB2', price: 1 }], daysMin: 1, daysMax: 1 },
    { code: 'BADPM', kind: 'PARCEL_MACHINE', names: { et: 'x' }, prices: [{ store: 'WEB', price: 1 }], daysMin: 1, daysMax: 1 },
    {
      code: 'BADSHOP',
      kind: 'SHOP_PICKUP',
      names: { et: 'x' },
      prices: [{ store: 'WEB', price: 1 }],
      shops: ['NOPE'],
      daysMin: 1,
      daysMax: 1,
    },
    {
      code: 'BADDRIVE',
      kind: 'DRIVE_IN',
      names: { et: 'x' },
      prices: [{ store: 'WEB', price: 1 }],
      shops: ['TLN1', 'TRT1'],
      daysMin: 1,
      daysMax: 1,
    },
    { code: 'BADDAYS', kind: 'COURIER', names: { et: 'x' }, prices: [{ store: 'WEB', price: 1 }], daysMin: 3, daysMax: 1 },
  ]);
  expect(methods.json()).toMatchObject({ outcomes: { created: 9 }, errorCount: 4 });
  for (const row of await db.selectFrom('delivery_method').select(['id', 'code']).execute()) method[row.code] = Number(row.id);
  for (const row of await db.selectFrom('parcel_machine').select(['id', 'code']).execute()) machine[row.code] = Number(row.id);
  await importLines(t, 'discount-codes', [{ code: 'FREEPM', freeParcelMachine: true }]);
});
afterAll(() => t.close());

async function basketWith(lines: Array<[number, number]>, extra: Who = {}): Promise<Who> {
  let who: Who = extra;
  for (const [id, quantity] of lines) {
    const basket = await add(t, who, id, quantity);
    if (who.bearer === undefined) who = { ...who, token: basket.basketToken! };
  }
  return who;
}
const methodsOf = async (who: Who) => {
  const response = await call(t, 'GET', '/basket/delivery-methods', who);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  return response.json() as Array<{
    code: string;
    price: number;
    regularPrice: number;
    freeOver: number | null;
    estimate: { from: string; to: string };
    parcelMachines: Array<{ id: number; name: string }>;
    shops: Array<{ code: string }>;
    countryFees: Array<{ countryCode: string; price: number }>;
  }>;
};
const choose = (who: Who, body: object) => call(t, 'PUT', '/basket/delivery', who, body);

describe('GET /basket/delivery-methods', () => {
  it("lists the store's methods for a basket with their price for it, threshold, estimate, machines and shops", async () => {
    const who = await basketWith([[p.book, 1]]);
    const methods = await methodsOf(who);
    expect(methods.map((m) => m.code)).toEqual(['OMNIVA', 'DPD', 'COURIER', 'EXPRESS', 'SHOP', 'DRIVEIN', 'WORLD']);
    const omniva = methods[0]!;
    expect([omniva.price, omniva.regularPrice, omniva.freeOver]).toEqual([2.99, 2.99, 40]);
    // By city, then name; the closed machine and the one in Latvia (Omniva delivers to Estonia only) are left out.
    expect(omniva.parcelMachines.map((m) => m.name)).toEqual(['Ülemiste', 'Tartu Kaubamaja']);
    expect(methods[1]!.parcelMachines.map((m) => m.name)).toEqual(['Rocca al Mare']);
    expect(methods[4]!.shops.map((s) => s.code)).toEqual(['TLN1', 'TRT1']);
    expect(methods[6]!.countryFees).toHaveLength(2);
    expect(methods[6]!.countryFees).toEqual(
      expect.arrayContaining([
        { countryCode: 'LV', price: 7.5 },
        { countryCode: 'FI', price: 12 },
      ]),
    );
    // Priced at its cheapest country until one is chosen.
    expect(methods[6]!.price).toBe(7.5);
    expect(omniva.estimate.from <= omniva.estimate.to).toBe(true);
    // Free from the threshold: 2 books are 40 €.
    await add(t, who, p.book, 1);
    expect((await methodsOf(who))[0]!.price).toBe(0);
  });

  it('offers a heavy basket only what carries heavy parcels, and a digital-only one only what suits it', async () => {
    expect((await methodsOf(await basketWith([[p.heavy, 1]]))).map((m) => m.code)).toEqual([
      'COURIER',
      'EXPRESS',
      'SHOP',
      'DRIVEIN',
      'WORLD',
    ]);
    const digital = await basketWith([[p.ebook, 1]]);
    expect((await methodsOf(digital)).map((m) => m.code)).toEqual(['EMAIL']);
    expect((await read(t, digital)).deliveryRequired).toBe(false);
  });

  it("lists parcel machines of one country: the one asked for, else the basket's delivery country, else Estonia", async () => {
    const omniva = {
      code: 'OMNIVA',
      kind: 'PARCEL_MACHINE',
      carrier: 'OMNIVA',
      names: { et: 'Omniva pakiautomaat', en: 'Omniva parcel machine' },
      prices: [{ store: 'WEB', price: 2.99, freeOver: 40 }],
      daysMin: 1,
      daysMax: 3,
      suitsHeavy: false,
      position: 1,
    };
    await importLines(t, 'delivery-methods', [{ ...omniva, countries: ['EE', 'LV'] }]);
    try {
      const who = await basketWith([[p.book, 1]]);
      const machinesOf = async (query: string) => {
        const response = await call(t, 'GET', `/basket/delivery-methods${query}`, who);
        expect(response.statusCode, response.body).toBe(200);
        const methods = response.json() as Array<{ code: string; parcelMachines: Array<{ name: string }> }>;
        return methods.find((m) => m.code === 'OMNIVA')!.parcelMachines.map((m) => m.name);
      };
      expect(await machinesOf('')).toEqual(['Ülemiste', 'Tartu Kaubamaja']);
      expect(await machinesOf('?countryCode=lv')).toEqual(['Origo']);
      expect(await machinesOf('?countryCode=FI')).toEqual([]);
      // Once the basket goes to a machine in Latvia, Latvia's are listed by default.
      basketOf(await choose(who, { deliveryMethodId: method.OMNIVA, parcelMachineId: machine.LV1 }));
      expect(await machinesOf('')).toEqual(['Origo']);
      for (const query of ['?countryCode=LVA', '?countryCode=1', '?countryCode='])
        expect((await call(t, 'GET', `/basket/delivery-methods${query}`, who)).statusCode, query).toBe(400);
    } finally {
      await importLines(t, 'delivery-methods', [omniva]);
    }
  });

  it("lists another store's methods (and prices) there", async () => {
    const who = await basketWith([[p.book, 1]]);
    const outlet = (await methodsOf({ ...who, store: 'WEB2' })).map((m) => [m.code, m.price]);
    // In display order: the outlet's own method has position 0.
    expect(outlet).toEqual([
      ['OUTLETONLY', 1],
      ['COURIER', 6.9],
    ]);
  });
});

describe('PUT /basket/delivery', () => {
  it('chooses a parcel machine of the carrier, and its price goes into the total', async () => {
    const who = await basketWith([[p.book, 1]]);
    const chosen = basketOf(await choose(who, { deliveryMethodId: method.OMNIVA, parcelMachineId: machine['1001'] }));
    expect(chosen.deliveryMethod).toMatchObject({
      code: 'OMNIVA',
      kind: 'PARCEL_MACHINE',
      available: true,
      parcelMachine: { name: 'Tartu Kaubamaja' },
      countryCode: 'EE',
    });
    expect([chosen.deliveryCost, chosen.total]).toEqual([2.99, 22.99]);
    expect(chosen.vat.map((row) => row.rate)).toEqual([9, 24]);
    for (const body of [
      { deliveryMethodId: method.OMNIVA },
      { deliveryMethodId: method.OMNIVA, parcelMachineId: machine.D1 },
      { deliveryMethodId: method.DPD, parcelMachineId: machine.D2 },
      { deliveryMethodId: method.DPD, parcelMachineId: 99_999 },
    ]) {
      expect(expectFieldErrors(await choose(who, body))).toEqual(['parcelMachineId']);
    }
    expect((await read(t, who)).version).toBe(chosen.version);
  });

  it('refuses a parcel machine in a country the method does not deliver to (422 on parcelMachineId)', async () => {
    const who = await basketWith([[p.book, 1]]);
    const before = await read(t, who);
    expect(expectFieldErrors(await choose(who, { deliveryMethodId: method.OMNIVA, parcelMachineId: machine.LV1 }))).toEqual([
      'parcelMachineId',
    ]);
    expect((await read(t, who)).version).toBe(before.version);
  });

  it('makes parcel machines free with a code that says so', async () => {
    const who = await basketWith([[p.book, 1]]);
    basketOf(await choose(who, { deliveryMethodId: method.DPD, parcelMachineId: machine.D1 }));
    const coded = basketOf(await call(t, 'POST', '/basket/add-discount', who, { code: 'freepm' }));
    expect([coded.deliveryCost, coded.total, coded.discounts[0]!.applied]).toEqual([0, 20, true]);
    basketOf(await choose(who, { deliveryMethodId: method.COURIER }));
    expect((await read(t, who)).deliveryCost).toBe(5.9);
  });

  it('says a free parcel-machine code changes nothing with no machine chosen, or one free anyway, and applies it only when it does', async () => {
    const who = await basketWith([[p.book, 1]]);
    const notCovered = { code: 'DELIVERY_NOT_COVERED', message: expect.stringContaining('ainult pakiautomaati tarne') };
    const coded = basketOf(await call(t, 'POST', '/basket/add-discount', who, { code: 'freepm' }));
    expect(coded.discounts).toEqual([{ code: 'FREEPM', amount: 0, applied: false, reason: notCovered }]);
    const express = basketOf(await choose(who, { deliveryMethodId: method.EXPRESS }));
    expect([express.deliveryCost, express.total, express.discounts]).toEqual([9.9, 29.9, [{ ...coded.discounts[0], reason: notCovered }]]);
    // The methods list still shows what the code makes free.
    expect((await methodsOf(who)).find((listed) => listed.code === 'DPD')!.price).toBe(0);
    const dpd = basketOf(await choose(who, { deliveryMethodId: method.DPD, parcelMachineId: machine.D1 }));
    expect([dpd.deliveryCost, dpd.discounts[0]!.applied, dpd.discounts[0]!.reason]).toEqual([0, true, null]);
    // Omniva is free over 40.00 without the code.
    await add(t, who, p.book, 2);
    const omniva = basketOf(await choose(who, { deliveryMethodId: method.OMNIVA, parcelMachineId: machine['1002'] }));
    expect([omniva.deliveryCost, omniva.discounts[0]!.applied, omniva.discounts[0]!.reason?.code]).toEqual([
      0,
      false,
      'DELIVERY_FREE_ANYWAY',
    ]);
  });

  it('chooses a pickup shop (drive-in has its one), and checks it', async () => {
    const who = await basketWith([[p.book, 1]]);
    expect(basketOf(await choose(who, { deliveryMethodId: method.SHOP, shopCode: 'TRT1' })).deliveryMethod).toMatchObject({
      shop: { code: 'TRT1', name: 'Tasku' },
    });
    expect(expectFieldErrors(await choose(who, { deliveryMethodId: method.SHOP }))).toEqual(['shopCode']);
    expect(expectFieldErrors(await choose(who, { deliveryMethodId: method.SHOP, shopCode: 'NOPE' }))).toEqual(['shopCode']);
    expect(basketOf(await choose(who, { deliveryMethodId: method.DRIVEIN })).deliveryMethod).toMatchObject({ shop: { code: 'TRT1' } });
    expect(expectFieldErrors(await choose(who, { deliveryMethodId: method.DRIVEIN, shopCode: 'TLN1' }))).toEqual(['shopCode']);
  });

  it("names the pickup shops in the caller's language, in Estonian where a shop has no name in it", async () => {
    const tasku = await t.database.db.selectFrom('shop').select('id').where('code', '=', 'TRT1').executeTakeFirstOrThrow();
    await t.database.db
      .insertInto('shop_name')
      .values({ shop_id: tasku.id, language: 'en', name: 'Tasku Centre', opening_hours: null })
      .execute();
    const who = { ...(await basketWith([[p.book, 1]])), language: 'en' };
    const shops = (await methodsOf(who)).find((m) => m.code === 'SHOP')!.shops;
    expect(shops.map((s) => [s.code, (s as unknown as { name: string }).name])).toEqual([
      ['TLN1', 'Viru Keskus'],
      ['TRT1', 'Tasku Centre'],
    ]);
    const chosen = basketOf(await choose(who, { deliveryMethodId: method.SHOP, shopCode: 'TRT1' }));
    expect(chosen.deliveryMethod).toMatchObject({ shop: { code: 'TRT1', name: 'Tasku Centre' } });
    expect((await read(t, { ...who, language: 'et' })).deliveryMethod).toMatchObject({ shop: { name: 'Tasku' } });
  });

  it('prices international delivery by the country fee table', async () => {
    const who = await basketWith([[p.book, 1]]);
    const lv = basketOf(await choose(who, { deliveryMethodId: method.WORLD, countryCode: 'lv' }));
    expect([lv.deliveryMethod!.countryCode, lv.deliveryCost]).toEqual(['LV', 7.5]);
    // Once a country is chosen, the list (the checkout page's prices) says what the basket is charged for it.
    const fi = basketOf(await choose(who, { deliveryMethodId: method.WORLD, countryCode: 'FI' }));
    expect([fi.deliveryMethod!.countryCode, fi.deliveryCost, fi.total]).toEqual(['FI', 12, 32]);
    expect((await methodsOf(who)).find((m) => m.code === 'WORLD')!.price).toBe(12);
    // Another method chosen: the list prices the international one at its cheapest country again.
    basketOf(await choose(who, { deliveryMethodId: method.COURIER }));
    expect((await methodsOf(who)).find((m) => m.code === 'WORLD')!.price).toBe(7.5);
    basketOf(await choose(who, { deliveryMethodId: method.WORLD, countryCode: 'LV' }));
    expect(expectFieldErrors(await choose(who, { deliveryMethodId: method.WORLD }))).toEqual(['countryCode']);
    expect(expectFieldErrors(await choose(who, { deliveryMethodId: method.WORLD, countryCode: 'US' }))).toEqual(['countryCode']);
    expect(expectFieldErrors(await choose(who, { deliveryMethodId: method.COURIER, countryCode: 'LV' }))).toEqual(['countryCode']);
  });

  it('refuses a method of another store, an unknown one, one that cannot carry the basket, and bad input', async () => {
    const heavy = await basketWith([[p.heavy, 1]]);
    expect(expectFieldErrors(await choose(heavy, { deliveryMethodId: method.OMNIVA, parcelMachineId: machine['1001'] }))).toEqual([
      'deliveryMethodId',
    ]);
    expect(expectFieldErrors(await choose(heavy, { deliveryMethodId: method.OUTLETONLY }))).toEqual(['deliveryMethodId']);
    expect(expectFieldErrors(await choose(heavy, { deliveryMethodId: 99_999 }))).toEqual(['deliveryMethodId']);
    for (const body of [{}, { deliveryMethodId: 'x' }, { deliveryMethodId: -1 }, { deliveryMethodId: method.WORLD, countryCode: 'LVA' }]) {
      expect((await choose(heavy, body)).statusCode, JSON.stringify(body)).toBe(422);
    }
    expect((await read(t, heavy)).deliveryMethod).toBeNull();
  });

  it('shows a chosen method the basket outgrew as unavailable, costing nothing', async () => {
    const who = await basketWith([[p.book, 1]]);
    basketOf(await choose(who, { deliveryMethodId: method.OMNIVA, parcelMachineId: machine['1002'] }));
    const grown = await add(t, who, p.heavy, 1);
    expect([grown.deliveryMethod!.available, grown.deliveryCost]).toEqual([false, 0]);
  });

  it('shows a choice whose parcel machine was deactivated since, or whose shop no longer offers pickup, as unavailable', async () => {
    await importLines(t, 'parcel-machines', [
      { carrier: 'OMNIVA', code: '1003', name: 'Lõunakeskus', city: 'Tartu', address: 'Ringtee 75' },
    ]);
    const tartuMall = Number(
      (await t.database.db.selectFrom('parcel_machine').select('id').where('code', '=', '1003').executeTakeFirstOrThrow()).id,
    );
    const who = await basketWith([[p.book, 1]]);
    expect(basketOf(await choose(who, { deliveryMethodId: method.OMNIVA, parcelMachineId: tartuMall })).deliveryCost).toBe(2.99);
    await importLines(t, 'parcel-machines', [
      { carrier: 'OMNIVA', code: '1003', name: 'Lõunakeskus', city: 'Tartu', address: 'Ringtee 75', active: false },
    ]);
    const closed = await read(t, who);
    expect([closed.deliveryMethod!.available, closed.deliveryCost, closed.total]).toEqual([false, 0, 20]);
    // A pickup shop dropped from the method: the same.
    const pickup = await basketWith([[p.book, 1]]);
    expect(basketOf(await choose(pickup, { deliveryMethodId: method.SHOP, shopCode: 'TLN1' })).deliveryMethod!.available).toBe(true);
    const shopMethod = {
      code: 'SHOP',
      kind: 'SHOP_PICKUP',
      names: { et: 'Poodi' },
      prices: [{ store: 'WEB', price: 0 }],
      daysMin: 2,
      daysMax: 4,
    };
    await importLines(t, 'delivery-methods', [{ ...shopMethod, shops: ['TRT1'], position: 5 }]);
    try {
      expect((await read(t, pickup)).deliveryMethod!.available).toBe(false);
    } finally {
      await importLines(t, 'delivery-methods', [{ ...shopMethod, shops: ['TLN1', 'TRT1'], position: 5 }]);
    }
  });

  it('offers no pickup method whose every shop is closed: not listed, and choosing it is a 422 on deliveryMethodId', async () => {
    const before = await basketWith([[p.book, 1]]);
    expect(basketOf(await choose(before, { deliveryMethodId: method.DRIVEIN })).deliveryMethod).toMatchObject({ available: true });
    const tasku = { code: 'TRT1', names: { et: 'Tasku' }, city: 'Tartu', webStock: true };
    expect((await importLines(t, 'shops', [{ ...tasku, active: false }])).json()).toMatchObject({ outcomes: { updated: 1 } });
    try {
      const who = await basketWith([[p.book, 1]]);
      const methods = await methodsOf(who);
      // The drive-in's one shop is closed: nothing of it can be chosen. Shop pickup keeps its open shop.
      expect(methods.map((m) => m.code)).not.toContain('DRIVEIN');
      expect(methods.find((m) => m.code === 'SHOP')!.shops.map((s) => s.code)).toEqual(['TLN1']);
      expect(expectFieldErrors(await choose(who, { deliveryMethodId: method.DRIVEIN }))).toEqual(['deliveryMethodId']);
      expect(expectFieldErrors(await choose(who, { deliveryMethodId: method.DRIVEIN, shopCode: 'TRT1' }))).toEqual(['deliveryMethodId']);
      expect((await read(t, who)).deliveryMethod).toBeNull();
      // Chosen before the shop closed: not available, costing nothing.
      expect((await read(t, before)).deliveryMethod).toMatchObject({ code: 'DRIVEIN', available: false });
    } finally {
      await importLines(t, 'shops', [tasku]);
    }
    expect((await methodsOf(await basketWith([[p.book, 1]]))).map((m) => m.code)).toContain('DRIVEIN');
  });

  it('prices delivery without VAT for a wholesale client', async () => {
    const wholesale = await createCustomer(t.database.db, { kind: 'WHOLESALE' });
    const who = await basketWith([[p.book, 1]], { bearer: wholesale.token });
    const chosen = basketOf(await choose(who, { deliveryMethodId: method.COURIER }));
    // 5.90 with 24 % VAT is 4.76 without.
    expect([chosen.vatIncluded, chosen.deliveryCost]).toEqual([false, 4.76]);
  });

  it('shows a wholesale client every delivery amount without VAT: price, regular price, threshold, country fees', async () => {
    const wholesale = await createCustomer(t.database.db, { kind: 'WHOLESALE' });
    // The book is 18.35 without VAT, 20.00 with its 9 %.
    const who = await basketWith([[p.book, 1]], { bearer: wholesale.token });
    const methods = Object.fromEntries((await methodsOf(who)).map((m) => [m.code, m]));
    // 5.90 and 2.99 with 24 % VAT are 4.76 and 2.41 without.
    expect([methods.COURIER!.price, methods.COURIER!.regularPrice]).toEqual([4.76, 4.76]);
    expect([methods.OMNIVA!.price, methods.OMNIVA!.regularPrice]).toEqual([2.41, 2.41]);
    // The thresholds (60.00 and 40.00 with VAT) as the sums without VAT that reach them for this basket.
    expect([methods.COURIER!.freeOver, methods.OMNIVA!.freeOver]).toEqual([55.05, 36.7]);
    expect(methods.WORLD!.countryFees).toEqual(
      expect.arrayContaining([
        { countryCode: 'LV', price: 6.05 },
        { countryCode: 'FI', price: 9.68 },
      ]),
    );
  });

  it('gives a wholesale basket free delivery and a code once its sum with VAT reaches the threshold set with VAT', async () => {
    const db = t.database.db;
    // 56.00 without VAT is 61.04 with its 9 %: over the courier's 60.00, though 56.00 is not.
    const dear = await createProduct(db, { availability: 'COMING_SOON', deliveryTime: 'PREORDER', price: 62, wholesalePrice: 56 });
    await importLines(t, 'discount-codes', [{ code: 'WHOLE60', percent: 1, minBasket: 61, customerKinds: ['WHOLESALE'] }]);
    const wholesale = await createCustomer(db, { kind: 'WHOLESALE' });
    const who = await basketWith([[dear, 1]], { bearer: wholesale.token });
    expect((await methodsOf(who)).find((m) => m.code === 'COURIER')!.price).toBe(0);
    const chosen = basketOf(await choose(who, { deliveryMethodId: method.COURIER }));
    expect([chosen.subtotal, chosen.deliveryCost, chosen.total]).toEqual([56, 0, 56]);
    // Its minimum of 61.00 (with VAT) is reached by 61.04: the code applies (1 % of 56.00).
    const coded = basketOf(await call(t, 'POST', '/basket/add-discount', who, { code: 'WHOLE60' }));
    expect(coded.discounts[0]).toMatchObject({ applied: true, amount: 0.56 });
  });
});

it('sends express orders after 12:00 in Tallinn the next day', () => {
  const express = { kind: 'EXPRESS_COURIER', daysMin: 0, daysMax: 0 } as DeliveryMethod;
  // 2026-06-10 11:59 and 12:00 Tallinn (UTC+3 in summer).
  expect(deliveryEstimate(express, Date.parse('2026-06-10T08:59:00Z'))).toEqual({ from: '2026-06-10', to: '2026-06-10' });
  expect(deliveryEstimate(express, Date.parse('2026-06-10T09:00:00Z'))).toEqual({ from: '2026-06-11', to: '2026-06-11' });
  // Winter (UTC+2), and a courier is not cut off.
  expect(deliveryEstimate(express, Date.parse('2026-01-10T10:30:00Z'))).toEqual({ from: '2026-01-11', to: '2026-01-11' });
  expect(deliveryEstimate({ ...express, kind: 'COURIER', daysMax: 2 }, Date.parse('2026-01-10T10:30:00Z'))).toEqual({
    from: '2026-01-10',
    to: '2026-01-12',
  });
});
