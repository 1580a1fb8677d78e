import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPLIER_BODY_LIMIT_BYTES } from '../../src/modules/integrations/index.js';
import { addSupplier, rotateSupplierSecret, setSupplierEnabled } from '../../src/modules/integrations/suppliers.service.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { backOfficeImport, book, ndjson, postFeed } from './helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// Suppliers push stock, prices and products, signed with their secret, limited to their own products.

let t: TestApp;
let secret: string;
let otherSecret: string;
beforeAll(async () => {
  t = await createTestApp({ env: { SUPPLIER_RATE_LIMIT: '1000/1m' } });
  secret = await addSupplier(t.database.db, 'ACME', 'Acme Books', Date.now());
  otherSecret = await addSupplier(t.database.db, 'OTHER', 'Other Books', Date.now());
  // The back office's own products and a shop.
  await backOfficeImport(t, 'products', [book('BO-1'), book('BO-2')]);
  await backOfficeImport(t, 'shops', [{ code: 'WAREHOUSE', names: { et: 'Ladu' }, city: 'Tallinn', webStock: true }]);
});
afterAll(() => t.close());

const products = (codes: string[]) =>
  t.database.db
    .selectFrom('product as p')
    .leftJoin('supplier as s', 's.id', 'p.supplier_id')
    .select(['p.code', 'p.is_active', 's.code as supplier', 'p.shop_price_cents', 'p.web_stock'])
    .where('p.code', 'in', codes)
    .orderBy('p.code')
    .execute();

