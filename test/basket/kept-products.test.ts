import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, basketOf, call, read, type Who } from './helpers.js';

// With the catalogue's cache period on (CATALOGUE_CACHE_TTL_MS), a basket shows its lines'
// products as kept per process for that period, as the catalogue's cards do
// (basket-product-cache.ts); what a write decides on is read in its transaction, and what it read
// is what the basket shows after it. The other basket suites run with the period at 0.

const PERIOD_MS = 60_000;

let t: TestApp;
let shop: number;

beforeAll(async () => {
  t = await createTestApp({ env: { CATALOGUE_CACHE_TTL_MS: String(PERIOD_MS) } });
  shop = await createShop(t.database.db);
});
afterAll(() => t.close());

async function stockedProduct(price: number, stores?: string[]): Promise<number> {
  const id = await createProduct(t.database.db, { price, stores });
  await setStock(t.database.db, id, shop, 50);
  return id;
}

/** A change another process (an import, the back office) makes to the product's row. */
const setPrice = (id: number, euros: number) =>
  t.database.db
    .updateTable('product')
    .set({ shop_price_cents: Math.round(euros * 100) })
    .where('id', '=', id)
    .execute();

const productPrice = async (id: number, store = 'WEB') => {
  const page = await t.app.inject({ url: `/product/${id}`, headers: { store } });
  expect(page.statusCode, page.body).toBe(200);
  return (page.json() as { price: number }).price;
};

const unitPrice = (basket: { items: Array<{ productId: number; unitPrice: number }> }, id: number) =>
  basket.items.find((item) => item.productId === id)?.unitPrice;

