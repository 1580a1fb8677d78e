import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// Back-in-stock requests through HTTP: who may ask for what, idempotent repeats, a client's own
// list and deletes (another client's id is a 404), bad input, and the per-address rate limits.

let t: TestApp;
let client: TestCustomer;
let other: TestCustomer;
const p = {} as Record<'soldOut' | 'available' | 'comingSoon' | 'hidden' | 'otherStore' | 'digital', number>;

beforeAll(async () => {
  t = await createTestApp({ env: { BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h', BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '1000/1h' } });
  const db = t.database.db;
  client = await createCustomer(db);
  other = await createCustomer(db);
  p.soldOut = await createProduct(db, { name: 'Läbi müüdud', availability: 'TEMPORARILY_OUT_OF_STOCK' });
  // No web stock: a printed book with availability AVAILABLE but nothing to sell is not available now.
  p.available = await createProduct(db, { name: 'E-raamat', type: 'EBOOK', deliveryTime: 'INSTANT_DOWNLOAD' });
  p.comingSoon = await createProduct(db, { name: 'Tulekul', availability: 'COMING_SOON' });
  p.hidden = await createProduct(db, { name: 'Peidus', hiddenWeb: true, availability: 'TEMPORARILY_OUT_OF_STOCK' });
  p.otherStore = await createProduct(db, { name: 'Mujal', stores: ['WEB2'], availability: 'TEMPORARILY_OUT_OF_STOCK' });
  p.digital = p.available;
});
afterAll(() => t.close());

function call(method: 'GET' | 'POST' | 'DELETE', url: string, who?: TestCustomer, body?: unknown, headers: Record<string, string> = {}) {
  const all = { ...headers, ...(who ? { authorization: `Bearer ${who.token}` } : {}) };
  return t.app.inject({ method, url, headers: all, ...(body === undefined ? {} : { payload: body as object }) });
}
const ask = (body: unknown, who?: TestCustomer, headers?: Record<string, string>) => call('POST', '/back-in-stock', who, body, headers);

/** A guest's answer without its expiry (now + 14 days on the real clock, so a few ms apart). */
function sameButExpiry(answer: unknown) {
  const { expiresAt, ...rest } = answer as { expiresAt: string };
  expect(Math.abs(Date.parse(expiresAt) - Date.now() - 14 * 86_400_000)).toBeLessThan(60_000);
  return rest;
}

function clientAddress(who: TestCustomer): Promise<string> {
  return emailOf(t.database.db, who);
}

describe('POST /back-in-stock', () => {
  it('takes a guest request with an email, once: 202 twice with the same answer, one row, no-store', async () => {
    const first = await ask({ productId: p.soldOut, email: 'Guest.One@Example.EE' });
    expect(first.statusCode, first.body).toBe(202);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.json()).toEqual({ productId: p.soldOut, email: 'guest.one@example.ee', expiresAt: expect.any(String) });
    const again = await ask({ productId: p.soldOut, email: 'guest.one@example.ee' });
    expect(again.statusCode).toBe(202);
    expect(sameButExpiry(again.json())).toEqual(sameButExpiry(first.json()));
    const rows = await t.database.db.selectFrom('back_in_stock_request').selectAll().where('email', '=', 'guest.one@example.ee').execute();
    expect(rows).toHaveLength(1);
  });

  it("tells a guest nothing of the address's earlier requests: a client's or a notified one answers as a new one", async () => {
    const email = (await clientAddress(other)).toUpperCase();
    const fresh = await ask({ productId: p.comingSoon, email: 'nobody.asked@example.ee' });
    expect((await ask({ productId: p.comingSoon }, other)).statusCode).toBe(201);
    const db = t.database.db;
    await db.updateTable('back_in_stock_request').set({ notified_at: 1 }).where('client_account_id', '=', other.clientAccountId).execute();
    const guess = await ask({ productId: p.comingSoon, email });
    expect(guess.statusCode).toBe(202);
    expect(sameButExpiry(guess.json())).toEqual({ ...sameButExpiry(fresh.json()), email: email.toLowerCase() });
    // Still the client's request, listed as theirs and as it was: a guest's ask for the address is not
    // its owner's until confirmed, and a client's own request is theirs to re-arm (opt-in.test.ts).
    const listed = (await call('GET', '/back-in-stock', other)).json() as Array<{ productId: number; notifiedAt: string | null }>;
    expect(listed).toEqual([expect.objectContaining({ productId: p.comingSoon, notifiedAt: expect.any(String) })]);
    await db.deleteFrom('back_in_stock_request').where('client_account_id', '=', other.clientAccountId).execute();
  });

  it("requires a guest's email (422) and tells a client at its own address (another address is a 422)", async () => {
    const missing = await ask({ productId: p.soldOut });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual([{ field: 'email', message: expect.any(String) }]);
    const own = await ask({ productId: p.soldOut }, client);
    expect(own.statusCode).toBe(201);
    const email = await clientAddress(client);
    expect(own.json()).toMatchObject({ email, notifiedAt: null });
    const body = own.json() as { createdAt: string; expiresAt: string };
    expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(14 * 86_400_000);
    const again = await ask({ productId: p.soldOut }, client);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ id: (own.json() as { id: number }).id });
    expect((await ask({ productId: p.comingSoon, email: email.toUpperCase() }, client)).statusCode).toBe(201);
    const foreign = await ask({ productId: p.soldOut, email: 'somebody.else@example.ee' }, client);
    expect(foreign.statusCode).toBe(422);
  });

  it("refuses a guest's address at a reserved domain as registration does (422 on email), storing and counting nothing", async () => {
    const rows = () => t.database.db.selectFrom('back_in_stock_request').select('id').execute();
    const limits = () => t.database.db.selectFrom('rate_limit').select('key').execute();
    for (const email of ['mari@example.com', 'mari@shop.example.net', 'mari@mail.test', 'facebook.1@users.invalid']) {
      const before = [await rows(), await limits()];
      const response = await ask({ productId: p.soldOut, email }, undefined, { 'x-app-language': 'en' });
      expect(response.statusCode, email).toBe(422);
      expect(response.json()).toEqual([
        { field: 'email', message: 'This email address cannot be used; enter an address you receive mail at.' },
      ]);
      expect([await rows(), await limits()]).toEqual(before);
    }
    expect((await ask({ productId: p.soldOut, email: 'mari@example.org' }, undefined, { 'x-app-language': 'ru' })).json()).toEqual([
      { field: 'email', message: 'Этот адрес электронной почты нельзя использовать; укажите адрес, на который вы получаете письма.' },
    ]);
    expect((await ask({ productId: p.soldOut, email: 'mari@examples.org' })).statusCode).toBe(202);
  });

  it('refuses a product that is available now (409), and unknown, hidden or other-store products (404)', async () => {
    const available = await ask({ productId: p.available, email: 'a@example.ee' });
    expect(available.statusCode).toBe(409);
    expect(available.json()).toMatchObject({ message: expect.any(String) });
    for (const productId of [999_999, p.hidden, p.otherStore]) {
      expect((await ask({ productId, email: 'a@example.ee' })).statusCode, `${productId}`).toBe(404);
    }
  });

  it('answers bad input with a 4xx, never a 500', async () => {
    const cases: unknown[] = [
      {},
      { productId: 'x', email: 'a@example.ee' },
      { productId: 0, email: 'a@example.ee' },
      { productId: p.soldOut, email: 'not an email' },
      { productId: p.soldOut, email: 5 },
      { productId: p.soldOut, email: `${'a'.repeat(250)}@example.ee` },
      [],
      'text',
    ];
    for (const body of cases) {
      const response = await ask(body);
      expect(response.statusCode, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, JSON.stringify(body)).toBeLessThan(500);
    }
    for (const url of ['/back-in-stock/abc', '/back-in-stock/0', '/back-in-stock/1e40']) {
      expect((await call('DELETE', url, client)).statusCode, url).toBe(400);
    }
  });
});

