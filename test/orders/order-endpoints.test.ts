import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { add, basketOf, call, read, type BasketAnswer, type Who } from '../basket/helpers.js';
import { importLines } from '../basket/import-helpers.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { payOnTestGateway } from './purchase-helpers.js';

// The customer's order endpoints: GET /order, GET /order/{code}, POST /order/{code}/repeat and
// GET /bought-product. Orders are made through the real flow: the basket, POST /checkout (cash on
// delivery by courier), and GET /bank/create-form, which makes such an order PENDING_PROCESSING (paid);
// the one with an e-book, never paid at the parcel's hand-over, is paid on the test gateway's page.

let t: TestApp;
const p = {} as Record<'book' | 'atlas' | 'ebook', number>;
let courierId: number;
let alice: Who & { clientAccountId: number };
let bob: Who;
interface Placed {
  id: number;
  code: string;
  checksum: string;
}
const orders = {} as Record<'first' | 'second' | 'unpaid' | 'guest', Placed>;
const en = { 'x-app-language': 'en' };

const contact = {
  shippingName: 'Mari Maasikas',
  shippingEmail: 'mari@example.ee',
  shippingPhone: '+372 5555 5555',
  shippingAddress: 'Rüütli 2',
  shippingCity: 'Tartu',
  shippingPostcode: '51007',
  shippingCountryNavCode: 'EE',
  billingName: 'Mari Maasikas',
  billingEmail: 'mari@example.ee',
  billingPhone: '+372 5555 5555',
  billingAddress: 'Rüütli 2',
  billingCity: 'Tartu',
  billingPostcode: '51007',
  billingCountryNavCode: 'EE',
};

/**
 * Fills the basket and checks out: cash on delivery whose payment link (opened) marks the order paid,
 * the test gateway paid on its page, or cash on delivery left unpaid.
 */
