import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory, createPerson, createProduct, createPublisher, createSeries, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
type Key =
  | 'truth'
  | 'ebook'
  | 'cheap'
  | 'inactive'
  | 'hiddenWeb'
  | 'hiddenBusiness'
  | 'outlet'
  | 'novels'
  | 'classics'
  | 'tammsaare'
  | 'publisher'
  | 'series';
const ids = {} as Record<Key, number>;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const novels = await createCategory(db, { et: 'Romaanid', en: 'Novels', ru: 'Романы' });
  const classics = await createCategory(db, { et: 'Klassika', en: 'Classics' }, { parentId: novels });
  const outletOnly = await createCategory(db, { et: 'Outlet' }, { store: 'WEB2' });
  const tammsaare = await createPerson(db, 'A. H. Tammsaare');
  const translator = await createPerson(db, 'Mari Tõlkija');
  const publisher = await createPublisher(db, 'Eesti Raamat');
  const series = await createSeries(db, 'Eesti klassika', { publisherId: publisher });
  const tallinn = await createShop(db, { name: 'Viru Keskus', city: 'Tallinn', position: 1 });
  const tartu = await createShop(db, { name: 'Tasku', city: 'Tartu', position: 2 });
  const warehouse = await createShop(db, { name: 'Ladu', city: 'Tallinn', webStock: false, position: 3 });

  ids.truth = await createProduct(db, {
    code: 'TJO-1',
    name: 'Tõde ja õigus I',
    ean: '9789949123456',
    altCodes: ['9949123456'],
    altNames: ['Truth and Justice'],
    description: 'Vargamäe.',
    price: 20,
    originalPrice: 25,
    categoryIds: [classics, outletOnly],
    persons: [{ id: tammsaare }, { id: translator, role: 'TRANSLATOR' }],
    publisherId: publisher,
    seriesId: series,
    seriesNumber: 1,
    stores: ['WEB', 'WEB2'],
    images: ['https://img.example/tjo-1.jpg', 'https://img.example/tjo-1-back.jpg'],
    salesCount: 50,
    releasedAt: Date.UTC(2020, 0, 1),
  });
  await setStock(db, ids.truth, tallinn, 3);
  await setStock(db, ids.truth, tartu, 0);
  await setStock(db, ids.truth, warehouse, 7);
  ids.ebook = await createProduct(db, {
    code: 'TJO-1-E',
    name: 'Tõde ja õigus I (e-raamat)',
    type: 'EBOOK',
    binding: 'EPUB',
    price: 9.99,
    physicalBookId: ids.truth,
    categoryIds: [novels],
    releasedAt: Date.UTC(2021, 0, 1),
    salesCount: 5,
  });
  ids.cheap = await createProduct(db, {
    code: 'CHEAP',
    name: 'Aabits',
    price: 5,
    categoryIds: [novels],
    releasedAt: Date.UTC(2023, 0, 1),
    salesCount: 10,
  });
  ids.inactive = await createProduct(db, { code: 'GONE', name: 'Vana', categoryIds: [novels], active: false });
  ids.hiddenWeb = await createProduct(db, { code: 'B2B', name: 'Ärikliendile', categoryIds: [novels], hiddenWeb: true, price: 30 });
  ids.hiddenBusiness = await createProduct(db, {
    code: 'RETAIL',
    name: 'Jaekliendile',
    categoryIds: [novels],
    hiddenBusiness: true,
    price: 15,
  });
  ids.outlet = await createProduct(db, { code: 'OUT', name: 'Outlet only', stores: ['WEB2'], categoryIds: [outletOnly] });
  ids.novels = novels;
  ids.classics = classics;
  ids.tammsaare = tammsaare;
  ids.publisher = publisher;
  ids.series = series;
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('GET /product/:id', () => {
  it('shows everything the product page needs, translated', async () => {
    const res = await get(`/product/${ids.truth}`, { 'x-app-language': 'en' });
    expect(res.statusCode, res.body).toBe(200);
    const product = res.json();
    expect(product).toMatchObject({
      id: ids.truth,
      code: 'TJO-1',
      name: 'Tõde ja õigus I',
      type: 'BOOK',
      language: 'ET',
      binding: { code: 'HARDCOVER', name: 'Hardcover' },
      ean: '9789949123456',
      altCodes: ['9949123456'],
      altNames: ['Truth and Justice'],
      description: 'Vargamäe.',
      price: 20,
      strikeThroughPrice: 25,
      discountPercent: 20,
      vatIncluded: true,
      vatRatePercent: 9,
      stockCount: 3,
      imageUrl: 'https://img.example/tjo-1.jpg',
      publisher: { id: ids.publisher, name: 'Eesti Raamat' },
      series: { id: ids.series, name: 'Eesti klassika', number: 1 },
      ebook: { id: ids.ebook, code: 'TJO-1-E' },
      physicalBook: null,
      releaseDate: '2020-01-01',
    });
    expect(product.authors).toEqual([expect.objectContaining({ id: ids.tammsaare, name: 'A. H. Tammsaare' })]);
    expect(product.persons.map((p: { role: string }) => p.role)).toEqual(['AUTHOR', 'TRANSLATOR']);
    // Only the categories of this store's tree, root first.
    expect(product.categories).toEqual([{ id: ids.classics, code: expect.any(String), name: 'Classics', level: 2, parentId: ids.novels }]);
    expect(product.images.map((i: { url: string }) => i.url)).toEqual([
      'https://img.example/tjo-1.jpg',
      'https://img.example/tjo-1-back.jpg',
    ]);
    // Shops that have it; the warehouse's stock is not web stock but the shop still has it.
    expect(product.availabilityByShop.map((s: { name: string; quantity: number }) => [s.name, s.quantity])).toEqual([
      ['Viru Keskus', 3],
      ['Ladu', 7],
    ]);
  });

  it('falls back to Estonian where a translation is missing', async () => {
    const res = await get(`/product/${ids.truth}`, { 'x-app-language': 'ru' });
    expect(res.json().categories[0].name).toBe('Klassika');
    expect(res.json().binding.name).toBe('Твёрдый переплёт');
  });

  it('links an e-book to its physical edition', async () => {
    const res = await get(`/product/${ids.ebook}`);
    expect(res.json()).toMatchObject({ type: 'EBOOK', physicalBook: { id: ids.truth, code: 'TJO-1' }, ebook: null });
  });

  it('finds a product by its code', async () => {
    const res = await get('/product/code/TJO-1');
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe(ids.truth);
    const missing = await get('/product/code/NOPE');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ name: 'Not Found', status: 404, code: 0 });
  });

  it('is a 404 when inactive, outside the store or hidden from the caller', async () => {
    expect((await get(`/product/${ids.inactive}`)).statusCode).toBe(404);
    expect((await get(`/product/${ids.outlet}`)).statusCode).toBe(404);
    expect((await get(`/product/${ids.outlet}`, { store: 'WEB2' })).statusCode).toBe(200);
    expect((await get(`/product/${ids.hiddenWeb}`)).statusCode).toBe(404);
    expect((await get(`/product/${ids.hiddenBusiness}`)).statusCode).toBe(200);
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const auth = { authorization: `Bearer ${business.token}` };
    expect((await get(`/product/${ids.hiddenWeb}`, auth)).statusCode).toBe(200);
    expect((await get(`/product/${ids.hiddenBusiness}`, auth)).statusCode).toBe(404);
  });

  it('refuses malformed ids, bad tokens and unknown stores in the documented shapes', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      const res = await get(`/product/${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json()).toMatchObject({ name: 'Bad Request', status: 400 });
    }
    expect((await get('/product/999999')).statusCode).toBe(404);
    const badToken = await get(`/product/${ids.truth}`, { authorization: 'Bearer not-a-token' });
    expect(badToken.statusCode).toBe(401);
    expect(badToken.headers['www-authenticate']).toContain('Bearer');
    const otherStore = await createCustomer(t.database.db, { store: 'WEB2' });
    expect((await get(`/product/${ids.truth}`, { authorization: `Bearer ${otherStore.token}` })).statusCode).toBe(401);
    expect((await get(`/product/${ids.truth}`, { store: 'SHOP' })).statusCode).toBe(400);
    expect((await get(`/product/code/${'x'.repeat(41)}`)).statusCode).toBe(400);
  });
});

describe('GET /product/:id/related, assets, prices, availability', () => {
  it('lists related products in order, visible ones only', async () => {
    const db = t.database.db;
    await db
      .insertInto('product_related')
      .values([
        { product_id: ids.cheap, related_product_id: ids.ebook, position: 2 },
        { product_id: ids.cheap, related_product_id: ids.truth, position: 1 },
        { product_id: ids.cheap, related_product_id: ids.inactive, position: 3 },
      ])
      .execute();
    const res = await get(`/product/${ids.cheap}/related`);
    expect(res.statusCode).toBe(200);
    expect(res.json().map((p: { id: number }) => p.id)).toEqual([ids.truth, ids.ebook]);
    expect(res.headers['x-pagination-total-count']).toBe('2');
    expect((await get(`/product/${ids.inactive}/related`)).statusCode).toBe(404);
  });

  it('lists assets in display order', async () => {
    const res = await get(`/product/${ids.truth}/assets`);
    expect(res.json()).toEqual([
      { kind: 'IMAGE', url: 'https://img.example/tjo-1.jpg', mimeType: 'image/jpeg', width: 600, height: 900 },
      { kind: 'IMAGE', url: 'https://img.example/tjo-1-back.jpg', mimeType: 'image/jpeg', width: 600, height: 900 },
    ]);
  });

  it('gives the price with VAT rate and currency', async () => {
    const res = await get(`/product/${ids.truth}/prices`);
    expect(res.json()).toEqual({
      price: 20,
      strikeThroughPrice: 25,
      discountPercent: 20,
      vatIncluded: true,
      vatRatePercent: 9,
      currency: 'EUR',
      campaign: null,
    });
  });

  it('gives web stock and the shops that have the product', async () => {
    const res = await get(`/product/${ids.truth}/availability`);
    expect(res.json()).toMatchObject({
      availability: 'AVAILABLE',
      stockCount: 3,
      shops: [
        { name: 'Viru Keskus', quantity: 3 },
        { name: 'Ladu', quantity: 7 },
      ],
    });
  });
});

describe('GET /product (lists)', () => {
  const list = async (query: string, headers: Record<string, string> = {}) => {
    const res = await get(`/product?${query}`, headers);
    expect(res.statusCode, res.body).toBe(200);
    return { res, codes: res.json().map((p: { code: string }) => p.code) as string[] };
  };

  it('lists a category with its subcategories, visible products only, newest first', async () => {
    const { res, codes } = await list(`categoryId=${ids.novels}`);
    expect(codes).toEqual(['RETAIL', 'CHEAP', 'TJO-1-E', 'TJO-1']);
    expect(res.headers['x-pagination-total-count']).toBe('4');
    expect(res.headers.link).toContain('rel="self"');
  });

  it('shows the business catalogue to business customers', async () => {
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const { codes } = await list(`categoryId=${ids.novels}`, { authorization: `Bearer ${business.token}` });
    expect(codes).toContain('B2B');
    expect(codes).not.toContain('RETAIL');
  });

  it('sorts by price, name, discount and sales', async () => {
    expect((await list(`categoryId=${ids.novels}&sort=price`)).codes).toEqual(['CHEAP', 'TJO-1-E', 'RETAIL', 'TJO-1']);
    expect((await list(`categoryId=${ids.novels}&sort=-price`)).codes).toEqual(['TJO-1', 'RETAIL', 'TJO-1-E', 'CHEAP']);
    expect((await list(`categoryId=${ids.novels}&sort=name`)).codes).toEqual(['CHEAP', 'RETAIL', 'TJO-1', 'TJO-1-E']);
    expect((await list(`categoryId=${ids.novels}&sort=discount`)).codes[0]).toBe('TJO-1');
    expect((await list(`categoryId=${ids.novels}&sort=sales`)).codes.slice(0, 3)).toEqual(['TJO-1', 'CHEAP', 'TJO-1-E']);
  });

  it('filters by person, publisher, series and type', async () => {
    expect((await list(`personId=${ids.tammsaare}`)).codes).toEqual(['TJO-1']);
    expect((await list(`publisherId=${ids.publisher}`)).codes).toEqual(['TJO-1']);
    expect((await list(`seriesId=${ids.series}`)).codes).toEqual(['TJO-1']);
    expect((await list('type=EBOOK')).codes).toEqual(['TJO-1-E']);
  });

  it('pages with per-page, caps it at 100 and answers a page past the end with an empty array', async () => {
    const first = await list(`categoryId=${ids.novels}&per-page=2`);
    expect(first.codes).toHaveLength(2);
    expect(first.res.headers['x-pagination-page-count']).toBe('2');
    const second = await list(`categoryId=${ids.novels}&per-page=2&page=2`);
    expect(second.codes).toEqual(['TJO-1-E', 'TJO-1']);
    expect((await list(`categoryId=${ids.novels}&per-page=2&page=9`)).codes).toEqual([]);
    expect((await list('per-page=1000')).res.headers['x-pagination-per-page']).toBe('100');
  });

  it('refuses malformed parameters with a 400', async () => {
    for (const query of ['page=0', 'page=x', 'per-page=0', 'sort=random', 'categoryId=abc', 'type=BOOKS', 'personId=-3']) {
      const res = await get(`/product?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, name: 'Bad Request' });
    }
  });

  it('answers an unknown category with an empty list', async () => {
    const { res, codes } = await list('categoryId=424242');
    expect(codes).toEqual([]);
    expect(res.headers['x-pagination-total-count']).toBe('0');
  });
});

