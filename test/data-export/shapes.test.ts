import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { personSortName } from '../../src/modules/catalogue/person-sort-name.js';
import { T0, exportUser, insertCategory, insertClient, insertProduct, insertSales, insertSessionActions, insertShop } from './fixtures.js';
import { clientAccountSpec, expectItems, productSpec, salesHistorySpec, sessionActionSpec, shopSpec, without } from './spec-schemas.js';

let t: TestApp;
let authorization: string;

const get = (url: string) => t.app.inject({ method: 'GET', url: `/export${url}`, headers: { authorization } });

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  ({ authorization } = await exportUser(db));

  const root = await insertCategory(db, 'ILUKIRJANDUS', null, 1, { et: 'Ilukirjandus', en: 'Fiction' });
  const child = await insertCategory(db, 'KRIMI', root, 2, { en: 'Crime', ru: 'Детектив' });
  const grandchild = await insertCategory(db, 'POHJAMAA-KRIMI', child, 3, { et: 'Põhjamaa krimi' }, 'WEB');

  const { id: publisherId } = await db
    .insertInto('publisher')
    .values({ code: 'PUB-1', name: 'Varrak', description: null, created_at: T0, updated_at: T0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const book = await insertProduct(db, {
    code: 'BOOK-1',
    createdAt: T0,
    publisherId,
    originalPriceCents: 2500,
    shopPriceCents: 2000,
    stores: ['WEB2', 'WEB'],
    webStock: 7,
  });
  await insertProduct(db, { code: 'EBOOK-1', createdAt: T0 + 1000, type: 'EBOOK', physicalBookId: book, shopPriceCents: 999, stores: [] });
  await insertProduct(db, { code: 'OLD-1', createdAt: T0 + 2000, isActive: false, stores: ['WEB2'] });
  await db
    .insertInto('product_category')
    .values([
      { product_id: book, category_id: grandchild },
      { product_id: book, category_id: root },
    ])
    .execute();
  const persons = await db
    .insertInto('person')
    .values([
      {
        code: 'A-2',
        name: 'Teine Autor',
        sort_name: personSortName('Teine Autor'),
        description: null,
        image_url: null,
        created_at: T0,
        updated_at: T0,
      },
      {
        code: 'A-1',
        name: 'Esimene Autor',
        sort_name: personSortName('Esimene Autor'),
        description: null,
        image_url: null,
        created_at: T0,
        updated_at: T0,
      },
      {
        code: 'T-1',
        name: 'Tõlkija',
        sort_name: personSortName('Tõlkija'),
        description: null,
        image_url: null,
        created_at: T0,
        updated_at: T0,
      },
    ])
    .returning('id')
    .execute();
  await db
    .insertInto('product_person')
    .values([
      { product_id: book, person_id: persons[0]!.id, role: 'AUTHOR', position: 2 },
      { product_id: book, person_id: persons[1]!.id, role: 'AUTHOR', position: 1 },
      { product_id: book, person_id: persons[2]!.id, role: 'TRANSLATOR', position: 3 },
    ])
    .execute();

  const client = await insertClient(db, 'W2000001', T0);
  await insertClient(db, 'W2000002', T0 + 1000, { gender: null, birthday: null });
  await db
    .insertInto('client_category_preference')
    .values([
      { client_account_id: client, category_id: child, created_at: T0 + 5 },
      { client_account_id: client, category_id: root, created_at: T0 + 1 },
    ])
    .execute();

  await insertSales(db, [
    { order: 'WT0001', createdAt: T0, products: ['BOOK-1', 'EBOOK-1'], shop: 'TLN-1', sourceType: 'OFFLINE', session: null },
    { order: 'WT0002', createdAt: T0 + 1000, createdNav: null },
  ]);
  await insertSessionActions(db, 2);
  await insertShop(db, 'TLN-1', T0, { et: 'Viru Keskus', en: 'Viru Centre' });
  await insertShop(db, 'TRT-1', T0 + 1000, { ru: 'Тарту' });
  await insertShop(db, 'PRN-1', T0 + 2000, {});
});

afterAll(() => t.close());

