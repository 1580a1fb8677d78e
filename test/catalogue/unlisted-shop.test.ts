import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImportTestApp, type ImportTestApp } from '../import/helpers.js';

// A web warehouse imported with `"listed": false`: its stock is web stock as before, but shoppers
// do not see it as a shop they could walk into, anywhere a shop is shown or filtered by.

let t: ImportTestApp;
let inWarehouse = 0;
let inShop = 0;

beforeAll(async () => {
  t = await createImportTestApp();
  const shops = await t.run('shops', [
    { code: 'WH', names: { et: 'Veebiladu' }, city: 'Tallinn', webStock: true, listed: false, position: 0 },
    { code: 'TLN', names: { et: 'Viru pood' }, city: 'Tallinn', webStock: true, position: 1 },
  ]);
  expect(shops.outcomes).toEqual({ created: 2 });
  await t.run('publishers', [{ code: 'PX', name: 'X' }]);
  const book = { type: 'BOOK', stores: ['WEB'], shopPrice: 10, vatRate: 9, availability: 'AVAILABLE' };
  await t.run(
    'products',
    [
      { ...book, code: 'ONLY-WH', name: 'Laoraamat' },
      { ...book, code: 'BOTH', name: 'Poeraamat' },
    ],
    { force: true },
  );
  await t.run('stock', [
    { product: 'ONLY-WH', shop: 'WH', quantity: 5 },
    { product: 'BOTH', shop: 'WH', quantity: 2 },
    { product: 'BOTH', shop: 'TLN', quantity: 1 },
  ]);
  const id = async (code: string) =>
    Number((await t.database.db.selectFrom('product').select('id').where('code', '=', code).executeTakeFirstOrThrow()).id);
  inWarehouse = await id('ONLY-WH');
  inShop = await id('BOTH');
});
afterAll(() => t.close());

const get = async (url: string) => {
  const res = await t.app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() as unknown };
};
const codes = (body: unknown) => (body as Array<{ code: string }>).map((item) => item.code);

describe('a shop not listed', () => {
  it('is not in the shop list and is a 404 by its code, its schedule and its QR code', async () => {
    expect(codes((await get('/shop')).body)).toEqual(['TLN']);
    expect((await get('/shop/WH')).status).toBe(404);
    expect((await get('/shop/WH/schedule')).status).toBe(404);
    // A QR code of the shop would draw a link to that 404; a listed shop's is drawn.
    expect((await t.app.inject({ method: 'GET', url: '/qr-code/shop-WH' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/qr-code/shop-TLN' })).statusCode).toBe(200);
  });

  it("is not among a product's shops, while its stock is still web stock", async () => {
    const only = await get(`/product/${inWarehouse}/availability`);
    expect(only.body).toMatchObject({ availability: 'AVAILABLE', stockCount: 5, shops: [] });
    const both = await get(`/product/${inShop}/availability`);
    expect(both.body).toMatchObject({ stockCount: 3, shops: [{ code: 'TLN', quantity: 1 }] });
  });

  it("does not make a product in stock in a shop for the search's filters", async () => {
    const names = async (query: string) =>
      ((await get(`/product/search?per-page=10&${query}`)).body as Array<{ name: string }>).map((card) => card.name).sort();
    expect(await names('availability=web')).toEqual(['Laoraamat', 'Poeraamat']);
    expect(await names('availability=shop')).toEqual(['Poeraamat']);
    expect(await names('shop=WH')).toEqual([]);
    expect(await names('shop=TLN')).toEqual(['Poeraamat']);
  });

  it('is listed again when a later import says so, and still kept by the back office meanwhile', async () => {
    const row = await t.database.db
      .selectFrom('shop')
      .select(['is_active', 'is_listed'])
      .where('code', '=', 'WH')
      .executeTakeFirstOrThrow();
    expect([Boolean(row.is_active), Boolean(row.is_listed)]).toEqual([true, false]);
    expect((await t.run('shops', [{ code: 'WH', names: { et: 'Veebiladu' }, city: 'Tallinn', webStock: true }])).outcomes).toEqual({
      updated: 1,
    });
    const listed = await t.database.db.selectFrom('shop').select('is_listed').where('code', '=', 'WH').executeTakeFirstOrThrow();
    expect(Boolean(listed.is_listed)).toBe(true);
  });
});
