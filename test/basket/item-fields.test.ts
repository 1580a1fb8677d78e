import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, type Who } from './helpers.js';

// A basket item's descriptive fields carry values, the same the catalogue's product answer shows
// for that product: code, type, imageUrl, availability and deliveryTime.

let t: TestApp;
const ids: number[] = [];
beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const shop = await createShop(db);
  const specs: Array<Parameters<typeof createProduct>[1]> = [
    { price: 20, images: ['https://img.example/novel-front.jpg', 'https://img.example/novel-back.jpg'] },
    { price: 12, availability: 'COMING_SOON', deliveryTime: 'PREORDER', images: ['https://img.example/soon.jpg'] },
    { price: 8, type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD' },
    { price: 4, type: 'OFFICE_EQUIPMENT', binding: null, vatRate: 24 },
  ];
  for (const spec of specs) {
    const id = await createProduct(db, spec);
    await setStock(db, id, shop, 50);
    ids.push(id);
  }
});
afterAll(() => t.close());

it("shows each item's code, type, imageUrl, availability and deliveryTime as the product answer does", async () => {
  let who: Who = {};
  const fields = ['code', 'type', 'imageUrl', 'availability', 'deliveryTime'] as const;
  const seen: Record<(typeof fields)[number], unknown[]> = { code: [], type: [], imageUrl: [], availability: [], deliveryTime: [] };
  for (const id of ids) {
    const page = await t.app.inject({ url: `/product/${id}` });
    expect(page.statusCode, page.body).toBe(200);
    const product = page.json() as Record<string, unknown>;
    const basket = await add(t, who, id, 1);
    who = { token: basket.basketToken! };
    const item = basket.items.find((line) => line.productId === id) as unknown as Record<string, unknown>;
    for (const field of fields) {
      expect(product[field], `product ${id} ${field}`).toBeDefined();
      expect(item[field], `product ${id} ${field}`).toEqual(product[field]);
      seen[field].push(item[field]);
    }
  }
  // Values, not blanks: the lines differ where the products do.
  expect(seen.type).toEqual(['BOOK', 'BOOK', 'EBOOK', 'OFFICE_EQUIPMENT']);
  expect(seen.availability.slice(0, 2)).toEqual(['AVAILABLE', 'COMING_SOON']);
  expect(seen.deliveryTime.slice(1, 3)).toEqual(['PREORDER', 'INSTANT_DOWNLOAD']);
  expect(seen.imageUrl[0]).toEqual(expect.stringContaining('novel-front'));
  expect(seen.imageUrl[1]).toEqual(expect.stringContaining('soon'));
  expect(new Set(seen.code).size).toBe(4);
});
