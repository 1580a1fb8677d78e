import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WISHLIST_ITEMS } from '../../src/modules/wishlist/index.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The wishlist through HTTP: bearer only, idempotent adds, cards exactly as the catalogue shows them
// to the caller, hidden products dropping out of pages and counts, paging, another client's list.

let t: TestApp;
let client: TestCustomer;
let other: TestCustomer;
let wholesale: TestCustomer;
const p = {} as Record<'first' | 'second' | 'third' | 'hidden' | 'inactive' | 'otherStore', number>;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  client = await createCustomer(db, { discountPercent: 10 });
  other = await createCustomer(db);
  wholesale = await createCustomer(db, { kind: 'WHOLESALE', companyDiscountPercent: 5 });
  p.first = await createProduct(db, { name: 'Esimene', price: 20 });
  p.second = await createProduct(db, { name: 'Teine', price: 12.5, wholesalePrice: 8 });
  p.third = await createProduct(db, { name: 'Kolmas', price: 30, availability: 'TEMPORARILY_OUT_OF_STOCK' });
  p.hidden = await createProduct(db, { name: 'Peidetud', hiddenWeb: true });
  p.inactive = await createProduct(db, { name: 'Mitteaktiivne', active: false });
  p.otherStore = await createProduct(db, { name: 'Teine pood', stores: ['WEB2'] });
});
afterAll(() => t.close());

function call(method: 'GET' | 'POST' | 'DELETE', url: string, who?: TestCustomer, body?: unknown, session?: string) {
  const headers: Record<string, string> = {};
  if (who) headers.authorization = `Bearer ${who.token}`;
  if (session) headers['x-session-id'] = session;
  return t.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as object }) });
}
const add = (who: TestCustomer, productId: number, session?: string) => call('POST', '/wishlist', who, { productId }, session);
const list = (who: TestCustomer, query = '') => call('GET', `/wishlist${query}`, who);
const ids = (response: { json(): unknown }) => (response.json() as Array<{ product: { id: number } }>).map((item) => item.product.id);

describe('the wishlist needs a logged-in client', () => {
  it('answers 401 to a guest on every route, and to a bad token', async () => {
    for (const [method, url, body] of [
      ['GET', '/wishlist', undefined],
      ['POST', '/wishlist', { productId: p.first }],
      ['DELETE', `/wishlist/${p.first}`, undefined],
    ] as const) {
      const response = await call(method, url, undefined, body);
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.headers['cache-control']).toBe('no-store');
    }
    const bad = await t.app.inject({ url: '/wishlist', headers: { authorization: 'Bearer nonsense' } });
    expect(bad.statusCode).toBe(401);
  });
});