describe('POST /integration/supplier/{code}/{kind}', () => {
  it("imports a signed products feed; the products it creates are the supplier's", async () => {
    const response = await postFeed(t, 'ACME', 'products', ndjson([book('A-1'), book('A-2'), book('A-3'), book('A-4')]), secret);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ lines: 4, outcomes: { created: 4 }, errors: [], errorCount: 0 });
    const rows = await products(['A-1', 'A-4', 'BO-1']);
    expect(rows.map((row) => [row.code, row.supplier])).toEqual([
      ['A-1', 'ACME'],
      ['A-4', 'ACME'],
      ['BO-1', null],
    ]);
  });

  it("refuses lines about the back office's or another supplier's products as bad lines", async () => {
    const response = await postFeed(t, 'OTHER', 'products', ndjson([book('A-1', { name: 'Stolen' }), book('O-1')]), otherSecret);
    expect(response.json()).toMatchObject({ outcomes: { created: 1 }, errorCount: 1 });
    expect(response.json().errors[0]).toEqual({ line: 1, message: expect.stringContaining('not one of this supplier') });
    const stock = await postFeed(
      t,
      'ACME',
      'stock',
      ndjson([
        { product: 'A-1', shop: 'WAREHOUSE', quantity: 7 },
        { product: 'BO-1', shop: 'WAREHOUSE', quantity: 3 },
      ]),
      secret,
    );
    expect(stock.json()).toMatchObject({ outcomes: { created: 1 }, errorCount: 1 });
    const prices = await postFeed(
      t,
      'ACME',
      'prices',
      ndjson([
        { product: 'A-2', shopPrice: 12.5 },
        { product: 'O-1', shopPrice: 1 },
        { product: 'A-2', company: '10000001', price: 5 },
      ]),
      secret,
    );
    expect(prices.json()).toMatchObject({ outcomes: { updated: 1 }, errorCount: 2 });
    const rows = await products(['A-1', 'A-2', 'BO-1', 'O-1']);
    expect(rows.map((row) => [row.code, row.shop_price_cents, row.web_stock])).toEqual([
      ['A-1', 990, 7],
      ['A-2', 1250, 0],
      ['BO-1', 990, 0],
      ['O-1', 990, 0],
    ]);
  });

  it("refuses a products feed that would deactivate more than half of the supplier's active products; half is allowed", async () => {
    const refused = await postFeed(t, 'ACME', 'products', ndjson([book('A-1')]), secret);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain('deactivate 3 of the 4 active products');
    expect((await products(['A-2', 'A-3', 'A-4'])).every((row) => Boolean(row.is_active))).toBe(true);

    const half = await postFeed(t, 'ACME', 'products', ndjson([book('A-1'), book('A-2')]), secret);
    expect(half.statusCode, half.body).toBe(200);
    expect(half.json().outcomes).toMatchObject({ deactivated: 2 });
    const rows = await products(['A-1', 'A-2', 'A-3', 'A-4', 'BO-1', 'BO-2', 'O-1']);
    // Only the supplier's own unlisted products: the back office's and the other supplier's stay.
    expect(rows.filter((row) => !row.is_active).map((row) => row.code)).toEqual(['A-3', 'A-4']);
  });

  it("leaves the suppliers' products alone when the back office's full feed does not list them", async () => {
    const summary = await backOfficeImport(t, 'products', [book('BO-1'), book('BO-2')]);
    expect(summary.outcomes.deactivated ?? 0).toBe(0);
    expect((await products(['A-1', 'O-1'])).every((row) => Boolean(row.is_active))).toBe(true);
  });

  it('refuses a bad signature, a missing one, another supplier secret and an unknown supplier with 401, writing nothing', async () => {
    const body = ndjson([{ product: 'A-1', shop: 'WAREHOUSE', quantity: 99 }]);
    const wrong = await postFeed(t, 'ACME', 'stock', body, otherSecret);
    expectErrorBody(wrong, 401, 'Unauthorized');
    expect(wrong.headers['www-authenticate']).toContain('HMAC-SHA256');
    expectErrorBody(await postFeed(t, 'ACME', 'stock', body, secret, { signature: 'nope' }), 401, 'Unauthorized');
    expectErrorBody(await postFeed(t, 'ACME', 'stock', body, secret, { signature: 'A'.repeat(64) }), 401, 'Unauthorized');
    // A signature of another body (the body was changed on the way).
    const tampered = await postFeed(t, 'ACME', 'stock', body.replace('99', '98'), secret, {
      signature: (await import('../../src/modules/integrations/index.js')).signText(secret, String(Math.floor(Date.now() / 1000)), body),
    });
    expectErrorBody(tampered, 401, 'Unauthorized');
    expectErrorBody(await postFeed(t, 'NOBODY', 'stock', body, secret), 401, 'Unauthorized');
    // Codes no supplier can have, as an unknown one (a NUL character failed the lookup on PostgreSQL: a 500).
    for (const code of ['AC%00ME', encodeURIComponent('ÄCME 📚'), 'A'.repeat(41)]) {
      expectErrorBody(await postFeed(t, code, 'stock', body, secret), 401, 'Unauthorized');
    }
    const noHeaders = await t.app.inject({
      method: 'POST',
      url: '/integration/supplier/ACME/stock',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: body,
    });
    expectErrorBody(noHeaders, 401, 'Unauthorized');
    expect((await products(['A-1']))[0]!.web_stock).toBe(7);
  });

  it('refuses a timestamp older than 5 minutes or too far ahead, and the same signed request sent again', async () => {
    const body = ndjson([{ product: 'A-1', shop: 'WAREHOUSE', quantity: 8 }]);
    const now = Math.floor(Date.now() / 1000);
    const old = await postFeed(t, 'ACME', 'stock', body, secret, { timestampSeconds: now - 301 });
    expectErrorBody(old, 401, 'Unauthorized');
    expect(old.json().message).toContain('5 minutes old');
    const ahead = await postFeed(t, 'ACME', 'stock', body, secret, { timestampSeconds: now + 120 });
    expect(ahead.json().message).toContain('in the future');
    expect(ahead.statusCode).toBe(401);
    const fresh = await postFeed(t, 'ACME', 'stock', body, secret, { timestampSeconds: now - 200 });
    expect(fresh.statusCode, fresh.body).toBe(200);
    const replayed = await postFeed(t, 'ACME', 'stock', body, secret, { timestampSeconds: now - 200 });
    expectErrorBody(replayed, 409, 'Conflict');
    expect(replayed.json().message).toContain('received before');
    expect((await products(['A-1']))[0]!.web_stock).toBe(8);
  });

  it('answers 404 for an unknown feed, 415 for another type, 413 over the size limit', async () => {
    expectErrorBody(await postFeed(t, 'ACME', 'campaigns', '{}', secret), 404, 'Not Found');
    expectErrorBody(
      await postFeed(t, 'ACME', 'stock', '{}', secret, { headers: { 'content-type': 'application/json' } }),
      415,
      'Unsupported Media Type',
    );
    const big = 'x'.repeat(SUPPLIER_BODY_LIMIT_BYTES + 10);
    expectErrorBody(await postFeed(t, 'ACME', 'stock', big, secret), 413, 'Payload Too Large');
  });

  it("the kill switch refuses the supplier's feeds with 403 until it is enabled again; a rotated secret replaces the old", async () => {
    const body = ndjson([{ product: 'A-1', shop: 'WAREHOUSE', quantity: 5 }]);
    await setSupplierEnabled(t.database.db, 'ACME', false, Date.now());
    expectErrorBody(await postFeed(t, 'ACME', 'stock', body, secret), 403, 'Forbidden');
    expect((await products(['A-1']))[0]!.web_stock).toBe(8);
    await setSupplierEnabled(t.database.db, 'ACME', true, Date.now());
    const rotated = await rotateSupplierSecret(t.database.db, 'ACME', Date.now());
    expectErrorBody(await postFeed(t, 'ACME', 'stock', body, secret), 401, 'Unauthorized');
    expect((await postFeed(t, 'ACME', 'stock', body, rotated)).statusCode).toBe(200);
    expect((await products(['A-1']))[0]!.web_stock).toBe(5);
  });

  it("checks an e-book's physicalBook with the type a later line of the same feed gives it", async () => {
    const physSecret = await addSupplier(t.database.db, 'PHYS', 'Phys Books', Date.now());
    const feed = (lines: unknown[]) => postFeed(t, 'PHYS', 'products', ndjson(lines), physSecret);
    const ebook = (code: string, physicalBook: string) => book(code, { type: 'EBOOK', physicalBook });
    expect((await feed([book('P-BOOK'), book('P-EBOOK', { type: 'EBOOK' })])).json().errors).toEqual([]);
    const response = await feed([ebook('P-E1', 'P-BOOK'), ebook('P-E2', 'P-EBOOK'), book('P-BOOK', { type: 'EBOOK' }), book('P-EBOOK')]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([
      {
        line: 1,
        message: '/physicalBook: product "P-BOOK" is of type EBOOK, not a physical book (BOOK), so the product is not linked to it',
      },
    ]);
    const linked = await t.database.db
      .selectFrom('product as p')
      .leftJoin('product as b', 'b.id', 'p.physical_book_id')
      .select(['p.code', 'b.code as physicalBook'])
      .where('p.code', 'in', ['P-E1', 'P-E2'])
      .orderBy('p.code')
      .execute();
    expect(linked).toEqual([
      { code: 'P-E1', physicalBook: null },
      { code: 'P-E2', physicalBook: 'P-EBOOK' },
    ]);
  });
  it("refuses a feed line that makes the supplier's BOOK something else while the back office's e-books are linked to it", async () => {
    const retypeSecret = await addSupplier(t.database.db, 'RETYPE', 'Retype Books', Date.now());
    const feed = (lines: unknown[]) => postFeed(t, 'RETYPE', 'products', ndjson(lines), retypeSecret);
    const ebook = (code: string, physicalBook: string) => book(code, { type: 'EBOOK', physicalBook });
    expect((await feed([book('Q-BOOK'), book('Q-OTHER'), ebook('Q-E1', 'Q-BOOK')])).json().errors).toEqual([]);
    // The back office links an e-book of its own to the supplier's BOOK; the feed cannot relink it.
    const office = await backOfficeImport(t, 'products', [book('BO-1'), book('BO-2'), ebook('BO-E1', 'Q-BOOK')]);
    expect(office.reported).toEqual([]);
    const response = await feed([book('Q-BOOK', { type: 'USED_BOOK' }), book('Q-OTHER'), ebook('Q-E1', 'Q-OTHER')]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([
      {
        line: 1,
        message:
          '/type: product "Q-BOOK" is the physical book (BOOK) of "BO-E1", and no accepted line of this file changes their physicalBook; ' +
          'link them to another book (or to none) first, or keep its type BOOK',
      },
    ]);
    // Once the back office links it elsewhere, the feed retypes its BOOK (its own e-book relinked by a later line).
    await backOfficeImport(t, 'products', [book('BO-1'), book('BO-2'), ebook('BO-E1', 'BO-1')]);
    await feed([ebook('Q-E1', 'Q-BOOK'), book('Q-OTHER'), book('Q-BOOK')]);
    // (Another order than the refused body's, which the feed would take for a replay.)
    const retyped = await feed([book('Q-OTHER'), book('Q-BOOK', { type: 'USED_BOOK' }), ebook('Q-E1', 'Q-OTHER')]);
    expect(retyped.json()).toMatchObject({ outcomes: { updated: 2, unchanged: 1 }, errorCount: 0 });
    const linked = await t.database.db
      .selectFrom('product as p')
      .leftJoin('product as b', 'b.id', 'p.physical_book_id')
      .select(['p.code', 'p.type', 'b.code as physicalBook'])
      .where('p.code', 'in', ['Q-BOOK', 'Q-E1', 'BO-E1'])
      .orderBy('p.code')
      .execute();
    expect(linked).toEqual([
      { code: 'BO-E1', type: 'EBOOK', physicalBook: 'BO-1' },
      { code: 'Q-BOOK', type: 'USED_BOOK', physicalBook: null },
      { code: 'Q-E1', type: 'EBOOK', physicalBook: 'Q-OTHER' },
    ]);
  });

  it("refuses a feed while another import of its kind runs, saying when a crashed one's lock lapses, in the caller's language", async () => {
    const db = t.database.db;
    const now = Math.floor(Date.now() / 1000) * 1000;
    const lapses = new Date(now + 45_000).toISOString().replace('.000', '');
    const lockedSecret = await addSupplier(db, 'LOCKED', 'Locked Books', Date.now());
    // A supplier's feed holds the lock of its kind for that supplier (supplier-feeds.ts).
    const { id } = await db.selectFrom('supplier').select('id').where('code', '=', 'LOCKED').executeTakeFirstOrThrow();
    const kind = `stock@supplier-${id}`;
    await db
      .insertInto('import_lock')
      .values({ kind, owner: 'crashed', started_at: now - 15_000, expires_at: now + 45_000 })
      .execute();
    try {
      const response = await postFeed(t, 'LOCKED', 'stock', ndjson([{ product: 'L-1', shop: 'WAREHOUSE', quantity: 1 }]), lockedSecret, {
        headers: { 'x-app-language': 'et' },
      });
      const { message } = expectErrorBody(response, 409, 'Conflict');
      expect(message).toContain(`Import keelduti: liigi ${kind} import käib alates `);
      expect(message).toContain(`pärast ${lapses}, kui selle lukk aegub`);
    } finally {
      await db.deleteFrom('import_lock').where('kind', '=', kind).execute();
    }
  });
});