async function placeOrder(who: Who, items: Array<[number, number]>, how: 'cash' | 'gateway' | 'unpaid' = 'cash'): Promise<Placed> {
  let basket: BasketAnswer | undefined;
  for (const [productId, quantity] of items)
    basket = await add(t, { ...who, token: basket?.basketToken ?? who.token }, productId, quantity);
  const buyer = { ...who, token: basket?.basketToken ?? undefined };
  const checkout = await call(t, 'POST', '/checkout', buyer, {
    ...contact,
    deliveryMethodId: courierId,
    paymentMethodId: how === 'gateway' ? 'TEST_GATEWAY' : 'CASH_ON_DELIVERY',
    termsAccepted: true,
  });
  expect(checkout.statusCode, checkout.body).toBe(200);
  const location = new URL((checkout.json() as { location: string }).location);
  const id = Number(location.searchParams.get('orderId'));
  const checksum = location.searchParams.get('checksum')!;
  if (how === 'gateway') await payOnTestGateway(t, `${location.pathname}${location.search}`);
  if (how === 'cash') {
    const form = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}` });
    expect(form.statusCode, form.body).toBe(200);
  }
  const row = await t.database.db.selectFrom('customer_order').select(['code', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
  expect(row.status).toBe(how === 'unpaid' ? 'NEW' : 'PENDING_PROCESSING');
  return { id, code: row.code!, checksum };
}

function get(url: string, who: Who = {}, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'GET',
    url,
    headers: { ...headers, ...(who.bearer ? { authorization: `Bearer ${who.bearer}` } : {}), ...(who.store ? { store: who.store } : {}) },
  });
}

function repeat(code: string, who: Who, checksum?: string) {
  const query = checksum === undefined ? '' : `?checksum=${checksum}`;
  const headers: Record<string, string> = { ...en };
  if (who.bearer) headers.authorization = `Bearer ${who.bearer}`;
  if (who.token) headers['basket-token'] = who.token;
  return t.app.inject({ method: 'POST', url: `/order/${code}/repeat${query}`, headers });
}

beforeAll(async () => {
  // The test gateway's callback goes nowhere (the discard port): the shopper's return settles the payment.
  t = await createTestApp({ env: { TEST_GATEWAY: 'on', PUBLIC_URL: 'http://127.0.0.1:9' } });
  const db = t.database.db;
  const shop = await createShop(db, { code: 'TRT1', name: 'Tasku', city: 'Tartu' });
  p.book = await createProduct(db, { name: 'Kevade', price: 12 });
  p.atlas = await createProduct(db, { name: 'Atlas', price: 30 });
  p.ebook = await createProduct(db, {
    name: 'Kevade (e-raamat)',
    type: 'EBOOK',
    binding: 'EPUB',
    deliveryTime: 'INSTANT_DOWNLOAD',
    price: 8,
  });
  for (const id of [p.book, p.atlas]) await setStock(db, id, shop, 20);
  const methods = await importLines(t, 'delivery-methods', [
    {
      code: 'COURIER',
      kind: 'COURIER',
      names: { et: 'Kuller' },
      prices: [{ store: 'WEB', price: 5.9 }],
      daysMin: 1,
      daysMax: 2,
      position: 1,
    },
  ]);
  expect(methods.statusCode, methods.body).toBe(200);
  courierId = Number((await db.selectFrom('delivery_method').select('id').where('code', '=', 'COURIER').executeTakeFirstOrThrow()).id);
  const a = await createCustomer(db);
  alice = { bearer: a.token, clientAccountId: a.clientAccountId };
  bob = { bearer: (await createCustomer(db)).token };
  orders.first = await placeOrder(
    alice,
    [
      [p.book, 2],
      [p.ebook, 1],
    ],
    'gateway',
  );
  orders.second = await placeOrder(alice, [[p.atlas, 1]]);
  orders.unpaid = await placeOrder(alice, [[p.book, 1]], 'unpaid');
  orders.guest = await placeOrder({}, [[p.atlas, 3]]);
});

afterAll(async () => {
  await t?.close();
});

describe('GET /order', () => {
  it("lists the client's orders newest first, paged with X-Pagination-* and Link, item counts summed", async () => {
    const first = await get('/order?per-page=2', alice);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.headers['x-pagination-total-count']).toBe('3');
    expect(first.headers['x-pagination-page-count']).toBe('2');
    expect(first.headers['x-pagination-per-page']).toBe('2');
    expect(first.headers['x-pagination-current-page']).toBe('1');
    expect(first.headers.link).toContain('page=2&per-page=2>; rel="next"');
    expect((first.json() as Array<{ code: string }>).map((order) => order.code)).toEqual([orders.unpaid.code, orders.second.code]);
    expect(first.json()[0]).toMatchObject({
      status: 'NEW',
      itemCount: 1,
      giftCardAmount: 0,
      total: 17.9,
      paymentMethodId: 'CASH_ON_DELIVERY',
    });

    const second = await get('/order?page=2&per-page=2', alice);
    expect(second.json()).toEqual([expect.objectContaining({ code: orders.first.code, status: 'PENDING_PROCESSING', itemCount: 3 })]);
    expect(second.headers.link).toContain('page=1&per-page=2>; rel="prev"');
  });

  it('shows another client none of them, and a guest a 401', async () => {
    const other = await get('/order', bob);
    expect(other.json()).toEqual([]);
    expect(other.headers['x-pagination-total-count']).toBe('0');
    const guest = await get('/order', {}, en);
    expectErrorBody(guest, 401, 'Unauthorized');
    expect(guest.headers['cache-control']).toBe('no-store');
  });

  it('refuses a bad page with a 400', async () => {
    for (const query of ['page=0', 'page=abc', 'per-page=0', 'page=-1']) {
      expectErrorBody(await get(`/order?${query}`, alice), 400, 'Bad Request');
    }
  });
});

describe('GET /order/{code}', () => {
  it('gives the client its own order with lines, delivery, payment and history', async () => {
    const response = await get(`/order/${orders.first.code}`, alice);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const order = response.json();
    expect(order).toMatchObject({ code: orders.first.code, status: 'PENDING_PROCESSING', delivery: { code: 'COURIER' } });
    expect(order.lines.map((line: { productId: number; quantity: number }) => [line.productId, line.quantity])).toEqual([
      [p.book, 2],
      [p.ebook, 1],
    ]);
    expect(order.statusHistory.map((change: { status: string }) => change.status)).toEqual([
      'NEW',
      'PENDING_PAYMENT',
      'PENDING_PROCESSING',
    ]);
  });

  it("is a 404 for another client's order, the same as an unknown one", async () => {
    const other = await get(`/order/${orders.first.code}`, bob, en);
    expectErrorBody(other, 404, 'Not Found');
    const unknown = await get('/order/WT99999999', bob, en);
    expect(unknown.json()).toEqual(other.json());
  });

  it("lets a guest (or anybody) read it with the order id's checksum; a wrong or missing one is a 404", async () => {
    const guest = await get(`/order/${orders.guest.code}?checksum=${orders.guest.checksum}`);
    expect(guest.statusCode, guest.body).toBe(200);
    expect(guest.json()).toMatchObject({ code: orders.guest.code, lines: [{ productId: p.atlas, quantity: 3 }] });
    expect((await get(`/order/${orders.guest.code}?checksum=${orders.guest.checksum}`, bob)).statusCode).toBe(200);
    // Another order's checksum, a made-up one, none at all.
    expectErrorBody(await get(`/order/${orders.guest.code}?checksum=${orders.first.checksum}`), 404, 'Not Found');
    expectErrorBody(await get(`/order/${orders.guest.code}?checksum=${'0'.repeat(64)}`), 404, 'Not Found');
    expectErrorBody(await get(`/order/${orders.guest.code}?checksum=nonsense`), 404, 'Not Found');
    expectErrorBody(await get(`/order/${orders.guest.code}`), 404, 'Not Found');
  });

  it('is a 404 in another store and a 400 for a malformed code or checksum', async () => {
    // A client's token is for its own store (401 elsewhere); the link of a WEB order does not open it in WEB2.
    expectErrorBody(await get(`/order/${orders.guest.code}?checksum=${orders.guest.checksum}`, { store: 'WEB2' }), 404, 'Not Found');
    expectErrorBody(await get('/order/not-a-code', alice), 400, 'Bad Request');
    expectErrorBody(await get(`/order/WT${'1'.repeat(30)}`, alice), 400, 'Bad Request');
    expectErrorBody(await get(`/order/${orders.first.code}?checksum=${'a'.repeat(200)}`, alice), 400, 'Bad Request');
  });
});

describe('POST /order/{code}/repeat', () => {
  it('puts the still orderable products back and says which could not be, and why', async () => {
    const db = t.database.db;
    await db.updateTable('product').set({ availability: 'PERMANENTLY_OUT_OF_STOCK' }).where('id', '=', p.book).execute();
    try {
      expect((await read(t, alice)).items).toEqual([]);
      const response = await repeat(orders.first.code, alice);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const { basket, notAdded } = response.json() as { basket: BasketAnswer; notAdded: unknown[] };
      expect(basket.items.map((item) => [item.productId, item.quantity])).toEqual([[p.ebook, 1]]);
      expect(notAdded).toEqual([
        { productId: p.book, productCode: expect.any(String), title: 'Kevade', reason: 'This product cannot be ordered now.' },
      ]);
      expect(response.headers.etag).toBe(`"${basket.version}"`);
      // The answer is the basket as GET /basket gives it.
      expect(await read(t, alice)).toEqual(basket);

      // Again (a double click, a retry): the e-book is there already with its ordered quantity, so it
      // is left as it is and nothing more is added; the answer is the first one's.
      const again = (await repeat(orders.first.code, alice)).json() as {
        basket: BasketAnswer;
        notAdded: Array<{ productId: number; reason: string }>;
      };
      expect(again.basket.items.map((item) => [item.productId, item.quantity])).toEqual([[p.ebook, 1]]);
      expect(again.notAdded).toEqual(notAdded);
    } finally {
      await db.updateTable('product').set({ availability: 'AVAILABLE' }).where('id', '=', p.book).execute();
      basketOf(await call(t, 'DELETE', '/basket/clear', alice));
    }
  });

  it('gives a guest with the checksum a new basket and its basket-token', async () => {
    const response = await repeat(orders.guest.code, {}, orders.guest.checksum);
    expect(response.statusCode, response.body).toBe(200);
    const { basket, notAdded } = response.json() as { basket: BasketAnswer; notAdded: unknown[] };
    expect(notAdded).toEqual([]);
    expect(basket.basketToken).toEqual(expect.any(String));
    expect(response.headers['basket-token']).toBe(basket.basketToken);
    expect((await read(t, { token: basket.basketToken! })).items.map((item) => [item.productId, item.quantity])).toEqual([[p.atlas, 3]]);
  });

  it("is a 404 for another client's order or without a valid checksum, and changes no basket", async () => {
    const basketsBefore = await t.database.db
      .selectFrom('basket')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expectErrorBody(await repeat(orders.first.code, bob), 404, 'Not Found');
    const guest = await repeat(orders.guest.code, {}, '0'.repeat(64));
    expectErrorBody(guest, 404, 'Not Found');
    expect(guest.headers['basket-token']).toBeUndefined();
    expectErrorBody(await repeat(orders.guest.code, {}), 404, 'Not Found');
    expectErrorBody(await repeat('nope', alice), 400, 'Bad Request');
    const basketsAfter = await t.database.db
      .selectFrom('basket')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(basketsAfter.n)).toBe(Number(basketsBefore.n));
    expect((await read(t, bob)).items).toEqual([]);
  });
});

describe('GET /bought-product', () => {
  it('lists the products of paid orders, latest first, with quantities summed and downloads of digital ones', async () => {
    const response = await get('/bought-product', alice);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-pagination-total-count']).toBe('3');
    // The unpaid order's book is not counted: 2, not 3.
    expect(response.json()).toEqual([
      expect.objectContaining({ productId: p.atlas, title: 'Atlas', quantity: 1, orderCode: orders.second.code, download: null }),
      expect.objectContaining({ productId: p.book, type: 'BOOK', quantity: 2, orderCode: orders.first.code, download: null }),
      expect.objectContaining({ productId: p.ebook, type: 'EBOOK', quantity: 1, download: { entitled: false, available: false } }),
    ]);
    expect(response.json()[0].lastBoughtAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('shows an entitlement to download a digital product', async () => {
    await t.database.db
      .insertInto('order_entitlement')
      .values({ order_id: orders.first.id, product_id: p.ebook, client_account_id: alice.clientAccountId, created_at: Date.now() })
      .execute();
    const page = await get('/bought-product?page=2&per-page=2', alice);
    expect(page.headers['x-pagination-page-count']).toBe('2');
    expect(page.headers.link).toContain('rel="prev"');
    expect(page.json()).toEqual([expect.objectContaining({ productId: p.ebook, download: { entitled: true, available: false } })]);
  });

  it('is empty for a client who bought nothing, a 401 for a guest and a 400 for a bad page', async () => {
    const other = await get('/bought-product', bob);
    expect(other.json()).toEqual([]);
    expect(other.headers['x-pagination-total-count']).toBe('0');
    expectErrorBody(await get('/bought-product'), 401, 'Unauthorized');
    expectErrorBody(await get('/bought-product?page=x', alice), 400, 'Bad Request');
  });
});
