import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, basketOf, call, read, type Who } from './helpers.js';

// Every basket endpoint through HTTP, for guests (basket-token) and clients (bearer): the guest
// token's life, the answer's headers, the writes and their If-Match, and who may touch a basket.

let t: TestApp;
let shop: number;
const p = {} as Record<'book' | 'other' | 'third', number>;
let client: TestCustomer;
let otherClient: TestCustomer;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  shop = await createShop(db);
  p.book = await createProduct(db, { name: 'Book', price: 12.5 });
  p.other = await createProduct(db, { name: 'Other', price: 7.99 });
  p.third = await createProduct(db, { name: 'Third', price: 3 });
  for (const id of Object.values(p)) await setStock(db, id, shop, 50);
  client = await createCustomer(db);
  otherClient = await createCustomer(db);
});
afterAll(() => t.close());

const basketCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('basket')
        .select(({ fn }) => fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('a guest basket', () => {
  it('is empty and not created by a read, and gets a token on its first write (header and body)', async () => {
    const before = await basketCount();
    const empty = await read(t, {});
    expect(empty).toMatchObject({ id: null, version: null, basketToken: null, itemCount: 0, items: [], total: 0, currency: 'EUR' });
    expect(await basketCount()).toBe(before);
    const response = await call(t, 'POST', '/basket/add-product', {}, { productId: p.book, quantity: 2 });
    const basket = basketOf(response);
    expect(response.headers['basket-token']).toBe(basket.basketToken);
    expect(basket.basketToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(basket).toMatchObject({ itemCount: 2, subtotal: 25, total: 25, discountAmount: 0, deliveryCost: 0, vatIncluded: true });
    expect(basket.items[0]).toMatchObject({
      productId: p.book,
      name: 'Book',
      quantity: 2,
      unitPrice: 12.5,
      lineTotal: 25,
      available: true,
      notice: null,
    });
    // The token is stored hashed only.
    const stored = await t.database.db.selectFrom('basket').select('token_hash').where('id', '=', basket.id!).executeTakeFirstOrThrow();
    expect(stored.token_hash).not.toBe(basket.basketToken);
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is found again by its token, and an unknown token starts a new basket with a new token', async () => {
    const first = await add(t, {}, p.book);
    const again = await read(t, { token: first.basketToken! });
    expect([again.id, again.itemCount, again.basketToken]).toEqual([first.id, 1, first.basketToken]);
    const unknown = 'A'.repeat(43);
    expect((await read(t, { token: unknown })).id).toBeNull();
    const fresh = await add(t, { token: unknown }, p.other);
    expect(fresh.id).not.toBe(first.id);
    expect(fresh.basketToken).not.toBe(unknown);
    expect(fresh.items.map((item) => item.productId)).toEqual([p.other]);
  });

  it('refuses a malformed token with a 400 and changes nothing', async () => {
    const before = await basketCount();
    for (const token of ['short', 'x'.repeat(44), 'bad token with spaces and more characters ok', '!'.repeat(43)]) {
      expectErrorBody(await call(t, 'POST', '/basket/add-product', { token }, { productId: p.book, quantity: 1 }), 400, 'Bad Request');
      expectErrorBody(await call(t, 'GET', '/basket', { token }), 400, 'Bad Request');
    }
    expect(await basketCount()).toBe(before);
  });

  it('is a basket of one store: its token finds nothing in the other store', async () => {
    const web = await add(t, {}, p.book);
    expect((await read(t, { token: web.basketToken!, store: 'WEB2' })).id).toBeNull();
  });
});

describe('the writes', () => {
  it('add, change quantity, remove, clear: each a new version, totals and badge follow', async () => {
    const a = await add(t, {}, p.book, 1);
    const who: Who = { token: a.basketToken! };
    const b = await add(t, who, p.book, 2);
    expect(b.items).toHaveLength(1);
    expect(b.items[0]!.quantity).toBe(3);
    expect(b.version).not.toBe(a.version);
    const c = await add(t, who, p.other, 1);
    expect(c.items.map((item) => item.productId)).toEqual([p.book, p.other]);
    expect(c.total).toBe(45.49);
    const totals = await call(t, 'GET', '/basket/totals', who);
    expect(totals.statusCode).toBe(200);
    expect(totals.headers['cache-control']).toBe('no-store');
    expect(totals.json()).toEqual({ itemCount: 4, total: 45.49, currency: 'EUR' });
    const d = basketOf(await call(t, 'PUT', '/basket/change-quantity', who, { productId: p.book, quantity: 1 }));
    expect(d.items.find((item) => item.productId === p.book)!.quantity).toBe(1);
    const e = basketOf(await call(t, 'PUT', '/basket/change-quantity', who, { productId: p.book, quantity: 0 }));
    expect(e.items.map((item) => item.productId)).toEqual([p.other]);
    const f = basketOf(await call(t, 'DELETE', `/basket/remove-product?productId=${p.other}`, who));
    expect(f.items).toEqual([]);
    await add(t, who, p.third, 3);
    const g = basketOf(await call(t, 'DELETE', '/basket/clear', who));
    expect([g.items, g.itemCount, g.total, g.id]).toEqual([[], 0, 0, a.id]);
    const versions = new Set([a, b, c, d, e, f, g].map((basket) => basket.version));
    expect(versions.size).toBe(7);
  });

  it('answers 404 for a product that is not in the basket, changing nothing', async () => {
    const a = await add(t, {}, p.book);
    const who = { token: a.basketToken! };
    expectErrorBody(await call(t, 'DELETE', `/basket/remove-product?productId=${p.other}`, who), 404, 'Not Found');
    expectErrorBody(await call(t, 'PUT', '/basket/change-quantity', who, { productId: p.other, quantity: 2 }), 404, 'Not Found');
    expect((await read(t, who)).version).toBe(a.version);
  });

  it('clears nothing and makes no basket when there is none', async () => {
    const before = await basketCount();
    const cleared = basketOf(await call(t, 'DELETE', '/basket/clear', {}));
    expect([cleared.id, cleared.basketToken]).toEqual([null, null]);
    expect(await basketCount()).toBe(before);
  });

  it('refuses a write with a stale If-Match (412) and takes a current one, quoted or not', async () => {
    const a = await add(t, {}, p.book);
    const who = { token: a.basketToken! };
    const b = await add(t, { ...who, ifMatch: `"${a.version}"` }, p.book);
    expect(b.items[0]!.quantity).toBe(2);
    const stale = await call(t, 'POST', '/basket/add-product', { ...who, ifMatch: `"${a.version}"` }, { productId: p.book, quantity: 1 });
    expectErrorBody(stale, 412, 'Precondition Failed');
    for (const [method, url, body] of [
      ['PUT', '/basket/change-quantity', { productId: p.book, quantity: 5 }],
      ['DELETE', `/basket/remove-product?productId=${p.book}`, undefined],
      ['DELETE', '/basket/clear', undefined],
      ['DELETE', '/basket/remove-discount', undefined],
    ] as const) {
      expectErrorBody(await call(t, method, url, { ...who, ifMatch: a.version! }, body), 412, 'Precondition Failed');
    }
    const now = await read(t, who);
    expect([now.version, now.items[0]!.quantity]).toEqual([b.version, 2]);
    expect((await add(t, { ...who, ifMatch: b.version! }, p.book)).items[0]!.quantity).toBe(3);
    // A stale If-Match on a write that would create a basket creates none.
    const before = await basketCount();
    expectErrorBody(
      await call(t, 'POST', '/basket/add-product', { ifMatch: '"1-1"' }, { productId: p.book, quantity: 1 }),
      412,
      'Precondition Failed',
    );
    expect(await basketCount()).toBe(before);
  });

  it('records ADD_TO_BASKET for the session, under the client code for a client', async () => {
    await add(t, { session: 'sess-guest-1' }, p.third);
    await add(t, { bearer: client.token, session: 'sess-client-1' }, p.third);
    const code = (await t.database.db.selectFrom('product').select('code').where('id', '=', p.third).executeTakeFirstOrThrow()).code;
    // The recorder writes in batches a moment later.
    const rows = await waitFor(async () => {
      const found = await t.database.db
        .selectFrom('session_action')
        .select(['session_id', 'product_code', 'client_code', 'action_type', 'store_code'])
        .where('session_id', 'in', ['sess-guest-1', 'sess-client-1'])
        .orderBy('session_id')
        .execute();
      return found.length === 2 ? found : undefined;
    });
    expect(rows).toEqual([
      { session_id: 'sess-client-1', product_code: code, client_code: client.clientCode, action_type: 'ADD_TO_BASKET', store_code: 'WEB' },
      { session_id: 'sess-guest-1', product_code: code, client_code: null, action_type: 'ADD_TO_BASKET', store_code: 'WEB' },
    ]);
  });
});

describe('clients and guests never share a basket', () => {
  it("keeps a client's basket per account and store, and ignores a guest token sent with a bearer token", async () => {
    const client = await createCustomer(t.database.db);
    const guest = await add(t, {}, p.book, 4);
    const mine = await add(t, { bearer: client.token, token: guest.basketToken! }, p.other, 1);
    expect(mine.basketToken).toBeNull();
    expect(mine.items.map((item) => [item.productId, item.quantity])).toEqual([[p.other, 1]]);
    // The guest basket is untouched, and the client's is found by the bearer token alone.
    expect((await read(t, { token: guest.basketToken! })).items.map((item) => item.quantity)).toEqual([4]);
    const again = await read(t, { bearer: client.token });
    expect([again.id, again.basketToken]).toEqual([mine.id, null]);
    // Reading with a guest token and a bearer token still answers the client's basket, never the guest's.
    expect((await read(t, { bearer: client.token, token: guest.basketToken! })).id).toBe(mine.id);
  });

  it("gives a second customer their own basket: the first one's is out of reach", async () => {
    const client = await createCustomer(t.database.db);
    const first = await add(t, { bearer: client.token }, p.third, 2);
    const second = await read(t, { bearer: otherClient.token });
    expect(second.id).not.toBe(first.id);
    expect(second.items).toEqual([]);
    // Every write of the second client lands in the second basket, even with the first's version.
    expectErrorBody(
      await call(t, 'DELETE', `/basket/remove-product?productId=${p.third}`, { bearer: otherClient.token }),
      404,
      'Not Found',
    );
    expectErrorBody(
      await call(
        t,
        'POST',
        '/basket/add-product',
        { bearer: otherClient.token, ifMatch: first.version! },
        { productId: p.third, quantity: 1 },
      ),
      412,
      'Precondition Failed',
    );
    basketOf(await call(t, 'DELETE', '/basket/clear', { bearer: otherClient.token }));
    const after = await read(t, { bearer: client.token });
    expect([after.version, after.items.find((item) => item.productId === p.third)?.quantity]).toEqual([first.version, 2]);
  });

  it('refuses a bad, expired or other-store bearer token with a 401 and changes nothing', async () => {
    const before = await basketCount();
    expectErrorBody(
      await call(t, 'POST', '/basket/add-product', { bearer: 'A'.repeat(43) }, { productId: p.book, quantity: 1 }),
      401,
      'Unauthorized',
    );
    expectErrorBody(await call(t, 'GET', '/basket', { bearer: client.token, store: 'WEB2' }), 401, 'Unauthorized');
    expect(await basketCount()).toBe(before);
  });
});

describe('bad input', () => {
  it('is a 4xx with nothing changed, whatever the body', async () => {
    const a = await add(t, {}, p.book);
    const who = { token: a.basketToken! };
    const bodies: unknown[] = [
      { productId: p.book, quantity: 0 },
      { productId: p.book, quantity: -1 },
      { productId: p.book, quantity: 1000 },
      { productId: p.book, quantity: 1e20 },
      { productId: p.book, quantity: 1.5 },
      { productId: p.book, quantity: '2' },
      { productId: String(p.book), quantity: 1 },
      { productId: -4, quantity: 1 },
      { productId: 1e300, quantity: 1 },
      { productId: p.book },
      { quantity: 1 },
      { productId: null, quantity: null },
      { productId: 99_999_999, quantity: 1 },
    ];
    for (const body of bodies) {
      const response = await call(t, 'POST', '/basket/add-product', who, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(response.headers['cache-control']).toBe('no-store');
    }
    expect(expectFieldErrors(await call(t, 'POST', '/basket/add-product', who, { productId: 99_999_999, quantity: 1 }))).toEqual([
      'productId',
    ]);
    for (const payload of ['[]', '"text"', '{"productId": 1, "quantity": ']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/basket/add-product',
        headers: { 'basket-token': who.token, 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode, payload).toBe(400);
    }
    for (const query of ['productId=abc', 'productId=-1', 'productId=', '']) {
      expect((await call(t, 'DELETE', `/basket/remove-product?${query}`, who)).statusCode, query).toBe(400);
    }
    for (const body of [{ productId: p.book, quantity: -1 }, { productId: p.book, quantity: 1000 }, { productId: p.book }]) {
      expect((await call(t, 'PUT', '/basket/change-quantity', who, body)).statusCode).toBe(422);
    }
    const after = await read(t, who);
    expect([after.version, after.items.map((item) => [item.productId, item.quantity])]).toEqual([a.version, [[p.book, 1]]]);
    // A price in the body is not the client's to set: it is dropped, and the basket prices as always.
    const priced = await add(t, who, p.book, 1);
    expect(priced.items[0]).toMatchObject({ quantity: 2, unitPrice: 12.5 });
  });
});

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