describe('a basket with the catalogue cache period on', () => {
  it("shows a product changed elsewhere as the catalogue's card does until the period ends, and as a write on it read it", async () => {
    const id = await stockedProduct(20);
    const other = await stockedProduct(30);
    let who: Who = {};
    who = { token: (await add(t, who, id, 1)).basketToken! };
    await add(t, who, other, 1);
    expect(unitPrice(await read(t, who), id)).toBe(20);
    expect(await productPrice(id)).toBe(20);

    await setPrice(id, 25);
    // Within the period the basket and the product page agree on the price they last read.
    expect(unitPrice(await read(t, who), id)).toBe(20);
    expect(await productPrice(id)).toBe(20);

    // A write on the product reads it in its transaction: its answer and the reads after it show the new price.
    const changed = basketOf(await call(t, 'PUT', '/basket/change-quantity', who, { productId: id, quantity: 2 }));
    const line = changed.items.find((item) => item.productId === id)!;
    expect([line.unitPrice, line.lineTotal, line.notice]).toEqual([25, 50, null]);
    const after = await read(t, who);
    expect(unitPrice(after, id)).toBe(25);
    expect(unitPrice(after, other)).toBe(30);
    expect(after.subtotal).toBe(80);
  });

  it('decides on the product as it is now, never on the copy a basket read kept', async () => {
    const id = await stockedProduct(12);
    const who: Who = { token: (await add(t, {}, id, 1)).basketToken! };
    expect((await read(t, who)).items[0]!.available).toBe(true);

    // Taken off sale elsewhere: the kept copy still says it sells, the write must not believe it.
    await t.database.db.updateTable('product').set({ is_active: false }).where('id', '=', id).execute();
    const again = await call(t, 'POST', '/basket/add-product', who, { productId: id, quantity: 1 });
    expect(again.statusCode, again.body).toBe(422);
    const quantity = await call(t, 'PUT', '/basket/change-quantity', who, { productId: id, quantity: 3 });
    expect(quantity.statusCode, quantity.body).toBe(422);
    // Nothing changed: still the one the first add put there.
    expect((await read(t, who)).items[0]!.quantity).toBe(1);
  });

  it("keeps a product per store: one store's campaign price never shows in another store's basket", async () => {
    const id = await stockedProduct(20, ['WEB', 'WEB2']);
    await createCampaign(t.database.db, { store: 'WEB', prices: [{ productId: id, price: 15 }] });
    const web = { token: (await add(t, {}, id, 1)).basketToken! };
    const web2 = { store: 'WEB2', token: (await add(t, { store: 'WEB2' }, id, 1)).basketToken! };
    for (let round = 0; round < 2; round++) {
      expect(unitPrice(await read(t, web), id)).toBe(15);
      expect(unitPrice(await read(t, web2), id)).toBe(20);
    }
    expect(await productPrice(id, 'WEB2')).toBe(20);

    // A line no write of this process read (another process added it): the read itself reads it, for its store.
    const other = await stockedProduct(20, ['WEB', 'WEB2']);
    await createCampaign(t.database.db, { store: 'WEB', prices: [{ productId: other, price: 14 }] });
    const basketIds = await t.database.db
      .selectFrom('basket')
      .select(['id', 'store_code'])
      .where('id', 'in', [(await read(t, web)).id!, (await read(t, web2)).id!])
      .execute();
    for (const basket of basketIds) {
      const seen = basket.store_code === 'WEB' ? 1400 : 2000;
      await t.database.db
        .insertInto('basket_line')
        .values({ basket_id: basket.id, product_id: other, quantity: 1, seen_price_cents: seen, added_at: Date.now() })
        .execute();
    }
    expect(unitPrice(await read(t, web2), other)).toBe(20);
    expect(unitPrice(await read(t, web), other)).toBe(14);
    // A product only WEB sells, on a WEB2 line: read for WEB2, it is not orderable there.
    const webOnly = await stockedProduct(8, ['WEB']);
    const web2Basket = basketIds.find((basket) => basket.store_code === 'WEB2')!;
    await t.database.db
      .insertInto('basket_line')
      .values({ basket_id: web2Basket.id, product_id: webOnly, quantity: 1, seen_price_cents: 800, added_at: Date.now() })
      .execute();
    expect((await read(t, web2)).items.find((item) => item.productId === webOnly)?.available).toBe(false);
  });

  it('never says a price changed from a kept copy older than the line', async () => {
    const id = await stockedProduct(20);
    const who: Who = { token: (await add(t, {}, id, 1)).basketToken! };
    const basket = await read(t, who);
    expect(unitPrice(basket, id)).toBe(20);
    // Another process changes the price and a write there records the new one on the line.
    await setPrice(id, 25);
    await t.database.db.updateTable('basket_line').set({ seen_price_cents: 2500 }).where('basket_id', '=', basket.id!).execute();
    const after = await read(t, who);
    const line = after.items.find((item) => item.productId === id)!;
    expect([line.unitPrice, line.notice]).toEqual([25, null]);
    // What it read is kept: the next read shows the same.
    expect(unitPrice(await read(t, who), id)).toBe(25);
  });

  it('answers a merge with the products as the merge read them', async () => {
    const db = t.database.db;
    const id = await stockedProduct(10);
    const client = await createCustomer(db);
    const guest = (await add(t, {}, id, 3)).basketToken!;
    basketOf(await call(t, 'POST', '/basket/add-product', { bearer: client.token }, { productId: id, quantity: 1 }));
    expect((await read(t, { bearer: client.token })).items[0]!.maxQuantity).toBe(50);
    // Only 2 left (another process took the rest): the merge caps 1 + 3 at 2, and its answer says why.
    await setStock(db, id, shop, 2);
    const merged = basketOf(await call(t, 'POST', '/basket/merge', { bearer: client.token, token: guest }));
    const line = merged.items.find((item) => item.productId === id)!;
    expect([line.quantity, line.maxQuantity]).toEqual([2, 2]);
    expect((await read(t, { bearer: client.token })).items[0]!.maxQuantity).toBe(2);
  });
});

describe('a basket after the cache period', () => {
  let short: TestApp;
  beforeAll(async () => {
    short = await createTestApp({ env: { CATALOGUE_CACHE_TTL_MS: '150' } });
  });
  afterAll(() => short.close());

  it('shows the product as it is now once the period is over', async () => {
    const db = short.database.db;
    const id = await createProduct(db, { price: 20 });
    await setStock(db, id, await createShop(db), 5);
    const who: Who = { token: (await add(short, {}, id, 1)).basketToken! };
    expect(unitPrice(await read(short, who), id)).toBe(20);
    await db.updateTable('product').set({ shop_price_cents: 2200 }).where('id', '=', id).execute();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await read(short, who);
    expect(unitPrice(after, id)).toBe(22);
    // The line was added at 20: the basket says the price changed since.
    expect(after.items[0]!.notice?.code).toBe('PRICE_CHANGED');
  });
});
