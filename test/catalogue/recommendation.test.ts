import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory, createPerson, createProduct } from '../helpers/catalogue.js';
import { createOrder, relateProducts } from '../helpers/catalogue-blocks.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const root = await createCategory(db, { et: 'Ilukirjandus' });
  const leaf = await createCategory(db, { et: 'Krimi' }, { parentId: root });
  const outlet = await createCategory(db, { et: 'Outlet' }, { store: 'WEB2' });
  const author = await createPerson(db, 'Agatha');
  const other = await createPerson(db, 'Muu');
  const product = (code: string, spec: Parameters<typeof createProduct>[1] = {}) =>
    createProduct(db, { code, name: code, ...spec }).then((id) => (ids[code] = id));
  await product('P', {
    categoryIds: [root, leaf, outlet],
    persons: [{ id: author }, { id: other, role: 'TRANSLATOR' }],
    stores: ['WEB', 'WEB2'],
  });
  await product('Q1', { salesCount: 1 });
  await product('Q2', { salesCount: 1 });
  await product('Q3-HIDDEN-WEB', { hiddenWeb: true });
  await product('Q4');
  await product('Q5');
  await product('R1');
  await product('R2-INACTIVE', { active: false });
  await product('A1', { persons: [{ id: author }], salesCount: 5 });
  await product('A2', { persons: [{ id: author }], salesCount: 50 });
  await product('T1', { persons: [{ id: other, role: 'TRANSLATOR' }], salesCount: 999 });
  await product('C1', { categoryIds: [leaf], salesCount: 100 });
  await product('C2-ROOT', { categoryIds: [root], salesCount: 1000 });
  await product('C3-OUTLET', { categoryIds: [outlet], salesCount: 2000, stores: ['WEB2'] });
  await product('LONER');
  await product('HIDDEN', { hiddenWeb: true, categoryIds: [leaf] });

  // Q1 shares three orders with P; Q2 two (listed twice in each, which counts once); Q3 one.
  for (let i = 0; i < 3; i += 1) await createOrder(db, ['P', 'Q1']);
  for (let i = 0; i < 2; i += 1) await createOrder(db, ['Q2', 'P', 'Q2']);
  await createOrder(db, ['P', 'Q3-HIDDEN-WEB', 'NOT-IN-CATALOGUE']);
  await createOrder(db, ['Q4', 'Q5']);
  await relateProducts(db, ids.P!, [ids.R1!, ids.Q1!, ids['R2-INACTIVE']!]);
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codes = (res: { json(): unknown }) => (res.json() as Array<{ code: string }>).map((item) => item.code);

// Bought together, related, same author (best sellers first; a shared translator does not count),
// same most specific category (not the root's best seller).
const GUEST_ORDER = ['Q1', 'Q2', 'R1', 'A2', 'A1', 'C1'];

describe('GET /product/:id/recommendations', () => {
  it('ranks bought-together first, then related, same author and same category, without duplicates', async () => {
    const res = await get(`/product/${ids.P}/recommendations`);
    expect(res.statusCode, res.body).toBe(200);
    expect(codes(res)).toEqual(GUEST_ORDER);
    expect(res.json()[0]).toMatchObject({ id: ids.Q1, price: 10, authors: [] });
    expect(res.headers['cache-control']).toMatch(/^public/);
    expect(res.headers['x-pagination-total-count']).toBeUndefined();
  });

  it('gives business customers the business catalogue, never stored', async () => {
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const res = await get(`/product/${ids.P}/recommendations`, { authorization: `Bearer ${business.token}` });
    expect(codes(res)).toEqual(['Q1', 'Q2', 'Q3-HIDDEN-WEB', 'R1', 'A2', 'A1', 'C1', 'HIDDEN']);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it("recommends only the store's own products, from its own categories", async () => {
    expect(codes(await get(`/product/${ids.P}/recommendations`, { store: 'WEB2' }))).toEqual(['C3-OUTLET']);
  });

  it('takes a limit, capped at 50', async () => {
    expect(codes(await get(`/product/${ids.P}/recommendations?limit=2`))).toEqual(['Q1', 'Q2']);
    expect(codes(await get(`/product/${ids.P}/recommendations?limit=5000`))).toEqual(GUEST_ORDER);
  });

  it('is an empty list for a product with nothing to go with', async () => {
    const res = await get(`/product/${ids.LONER}/recommendations`);
    expect(res.statusCode).toBe(200);
    // LONER has no orders, relations, authors or categories.
    expect(res.json()).toEqual([]);
  });

  it('answers a conditional GET of a guest with 304', async () => {
    const first = await get(`/product/${ids.P}/recommendations`);
    expect((await get(`/product/${ids.P}/recommendations`, { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
  });

  it('is a 404 for a product the caller cannot see', async () => {
    for (const id of [ids.HIDDEN, ids['R2-INACTIVE'], ids['C3-OUTLET'], 987_654]) {
      expectErrorBody(await get(`/product/${id}/recommendations`), 404, 'Not Found');
    }
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    expect((await get(`/product/${ids.HIDDEN}/recommendations`, { authorization: `Bearer ${business.token}` })).statusCode).toBe(200);
  });

  it('refuses malformed input', async () => {
    expectErrorBody(await get('/product/abc/recommendations'), 400, 'Bad Request');
    for (const limit of ['0', '-3', 'x', '1.5'])
      expectErrorBody(await get(`/product/${ids.P}/recommendations?limit=${limit}`), 400, 'Bad Request');
    expectErrorBody(await get(`/product/${ids.P}/recommendations`, { authorization: 'Bearer bad' }), 401, 'Unauthorized');
  });
});

describe('GET /recommendation?productId=', () => {
  it('is the same list', async () => {
    expect(codes(await get(`/recommendation?productId=${ids.P}&limit=3`))).toEqual(['Q1', 'Q2', 'R1']);
  });

  it('needs a well-formed, visible product', async () => {
    expectErrorBody(await get('/recommendation'), 400, 'Bad Request');
    expectErrorBody(await get('/recommendation?productId=x'), 400, 'Bad Request');
    expectErrorBody(await get(`/recommendation?productId=${ids.HIDDEN}`), 404, 'Not Found');
  });
});

describe('the order history window', () => {
  it('looks only at the latest 1000 orders holding the product', async () => {
    const db = t.database.db;
    await createProduct(db, { code: 'BIG' }).then((id) => (ids.BIG = id));
    await createProduct(db, { code: 'OLD-PARTNER' });
    await createProduct(db, { code: 'NEW-PARTNER' });
    await createOrder(db, ['BIG', 'OLD-PARTNER']);
    await createOrder(db, ['BIG', 'OLD-PARTNER']);
    const now = Date.now();
    const orders = await db
      .insertInto('sales_history')
      .values(
        Array.from({ length: 1000 }, (_, i) => ({
          order_code: `WIN${i}`,
          client_code: 'W1',
          client_type: 'PYSIKLIENT' as const,
          source_type: 'ONLINE' as const,
          city: 'Tartu',
          session_id: null,
          delivery_method: 'COURIER',
          shop_code: null,
          created_at: now,
          created_nav: null,
        })),
      )
      .returning('id')
      .execute();
    await db
      .insertInto('sales_history_item')
      .values(orders.map((order) => ({ sales_history_id: order.id, position: 0, product_code: 'BIG' })))
      .execute();
    await createOrder(db, ['NEW-PARTNER', 'BIG']);
    expect(codes(await get(`/product/${ids.BIG}/recommendations`))).toEqual(['NEW-PARTNER']);
  });
});