describe("a client's requests", () => {
  it('needs a bearer token for GET and DELETE (401)', async () => {
    const guest = await call('GET', '/back-in-stock');
    expect(guest.statusCode).toBe(401);
    // A 401 names the scheme a client should send (RFC 9110), as the token check's own 401 does.
    expect(guest.headers['www-authenticate']).toBe('Bearer realm="storefront"');
    expect((await call('DELETE', '/back-in-stock/1')).statusCode).toBe(401);
  });

  it('lists its own live requests newest first, paged, with the product', async () => {
    const response = await call('GET', '/back-in-stock', client);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-pagination-total-count']).toBe('2');
    const items = response.json() as Array<{ productId: number; productName: string }>;
    expect(items.map((item) => item.productId)).toEqual([p.comingSoon, p.soldOut]);
    expect(items[1]).toMatchObject({ productName: 'Läbi müüdud' });
    expect((await call('GET', '/back-in-stock', other)).json()).toEqual([]);
  });

  it("answers 404 to another client's id and to an unknown one, and deletes its own once", async () => {
    const mine = (await call('GET', '/back-in-stock', client)).json() as Array<{ id: number }>;
    const id = mine[0]!.id;
    expect((await call('DELETE', `/back-in-stock/${id}`, other)).statusCode).toBe(404);
    const guestRow = await t.database.db
      .selectFrom('back_in_stock_request')
      .select('id')
      .where('email', '=', 'guest.one@example.ee')
      .executeTakeFirstOrThrow();
    expect((await call('DELETE', `/back-in-stock/${guestRow.id}`, client)).statusCode).toBe(404);
    expect((await call('DELETE', '/back-in-stock/999999', client)).statusCode).toBe(404);
    expect((await call('GET', '/back-in-stock', client)).headers['x-pagination-total-count']).toBe('2');
    expect((await call('DELETE', `/back-in-stock/${id}`, client)).statusCode).toBe(204);
    expect((await call('DELETE', `/back-in-stock/${id}`, client)).statusCode).toBe(404);
    expect((await call('GET', '/back-in-stock', client)).headers['x-pagination-total-count']).toBe('1');
  });

  it('leaves out requests past their 14 days', async () => {
    await t.database.db
      .updateTable('back_in_stock_request')
      .set({ expires_at: Date.now() - 1 })
      .where('client_account_id', '=', client.clientAccountId)
      .execute();
    const response = await call('GET', '/back-in-stock', client);
    expect(response.json()).toEqual([]);
    expect(response.headers['x-pagination-total-count']).toBe('0');
  });
});