describe('adding', () => {
  it('adds once: 201 the first time, 200 with the same item after, one row; records ADD_TO_WISHLIST', async () => {
    const first = await add(client, p.first, 'wish-session-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['cache-control']).toBe('no-store');
    const again = await add(client, p.first, 'wish-session-1');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(first.json()).toMatchObject({ addedAt: expect.any(String), product: { id: p.first, name: 'Esimene', price: 18 } });
    const rows = await t.database.db
      .selectFrom('wishlist_item')
      .selectAll()
      .where('client_account_id', '=', client.clientAccountId)
      .execute();
    expect(rows.filter((row) => Number(row.product_id) === p.first)).toHaveLength(1);

    const code = (await t.database.db.selectFrom('product').select('code').where('id', '=', p.first).executeTakeFirstOrThrow()).code;
    const actions = await waitFor(async () => {
      const found = await t.database.db
        .selectFrom('session_action')
        .select(['session_id', 'product_code', 'client_code', 'action_type', 'store_code'])
        .where('session_id', '=', 'wish-session-1')
        .execute();
      return found.length > 0 ? found : undefined;
    });
    // The recorder drops the second, identical action of the same session within its duplicate window.
    expect(actions).toEqual([
      {
        session_id: 'wish-session-1',
        product_code: code,
        client_code: client.clientCode,
        action_type: 'ADD_TO_WISHLIST',
        store_code: 'WEB',
      },
    ]);
  });

  it('refuses unknown, hidden, inactive and other-store products with 404, and nothing is stored', async () => {
    for (const productId of [999_999, p.hidden, p.inactive, p.otherStore]) {
      const response = await add(other, productId!);
      expect(response.statusCode, `${productId}`).toBe(404);
      expect(response.json()).toMatchObject({ message: expect.any(String) });
    }
    expect(await list(other).then((r) => r.headers['x-pagination-total-count'])).toBe('0');
  });

  it('answers bad input with a 4xx in the documented shape, never a 500', async () => {
    const cases: Array<[unknown, number]> = [
      [{}, 422],
      [{ productId: '12' }, 422],
      [{ productId: 0 }, 422],
      [{ productId: -1 }, 422],
      [{ productId: 1.5 }, 422],
      [{ productId: 1e30 }, 422],
      [[], 400],
    ];
    for (const [body, status] of cases) {
      const response = await call('POST', '/wishlist', client, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.body).not.toMatch(/at .*\.ts/);
    }
    const text = await t.app.inject({
      method: 'POST',
      url: '/wishlist',
      headers: { authorization: `Bearer ${client.token}`, 'content-type': 'text/plain' },
      payload: 'productId=1',
    });
    expect(text.statusCode).toBe(415);
    const broken = await t.app.inject({
      method: 'POST',
      url: '/wishlist',
      headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json' },
      payload: '{"productId":',
    });
    expect(broken.statusCode).toBe(400);
    for (const url of ['/wishlist/abc', '/wishlist/0', '/wishlist/99999999999999999999']) {
      expect((await call('DELETE', url, client)).statusCode, url).toBe(400);
    }
    for (const query of ['?page=0', '?page=x', '?per-page=0']) {
      expect((await list(client, query)).statusCode, query).toBe(400);
    }
  });
});

describe('reading', () => {
  it("shows each item exactly as the catalogue's product list shows it to the same caller, newest first", async () => {
    for (const productId of [p.first, p.second, p.third]) expect([200, 201]).toContain((await add(wholesale, productId!)).statusCode);
    const response = await list(wholesale);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const items = response.json() as Array<{ product: { id: number; price: number } }>;
    expect(ids(response)).toEqual([p.third, p.second, p.first]);
    const catalogue = await t.app.inject({ url: '/product?per-page=100', headers: { authorization: `Bearer ${wholesale.token}` } });
    const cards = new Map((catalogue.json() as Array<{ id: number }>).map((card) => [card.id, card]));
    for (const item of items) expect(item.product).toEqual(cards.get(item.product.id));
    // The wholesale price, not the shop price: pricing's price for this caller.
    expect(items.find((item) => item.product.id === p.second)!.product.price).not.toBe(12.5);
    expect(items.find((item) => item.product.id === p.third)!.product).toMatchObject({ availability: 'TEMPORARILY_OUT_OF_STOCK' });
  });

  it('pages with the X-Pagination headers and Link', async () => {
    const response = await list(wholesale, '?per-page=2&page=2');
    expect(ids(response)).toEqual([p.first]);
    expect(response.headers).toMatchObject({
      'x-pagination-current-page': '2',
      'x-pagination-page-count': '2',
      'x-pagination-per-page': '2',
      'x-pagination-total-count': '3',
    });
    expect(response.headers.link).toContain('rel="prev"');
  });

  it('leaves out a product hidden after it was added, without an error, and shows it again when it is back', async () => {
    const db = t.database.db;
    const fresh = await createProduct(db, { name: 'Varsti peidus' });
    expect((await add(other, fresh)).statusCode).toBe(201);
    expect((await add(other, p.first)).statusCode).toBe(201);
    await db.updateTable('product').set({ hidden_web: true }).where('id', '=', fresh).execute();
    const hidden = await list(other);
    expect(hidden.statusCode).toBe(200);
    expect(ids(hidden)).toEqual([p.first]);
    expect(hidden.headers['x-pagination-total-count']).toBe('1');
    await db.updateTable('product').set({ is_active: false, hidden_web: false }).where('id', '=', fresh).execute();
    expect(ids(await list(other))).toEqual([p.first]);
    await db.updateTable('product').set({ is_active: true }).where('id', '=', fresh).execute();
    expect(ids(await list(other))).toEqual([p.first, fresh]);
  });

  it('orders items added in the same millisecond by the order they were added in, the later first', async () => {
    const someone = await createCustomer(t.database.db);
    const at = Date.UTC(2026, 0, 2);
    // Rows straight to the table: three adds within one millisecond, then one a millisecond later.
    for (const [i, productId] of [p.second, p.first, p.third].entries()) {
      await t.database.db
        .insertInto('wishlist_item')
        .values({
          client_account_id: someone.clientAccountId,
          store_code: 'WEB',
          product_id: productId!,
          created_at: at + (i === 2 ? 1 : 0),
        })
        .execute();
    }
    const response = await list(someone);
    expect(ids(response)).toEqual([p.third, p.first, p.second]);
    expect((response.json() as Array<{ addedAt: string }>).map((item) => item.addedAt)).toEqual([
      '2026-01-02T00:00:00.001Z',
      '2026-01-02T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
    ]);
  });

  it("keeps clients apart: one client's list and deletes never touch another's", async () => {
    const mine = ids(await list(client));
    expect(mine).toEqual([p.first]);
    expect(ids(await list(other))).not.toEqual(mine);
    // Another client's DELETE of my product removes nothing of mine.
    expect((await call('DELETE', `/wishlist/${p.first}`, wholesale)).statusCode).toBe(204);
    expect(ids(await list(client))).toEqual([p.first]);
  });
});

describe('removing', () => {
  it('answers 204 whether or not the product was on the list (idempotent)', async () => {
    expect((await call('DELETE', `/wishlist/${p.first}`, client)).statusCode).toBe(204);
    expect(ids(await list(client))).toEqual([]);
    const again = await call('DELETE', `/wishlist/${p.first}`, client);
    expect(again.statusCode).toBe(204);
    expect(again.body).toBe('');
    expect((await call('DELETE', '/wishlist/999999', client)).statusCode).toBe(204);
  });
});

// Last: its 499 filler products would crowd the catalogue list the reading tests compare with.
describe('the cap', () => {
  it('caps a wishlist at MAX_WISHLIST_ITEMS products (422), and a product already on it still answers 200', async () => {
    const full = await createCustomer(t.database.db);
    const now = Date.now();
    // Straight to the table: MAX - 1 items of one product family, then one more by HTTP fills it.
    const filler: number[] = [];
    for (let i = 0; i < MAX_WISHLIST_ITEMS - 1; i += 1) filler.push(await createProduct(t.database.db, { name: `Täide ${i}` }));
    await t.database.db
      .insertInto('wishlist_item')
      .values(
        filler.map((product_id, i) => ({ client_account_id: full.clientAccountId, store_code: 'WEB', product_id, created_at: now + i })),
      )
      .execute();
    expect((await add(full, p.first)).statusCode).toBe(201);
    const refused = await add(full, p.second);
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual([{ field: 'productId', message: expect.stringMatching(/500/) }]);
    expect((await add(full, p.first)).statusCode).toBe(200);
    expect((await list(full)).headers['x-pagination-total-count']).toBe(String(MAX_WISHLIST_ITEMS));
  }, 60_000);
});

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