describe('HTTP caching', () => {
  it('lets shared caches keep guest answers and answers a conditional GET with 304', async () => {
    const first = await get(`/product/${ids.truth}`);
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    expect(first.headers.vary).toContain('store');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^".+"$/);
    const again = await get(`/product/${ids.truth}`, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // RFC 9110 8.6: a 304 carries no Content-Length unless it is the 200's; none at all here.
    expect(again.headers['content-length']).toBeUndefined();
    expect(again.headers['content-type']).toBeUndefined();
    expect((await get(`/product/${ids.truth}`, { 'if-none-match': `W/${etag}` })).statusCode).toBe(304);
    // Another language is another answer.
    expect((await get(`/product/${ids.truth}`, { 'if-none-match': etag, 'x-app-language': 'en' })).statusCode).toBe(200);
  });

  it("keeps a retail customer's answer private and never stores business or wholesale answers", async () => {
    const retail = await createCustomer(t.database.db, { kind: 'SIMPLE' });
    const retailAnswer = await get(`/product/${ids.truth}`, { authorization: `Bearer ${retail.token}` });
    expect(retailAnswer.headers['cache-control']).toBe('private, max-age=60');
    expect(retailAnswer.headers.etag).toBeDefined();
    for (const kind of ['BUSINESS', 'WHOLESALE'] as const) {
      const customer = await createCustomer(t.database.db, { kind });
      const res = await get(`/product/${ids.truth}`, { authorization: `Bearer ${customer.token}` });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
      expect((await get(`/product/${ids.truth}`, { authorization: `Bearer ${customer.token}`, 'if-none-match': '*' })).statusCode).toBe(
        200,
      );
    }
  });
});