describe('rate limits', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ env: { BACK_IN_STOCK_RATE_LIMIT_PER_IP: '3/1h', BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '2/1h' } });
  });
  afterAll(() => limited.close());

  const askOn = (body: object, ip: string) =>
    limited.app.inject({ method: 'POST', url: '/back-in-stock', payload: body, remoteAddress: ip });

  it('counts per email address: the third request for one address is a 429 with Retry-After, from any client address', async () => {
    const product = await createProduct(limited.database.db, { availability: 'TEMPORARILY_OUT_OF_STOCK' });
    expect((await askOn({ productId: product, email: 'victim@example.ee' }, '192.0.2.1')).statusCode).toBe(202);
    expect((await askOn({ productId: product, email: 'victim@example.ee' }, '192.0.2.2')).statusCode).toBe(202);
    const refused = await askOn({ productId: product, email: 'Victim@Example.ee' }, '192.0.2.3');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it("counts a logged-in client's requests per account: guests typing its address cannot use them up", async () => {
    const db = limited.database.db;
    const product = await createProduct(db, { availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const other = await createProduct(db, { availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const third = await createProduct(db, { availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const customer = await createCustomer(db);
    const email = await emailOf(db, customer);
    // Someone else asks twice with the client's address, using up what the address may be sent.
    expect((await askOn({ productId: product, email }, '203.0.113.1')).statusCode).toBe(202);
    expect((await askOn({ productId: other, email }, '203.0.113.2')).statusCode).toBe(202);
    expect((await askOn({ productId: third, email }, '203.0.113.3')).statusCode).toBe(429);
    // The client still asks as themselves; its own requests have a limit of their own.
    const asClient = (productId: number, ip: string) =>
      limited.app.inject({
        method: 'POST',
        url: '/back-in-stock',
        payload: { productId },
        headers: { authorization: `Bearer ${customer.token}` },
        remoteAddress: ip,
      });
    const own = await asClient(product, '203.0.113.4');
    expect(own.statusCode, own.body).toBe(200);
    expect((await asClient(other, '203.0.113.5')).statusCode).toBe(200);
    expect((await asClient(third, '203.0.113.6')).statusCode).toBe(429);
  });

  it('counts per client address: the fourth request from one address is a 429, whatever the email', async () => {
    const product = await createProduct(limited.database.db, { availability: 'TEMPORARILY_OUT_OF_STOCK' });
    for (let i = 0; i < 3; i += 1) {
      expect((await askOn({ productId: product, email: `flood${i}@example.ee` }, '198.51.100.7')).statusCode).toBe(202);
    }
    const refused = await askOn({ productId: product, email: 'flood9@example.ee' }, '198.51.100.7');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    // Another address is not affected.
    expect((await askOn({ productId: product, email: 'flood9@example.ee' }, '198.51.100.8')).statusCode).toBe(202);
  });
});
