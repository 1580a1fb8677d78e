import { expect } from 'vitest';
import { importLines } from '../basket/import-helpers.js';
import { call, type Who } from '../basket/helpers.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { reserveLoopbackPort } from '../helpers/loopback.js';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/test-app.js';

// A shop to buy from: a web warehouse with stock, delivery methods, and the checkout form.

export interface Shop {
  shopId: number;
  methods: Record<'COURIER' | 'SHOP', number>;
}

export async function setUpShop(t: TestApp): Promise<Shop> {
  const shopId = await createShop(t.database.db, { code: 'TLN1', name: 'Viru Keskus' });
  const imported = await importLines(t, 'delivery-methods', [
    {
      code: 'COURIER',
      kind: 'COURIER',
      names: { et: 'Kuller', en: 'Courier' },
      prices: [
        { store: 'WEB', price: 5.9 },
        { store: 'WEB2', price: 6.9 },
      ],
      daysMin: 1,
      daysMax: 2,
      position: 1,
    },
    {
      code: 'SHOP',
      kind: 'SHOP_PICKUP',
      names: { et: 'Poodi' },
      prices: [{ store: 'WEB', price: 0 }],
      shops: ['TLN1'],
      daysMin: 2,
      daysMax: 4,
      position: 2,
    },
  ]);
  expect(imported.statusCode, imported.body).toBe(200);
  const rows = await t.database.db.selectFrom('delivery_method').select(['id', 'code']).execute();
  const methods = Object.fromEntries(rows.map((row) => [row.code, Number(row.id)])) as Shop['methods'];
  return { shopId, methods };
}

/** A book that ships only from stock, with `stock` copies in the web warehouse. */
export async function stockedBook(t: TestApp, shop: Shop, stock: number, price = 20): Promise<number> {
  const id = await createProduct(t.database.db, { price, name: `Book ${Math.random().toString(36).slice(2, 7)}` });
  await setStock(t.database.db, id, shop.shopId, stock);
  return id;
}

export function checkoutForm(shop: Shop, overrides: Record<string, unknown> = {}) {
  return checkoutFormWith(shop.methods.COURIER, overrides);
}

/** A checkout form of Mari Maasikas in Tallinn, by the test gateway, with this delivery method. */
export function checkoutFormWith(deliveryMethodId: number, overrides: Record<string, unknown> = {}) {
  const contact = (prefix: string) => ({
    [`${prefix}Name`]: 'Mari Maasikas',
    [`${prefix}Email`]: 'mari@example.ee',
    [`${prefix}Phone`]: '+372 5555 1234',
    [`${prefix}Address`]: 'Pikk 1',
    [`${prefix}City`]: 'Tallinn',
    [`${prefix}Postcode`]: '10123',
    [`${prefix}CountryNavCode`]: 'EE',
  });
  return {
    ...contact('shipping'),
    ...contact('billing'),
    deliveryMethodId,
    paymentMethodId: 'TEST_GATEWAY',
    notes: '',
    termsAccepted: true,
    newsletterSubscription: false,
    ...overrides,
  };
}

/** Adds products to a basket (a guest's when `who` has no bearer: the token is filled in). */
export async function fill(t: TestApp, who: Who, lines: Array<[number, number]>): Promise<Who> {
  for (const [productId, quantity] of lines) {
    const response = await call(t, 'POST', '/basket/add-product', who, { productId, quantity });
    expect(response.statusCode, response.body).toBe(200);
    if (!who.bearer && !who.token) who = { ...who, token: response.headers['basket-token'] as string };
  }
  return who;
}

export function checkout(t: TestApp, who: Who, body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/checkout',
    headers: {
      ...(who.token ? { 'basket-token': who.token } : {}),
      ...(who.bearer ? { authorization: `Bearer ${who.bearer}` } : {}),
      ...(who.store ? { store: who.store } : {}),
      ...headers,
    },
    remoteAddress: who.ip,
    payload: body as object,
  });
}

/** The order id and checksum of a checkout answer's location. */
export function orderLink(location: string): { orderId: number; checksum: string; path: string } {
  const url = new URL(location);
  expect(url.pathname).toBe('/bank/create-form');
  return {
    orderId: Number(url.searchParams.get('orderId')),
    checksum: url.searchParams.get('checksum')!,
    path: `${url.pathname}${url.search}`,
  };
}

/** An app listening on a real loopback port, with PUBLIC_URL pointing at it (gateways call it back). */
export async function createListeningApp(options: TestAppOptions = {}): Promise<{ t: TestApp; origin: string }> {
  const reserved = await reserveLoopbackPort();
  let t: TestApp | undefined;
  try {
    t = await createTestApp({ ...options, env: { TEST_GATEWAY: 'on', PUBLIC_URL: reserved.origin, ...options.env } });
    await t.app.listen(reserved.listenOptions);
    return { t, origin: reserved.origin };
  } catch (error) {
    await t?.close();
    await reserved.release();
    throw error;
  }
}

export { call };