describe('item shapes against the spec', () => {
  it('client accounts: the spec shape; preferences are the followed categories', async () => {
    const response = await get('/client-account');
    expect(response.statusCode, response.body).toBe(200);
    const [full, unknown] = response.json();
    expectItems(clientAccountSpec, [full]);
    expect(full).toEqual({
      client: 'W2000001',
      gender: 'FEMALE',
      birthday: '1990-05-17T00:00:00Z',
      created: '2026-11-01T12:00:00Z',
      preferences: ['ILUKIRJANDUS', 'KRIMI'],
    });
    // Decisions: an unknown gender is an empty string, an unknown birthday is null.
    expectItems(clientAccountSpec, [unknown]);
    expect(unknown).toEqual({ client: 'W2000002', gender: '', birthday: null, created: '2026-11-01T12:00:01Z', preferences: [] });
  });

  it('products: every product, active or not, with categories, authors, publisher, stores and prices', async () => {
    const response = await get('/product');
    expect(response.statusCode, response.body).toBe(200);
    const items = response.json();
    expectItems(productSpec, items);
    expect(items.map((p: { code: string }) => p.code)).toEqual(['BOOK-1', 'EBOOK-1', 'OLD-1']);
    const [book, ebook] = items;
    expect(book).toMatchObject({
      type: 'BOOK',
      language: 'ET',
      price: 25,
      discountPrice: 20,
      isDiscountedProduct: true,
      stockCount: 7,
      createdAt: '2026-11-01T12:00:00Z',
      updatedAt: '2026-11-01T12:00:05Z',
      authors: [
        { name: 'Esimene Autor', code: 'A-1' },
        { name: 'Teine Autor', code: 'A-2' },
      ],
      publisher: { name: 'Varrak', code: 'PUB-1' },
      webStores: ['WEB', 'WEB2'],
      physicalBook: null,
    });
    const root = { code: 'ILUKIRJANDUS', level: '1', name: 'Ilukirjandus', webStore: 'WEB' };
    const crime = { code: 'KRIMI', level: '2', name: 'Crime', webStore: 'WEB' };
    const nordic = { code: 'POHJAMAA-KRIMI', level: '3', name: 'Põhjamaa krimi', webStore: 'WEB' };
    expect(book.categories).toEqual(
      expect.arrayContaining([
        { category: nordic, parent: crime, root },
        { category: root, parent: root, root },
      ]),
    );
    expect(book.categories).toHaveLength(2);
    expect(ebook).toMatchObject({
      physicalBook: 'BOOK-1',
      price: 9.99,
      discountPrice: 9.99,
      isDiscountedProduct: false,
      webStores: [],
      publisher: null,
      categories: [],
      authors: [],
    });
  });

  it('sales history: the spec shape; createdNav is left out until the back office gives it', async () => {
    const response = await get('/sales-history');
    expect(response.statusCode, response.body).toBe(200);
    const [shopSale, pending] = response.json();
    expectItems(salesHistorySpec, [shopSale]);
    expect(shopSale).toEqual({
      order: 'WT0001',
      client: 'W1000001',
      clientType: 'PYSIKLIENT',
      createdAt: '2026-11-01T12:00:00Z',
      createdNav: '2026-11-01T11:59:00Z',
      sourceType: 'OFFLINE',
      products: ['BOOK-1', 'EBOOK-1'],
      city: 'Tallinn',
      session: null,
      deliveryMethod: 'COURIER',
      shop: 'TLN-1',
    });
    expectItems(without(salesHistorySpec, 'createdNav'), [pending]);
    expect(pending).not.toHaveProperty('createdNav');
  });

  it("session actions: the spec shape; a guest's client is an empty string", async () => {
    const response = await get('/session');
    expect(response.statusCode, response.body).toBe(200);
    const items = response.json();
    expectItems(sessionActionSpec, items);
    expect(items).toEqual([
      { session: 's-0', webStore: 'WEB2', product: 'P-0', client: '', actionType: 'VIEW', createdAt: '2026-11-01T12:00:00Z' },
      {
        session: 's-1',
        webStore: 'WEB',
        product: 'P-1',
        client: 'W1000001',
        actionType: 'ADD_TO_WISHLIST',
        createdAt: '2026-11-01T12:00:01Z',
      },
    ]);
  });

  it('shops: the Estonian name, else another language, else the code', async () => {
    const response = await get('/shop');
    expect(response.statusCode, response.body).toBe(200);
    const items = response.json();
    expectItems(shopSpec, items);
    expect(items).toEqual([
      { code: 'TLN-1', name: 'Viru Keskus', city: 'Tartu' },
      { code: 'TRT-1', name: 'Тарту', city: 'Tartu' },
      { code: 'PRN-1', name: 'PRN-1', city: 'Tartu' },
    ]);
  });

  it('is not store-scoped: no store headers, and an unknown store header changes nothing', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/export/shop', headers: { authorization, store: 'NOPE' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers).not.toHaveProperty('is_active');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });
});