describe('session actions', () => {
  const views = async (session: string) =>
    t.database.db.selectFrom('session_action').selectAll().where('session_id', '=', session).execute();

  async function eventually<T>(read: () => Promise<T[]>, count: number): Promise<T[]> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const rows = await read();
      if (rows.length >= count) return rows;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return read();
  }

  it('records a VIEW with the session, store, product and client', async () => {
    const customer = await createCustomer(t.database.db);
    const res = await get(`/product/${ids.truth}`, { 'x-session-id': 'sess-view-1', authorization: `Bearer ${customer.token}` });
    expect(res.statusCode).toBe(200);
    await get('/product/code/CHEAP', { 'x-session-id': 'sess-view-1' });
    const rows = await eventually(() => views('sess-view-1'), 2);
    expect(rows.map((row) => [row.action_type, row.store_code, row.product_code, row.client_code])).toEqual(
      expect.arrayContaining([
        ['VIEW', 'WEB', 'TJO-1', customer.clientCode],
        ['VIEW', 'WEB', 'CHEAP', null],
      ]),
    );
  });

  it('records nothing without a sane session id, and still answers', async () => {
    expect((await get(`/product/${ids.truth}`, { 'x-session-id': 'bad id with spaces' })).statusCode).toBe(200);
    expect((await get(`/product/${ids.truth}`, { 'x-session-id': 'x'.repeat(101) })).statusCode).toBe(200);
    expect((await get(`/product/${ids.inactive}`, { 'x-session-id': 'sess-missing' })).statusCode).toBe(404);
    // A sane view after them: once it is written, anything queued before it has been written too.
    expect((await get(`/product/${ids.truth}`, { 'x-session-id': 'sess-control' })).statusCode).toBe(200);
    expect(await eventually(() => views('sess-control'), 1)).toHaveLength(1);
    expect(await views('bad id with spaces')).toEqual([]);
    expect(await views('x'.repeat(101))).toEqual([]);
    expect(await views('sess-missing')).toEqual([]);
  });

  it('records no view for a HEAD: link checkers and prefetchers ask without showing the page', async () => {
    for (const url of [`/product/${ids.truth}`, '/product/code/CHEAP']) {
      const head = await t.app.inject({ method: 'HEAD', url, headers: { 'x-session-id': 'sess-head' } });
      expect(head.statusCode, url).toBe(200);
    }
    expect((await get(`/product/${ids.truth}`, { 'x-session-id': 'sess-after-head' })).statusCode).toBe(200);
    expect(await eventually(() => views('sess-after-head'), 1)).toHaveLength(1);
    expect(await views('sess-head')).toEqual([]);
  });
});
