import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, basketOf, call, read, type Who } from './helpers.js';

// The basket's rules: quantities 1-999, at most 100 lines, one of a digital product, web stock
// for items that ship only from stock, preorders free of it; and what a read says when a line's
// product changed since it was added.

let t: TestApp;
let shop: number;
beforeAll(async () => {
  t = await createTestApp();
  shop = await createShop(t.database.db);
});
afterAll(() => t.close());

const db = () => t.database.db;
async function stocked(stock: number, spec: Parameters<typeof createProduct>[1] = {}): Promise<number> {
  const id = await createProduct(db(), spec);
  if (stock > 0) await setStock(db(), id, shop, stock);
  return id;
}
const fresh = async (productId: number, quantity = 1): Promise<Who> => ({ token: (await add(t, {}, productId, quantity)).basketToken! });

describe('quantities', () => {
  it('adds up to 999 of a product and refuses more, naming the field', async () => {
    const preorder = await stocked(0, { availability: 'COMING_SOON', deliveryTime: 'PREORDER' });
    const who = await fresh(preorder, 999);
    expect((await read(t, who)).items[0]!.quantity).toBe(999);
    expect(expectFieldErrors(await call(t, 'POST', '/basket/add-product', who, { productId: preorder, quantity: 1 }))).toEqual([
      'quantity',
    ]);
    expect(expectFieldErrors(await call(t, 'PUT', '/basket/change-quantity', who, { productId: preorder, quantity: 1000 }))).toEqual([
      'quantity',
    ]);
    expect((await read(t, who)).items[0]!.quantity).toBe(999);
  });

  // A virtual gift card (one a line, with its recipient and amount) has its tests in test/gift-cards.
  it('holds one of a digital product (e-book, audiobook, download) at most', async () => {
    for (const spec of [
      { type: 'EBOOK' as const, binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD' as const },
      { type: 'AUDIOBOOK' as const, binding: null, deliveryTime: 'INSTANT_DOWNLOAD' as const },
      { type: 'MUSIC' as const, deliveryTime: 'INSTANT_DOWNLOAD' as const },
    ]) {
      const id = await stocked(0, spec);
      expect(expectFieldErrors(await call(t, 'POST', '/basket/add-product', {}, { productId: id, quantity: 2 }))).toEqual(['quantity']);
      const who = await fresh(id);
      expect(expectFieldErrors(await call(t, 'POST', '/basket/add-product', who, { productId: id, quantity: 1 }))).toEqual(['quantity']);
      const basket = await read(t, who);
      expect([basket.items[0]!.quantity, basket.items[0]!.maxQuantity, basket.deliveryRequired], spec.type).toEqual([1, 1, false]);
    }
  });

  it('keeps an item that ships only from stock within its web stock, and lets preorders and supplier orders past it', async () => {
    const inStock = await stocked(3);
    const who = await fresh(inStock, 2);
    const refused = await call(t, 'POST', '/basket/add-product', who, { productId: inStock, quantity: 2 });
    expect(expectFieldErrors(refused)).toEqual(['quantity']);
    expect(refused.json()[0].message).toContain('3');
    expect((await add(t, who, inStock, 1)).items[0]).toMatchObject({ quantity: 3, maxQuantity: 3 });
    const none = await stocked(0);
    expect(expectFieldErrors(await call(t, 'POST', '/basket/add-product', {}, { productId: none, quantity: 1 }))).toEqual(['productId']);
    const preorder = await stocked(0, { availability: 'COMING_SOON', deliveryTime: 'PREORDER' });
    const supplier = await stocked(0, { availability: 'TEMPORARILY_OUT_OF_STOCK', deliveryTime: 'WEEKS_2_4' });
    expect((await add(t, who, preorder, 5)).items.find((item) => item.productId === preorder)!.quantity).toBe(5);
    expect((await add(t, who, supplier, 7)).items.find((item) => item.productId === supplier)!.maxQuantity).toBe(999);
  });

  it('refuses a product that cannot be ordered or is not sold to the caller in this store', async () => {
    const gone = await stocked(5, { availability: 'PERMANENTLY_OUT_OF_STOCK' });
    const hidden = await stocked(5, { hiddenWeb: true });
    const inactive = await stocked(5, { active: false });
    const otherStore = await stocked(5, { stores: ['WEB2'] });
    for (const id of [gone, hidden, inactive, otherStore]) {
      expect(expectFieldErrors(await call(t, 'POST', '/basket/add-product', {}, { productId: id, quantity: 1 }))).toEqual(['productId']);
    }
  });
});

it('holds at most 100 different products', async () => {
  const ids: number[] = [];
  for (let i = 0; i < 101; i += 1) ids.push(await stocked(0, { availability: 'COMING_SOON', deliveryTime: 'PREORDER' }));
  const who = await fresh(ids[0]!);
  for (const id of ids.slice(1, 100)) await add(t, who, id);
  expect((await read(t, who)).items).toHaveLength(100);
  expect(expectFieldErrors(await call(t, 'POST', '/basket/add-product', who, { productId: ids[100], quantity: 1 }))).toEqual(['productId']);
  // More of a product already there is still fine.
  expect((await add(t, who, ids[5]!, 1)).items).toHaveLength(100);
});

describe('lines whose product changed', () => {
  it('marks a product that became hidden or permanently unavailable as unavailable, counting for nothing', async () => {
    const a = await stocked(5, { price: 10 });
    const b = await stocked(5, { price: 20 });
    const c = await stocked(5, { price: 5 });
    const who = await fresh(a);
    await add(t, who, b, 2);
    await add(t, who, c, 1);
    await db().updateTable('product').set({ hidden_web: true }).where('id', '=', a).execute();
    await db().updateTable('product').set({ availability: 'PERMANENTLY_OUT_OF_STOCK' }).where('id', '=', b).execute();
    const basket = await read(t, who);
    expect(basket.items.map((item) => [item.productId, item.available, item.lineTotal, item.notice?.code ?? null])).toEqual([
      [a, false, 0, 'UNAVAILABLE'],
      [b, false, 0, 'UNAVAILABLE'],
      [c, true, 5, null],
    ]);
    expect([basket.itemCount, basket.subtotal, basket.total]).toEqual([1, 5, 5]);
    // It can still be removed, but not ordered more of.
    expect(expectFieldErrors(await call(t, 'PUT', '/basket/change-quantity', who, { productId: a, quantity: 2 }))).toEqual(['productId']);
    expect(basketOf(await call(t, 'PUT', '/basket/change-quantity', who, { productId: a, quantity: 0 })).items).toHaveLength(2);
  });

  it('says when the price changed since the line was added, until the line is written again', async () => {
    const id = await stocked(5, { price: 10 });
    const who = await fresh(id);
    await db().updateTable('product').set({ shop_price_cents: 1200 }).where('id', '=', id).execute();
    const basket = await read(t, who);
    expect(basket.items[0]).toMatchObject({ unitPrice: 12, lineTotal: 12, notice: { code: 'PRICE_CHANGED' } });
    // Money as each language writes it: a decimal comma in Estonian and Russian.
    expect(basket.items[0]!.notice!.message).toBe('Hind muutus: 10,00 € -> 12,00 €.');
    expect((await read(t, { ...who, language: 'ru' })).items[0]!.notice!.message).toBe('Цена изменилась: 10,00 € -> 12,00 €.');
    expect((await read(t, { ...who, language: 'en' })).items[0]!.notice!.message).toBe('The price changed from €10.00 to €12.00.');
    const rewritten = await add(t, who, id, 1);
    expect(rewritten.items[0]).toMatchObject({ quantity: 2, lineTotal: 24, notice: null });
  });

  it('cuts the quantity that counts to the stock left, and says so', async () => {
    const id = await stocked(5, { price: 10 });
    const who = await fresh(id, 4);
    await setStock(db(), id, shop, 2);
    const basket = await read(t, who);
    expect(basket.items[0]).toMatchObject({ quantity: 2, maxQuantity: 2, lineTotal: 20, notice: { code: 'QUANTITY_CUT' } });
    expect(basket.itemCount).toBe(2);
  });
});