describe('the rate limit per supplier', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ env: { SUPPLIER_RATE_LIMIT: '2/1h' } });
  });
  afterAll(() => limited.close());

  it('answers 429 with Retry-After past the limit, counted per supplier', async () => {
    const one = await addSupplier(limited.database.db, 'ONE', 'One', Date.now());
    const two = await addSupplier(limited.database.db, 'TWO', 'Two', Date.now());
    const body = (n: number) => ndjson([{ product: `X-${n}`, shop: 'NONE', quantity: 1 }]);
    expect((await postFeed(limited, 'ONE', 'stock', body(1), one)).statusCode).toBe(200);
    expect((await postFeed(limited, 'ONE', 'stock', body(2), one)).statusCode).toBe(200);
    const third = await postFeed(limited, 'ONE', 'stock', body(3), one);
    expectErrorBody(third, 429, 'Too Many Requests');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect((await postFeed(limited, 'TWO', 'stock', body(4), two)).statusCode).toBe(200);
  });

  it("counts a supplier's requests only once signed: nobody else can use up its hour", async () => {
    const three = await addSupplier(limited.database.db, 'THREE', 'Three', Date.now());
    const body = (n: number) => ndjson([{ product: `Y-${n}`, shop: 'NONE', quantity: 1 }]);
    for (let n = 0; n < 4; n += 1) {
      expectErrorBody(await postFeed(limited, 'THREE', 'stock', body(n), 'not-the-secret'), 401, 'Unauthorized');
    }
    expect((await postFeed(limited, 'THREE', 'stock', body(5), three)).statusCode).toBe(200);
    expect((await postFeed(limited, 'THREE', 'stock', body(6), three)).statusCode).toBe(200);
    expectErrorBody(await postFeed(limited, 'THREE', 'stock', body(7), three), 429, 'Too Many Requests');
  });

  it('answers a known and an unknown supplier code alike until the signature is checked, a disabled one too', async () => {
    await addSupplier(limited.database.db, 'FOUR', 'Four', Date.now());
    await setSupplierEnabled(limited.database.db, 'FOUR', false, Date.now());
    const body = ndjson([{ product: 'Z-1', shop: 'NONE', quantity: 1 }]);
    const noTimestamp = { headers: { 'x-timestamp': '' } };
    for (const [kind, options] of [
      ['stock', noTimestamp],
      ['bogus', {}],
      ['stock', {}],
    ] as const) {
      const known = await postFeed(limited, 'FOUR', kind, body, 'not-the-secret', options);
      const unknown = await postFeed(limited, 'NOBODY', kind, body, 'not-the-secret', options);
      expect(known.statusCode, `${kind} ${known.body}`).toBe(unknown.statusCode);
      expect(known.json()).toEqual(unknown.json());
    }
  });
});

describe('the rate limit per client address', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ env: { SUPPLIER_RATE_LIMIT_PER_IP: '3/1h' } });
  });
  afterAll(() => limited.close());

  it('counts every request from one address, signed or not, before anything else', async () => {
    const secret = await addSupplier(limited.database.db, 'ONE', 'One', Date.now());
    const body = (n: number) => ndjson([{ product: `X-${n}`, shop: 'NONE', quantity: 1 }]);
    const from = (n: number, ip: string, key = secret) => postFeed(limited, 'ONE', 'stock', body(n), key, { remoteAddress: ip });
    expect((await from(1, '198.51.100.20', 'wrong')).statusCode).toBe(401);
    expect((await from(2, '198.51.100.20', 'wrong')).statusCode).toBe(401);
    expect((await from(3, '198.51.100.20')).statusCode).toBe(200);
    const refused = await from(4, '198.51.100.20');
    expectErrorBody(refused, 429, 'Too Many Requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await from(5, '198.51.100.21')).statusCode).toBe(200);
  });
});
