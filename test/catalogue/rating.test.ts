import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import {
  auth,
  clientAccountOf,
  companyClientToken,
  countRows,
  getRating,
  postComment,
  rate,
  ratingTotals,
  unrate,
} from '../helpers/catalogue-comments.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';

let t: AccountsTestApp;
const ids: Record<string, number> = {};
const clients: string[] = [];
let business: string;

beforeAll(async () => {
  t = await createAccountsTestApp();
  const db = t.database.db;
  ids.book = await createProduct(db, { code: 'R-BOOK', name: 'Rehepapp' });
  ids.race = await createProduct(db, { code: 'R-RACE', name: 'Võidujooks' });
  ids.crowd = await createProduct(db, { code: 'R-CROWD', name: 'Rahvamass' });
  ids.inactive = await createProduct(db, { code: 'R-GONE', active: false });
  ids.hiddenWeb = await createProduct(db, { code: 'R-B2B', hiddenWeb: true });
  ids.hiddenBusiness = await createProduct(db, { code: 'R-RETAIL', hiddenBusiness: true });
  ids.outlet = await createProduct(db, { code: 'R-OUT', stores: ['WEB2'] });
  for (let i = 0; i < 4; i += 1) clients.push(await registerVerified(t, uniqueEmail(`rater${i}`)));
  business = await companyClientToken(db);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function expectConsistent(productId: number) {
  const totals = await ratingTotals(t.database.db, productId);
  expect(totals.stored).toEqual(totals.actual);
  return totals.actual;
}

describe('PUT /product/:id/rating', () => {
  it('sets, replaces and averages ratings, one per client, with the product totals kept', async () => {
    const [a, b, c] = clients as [string, string, string];
    const first = await rate(t, a, ids.book!, { rating: 5 });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ average: 5, count: 1, own: 5 });
    expect((await rate(t, a, ids.book!, { rating: 3 })).json()).toEqual({ average: 3, count: 1, own: 3 });
    expect((await rate(t, b, ids.book!, { rating: 4 })).json()).toEqual({ average: 3.5, count: 2, own: 4 });
    expect((await rate(t, c, ids.book!, { rating: 4 })).json()).toEqual({ average: 3.7, count: 3, own: 4 });
    expect(await expectConsistent(ids.book!)).toEqual({ sum: 11, count: 3 });
    const rows = await t.database.db.selectFrom('product_rating').selectAll().where('product_id', '=', ids.book!).execute();
    const accounts = await Promise.all([a, b, c].map((token) => clientAccountOf(t.database.db, token)));
    expect(rows.map((row) => row.client_account_id).sort()).toEqual(accounts.sort());
  });

  it('shows the new totals on the product card and details', async () => {
    const details = await t.app.inject({ method: 'GET', url: `/product/${ids.book}`, headers: { store: 'WEB' } });
    expect(details.json().rating).toEqual({ average: 3.7, count: 3 });
    const list = await t.app.inject({ method: 'GET', url: '/product?per-page=100', headers: { store: 'WEB' } });
    const card = list.json().find((p: { id: number }) => p.id === ids.book);
    expect(card.rating).toEqual({ average: 3.7, count: 3 });
  });

  it('lets business clients rate products of the business catalogue', async () => {
    const response = await rate(t, business, ids.hiddenWeb!, { rating: 2 });
    expect(response.json()).toEqual({ average: 2, count: 1, own: 2 });
    expectErrorBody(await rate(t, business, ids.hiddenBusiness!, { rating: 2 }), 404, 'Not Found');
  });

  it('refuses bad ratings, bodies, ids, tokens and products, and changes nothing', async () => {
    const db = t.database.db;
    const [a] = clients as [string];
    const before = { rows: await countRows(db, 'product_rating'), totals: await ratingTotals(db, ids.book!) };
    const cases: unknown[] = [
      {},
      { rating: 0 },
      { rating: 6 },
      { rating: -1 },
      { rating: 2.5 },
      { rating: '5' },
      { rating: null },
      { rating: true },
      { rating: [5] },
      { stars: 5 },
    ];
    for (const payload of cases)
      expect(expectFieldErrors(await rate(t, a, ids.book!, payload)), JSON.stringify(payload)).toEqual(['rating']);
    const message = (await rate(t, a, ids.book!, { rating: 6 }, { 'x-app-language': 'en' })).json();
    expect(message).toEqual([{ field: 'rating', message: 'rating must be no greater than 5.' }]);
    expectErrorBody(await rate(t, a, ids.book!, [5]), 400, 'Bad Request');
    expectErrorBody(await rate(t, a, ids.book!, undefined), 400, 'Bad Request');
    const raw = (payload: string, contentType = 'application/json') =>
      t.app.inject({ method: 'PUT', url: `/product/${ids.book}/rating`, headers: auth(a, { 'content-type': contentType }), payload });
    expectErrorBody(await raw('{"rating": '), 400, 'Bad Request');
    expectErrorBody(await raw('5', 'text/plain'), 415, 'Unsupported Media Type');
    expectErrorBody(await raw(`{"rating": 5, "pad": "${'x'.repeat(1024 * 1024)}"}`), 413, 'Payload Too Large');
    for (const id of ['abc', '1.5', '0', '-2', '1e3x']) expectErrorBody(await rate(t, a, id, { rating: 5 }), 400, 'Bad Request');
    for (const id of [999_999, ids.inactive!, ids.hiddenWeb!, ids.outlet!])
      expectErrorBody(await rate(t, a, id, { rating: 5 }), 404, 'Not Found');
    expectErrorBody(await rate(t, undefined, ids.book!, { rating: 5 }), 401, 'Unauthorized');
    expectErrorBody(await rate(t, 'A'.repeat(43), ids.book!, { rating: 5 }), 401, 'Unauthorized');
    expectErrorBody(await rate(t, undefined, ids.book!, { rating: 5 }, { authorization: 'Token abc' }), 401, 'Unauthorized');
    expect(await countRows(db, 'product_rating')).toBe(before.rows);
    expect(await ratingTotals(db, ids.book!)).toEqual(before.totals);
  });
});

describe('GET and DELETE /product/:id/rating', () => {
  it('gives a guest the totals without an own rating, cacheably', async () => {
    const guest = await getRating(t, undefined, ids.book!);
    expect(guest.statusCode, guest.body).toBe(200);
    expect(guest.json()).toEqual({ average: 3.7, count: 3, own: null });
    expect(guest.headers['cache-control']).toBe('public, max-age=60');
    const etag = guest.headers.etag as string;
    expect((await getRating(t, undefined, ids.book!, { 'if-none-match': etag })).statusCode).toBe(304);
  });

  it('gives a client their own rating, revalidated on each use; a business client without caching', async () => {
    const [a, , , d] = clients as [string, string, string, string];
    const own = await getRating(t, a, ids.book!);
    expect(own.json()).toEqual({ average: 3.7, count: 3, own: 3 });
    expect(own.headers['cache-control']).toBe('private, no-cache');
    expect((await getRating(t, d, ids.book!)).json()).toEqual({ average: 3.7, count: 3, own: null });
    const company = await getRating(t, business, ids.hiddenWeb!);
    expect(company.json()).toEqual({ average: 2, count: 1, own: 2 });
    expect(company.headers['cache-control']).toBe('no-store');
  });

  it('is a 404 for invisible products, 400 for bad ids and 401 for a bad token', async () => {
    for (const id of [999_999, ids.inactive!, ids.hiddenWeb!, ids.outlet!])
      expectErrorBody(await getRating(t, undefined, id), 404, 'Not Found');
    expectErrorBody(await getRating(t, undefined, 'x'), 400, 'Bad Request');
    expectErrorBody(await getRating(t, 'A'.repeat(43), ids.book!), 401, 'Unauthorized');
  });

  it("removes the caller's rating and answers the totals without it; again is harmless", async () => {
    const [a] = clients as [string];
    const removed = await unrate(t, a, ids.book!);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toEqual({ average: 4, count: 2, own: null });
    expect(await expectConsistent(ids.book!)).toEqual({ sum: 8, count: 2 });
    expect((await unrate(t, a, ids.book!)).json()).toEqual({ average: 4, count: 2, own: null });
    const product = await t.app.inject({ method: 'GET', url: `/product/${ids.book}`, headers: { store: 'WEB' } });
    expect(product.json().rating).toEqual({ average: 4, count: 2 });
  });

  it('needs a token, integer ids and a visible product to delete', async () => {
    const [, b] = clients as [string, string];
    expectErrorBody(await unrate(t, undefined, ids.book!), 401, 'Unauthorized');
    expectErrorBody(await unrate(t, b, 'abc'), 400, 'Bad Request');
    expectErrorBody(await unrate(t, b, ids.hiddenWeb!), 404, 'Not Found');
    expectErrorBody(await unrate(t, business, ids.hiddenBusiness!), 404, 'Not Found');
    const stillThere = await t.database.db
      .selectFrom('product_rating')
      .select('rating')
      .where('product_id', '=', ids.book!)
      .where('client_account_id', '=', await clientAccountOf(t.database.db, b))
      .executeTakeFirst();
    expect(stillThere?.rating).toBe(4);
  });
});

describe('concurrent ratings', () => {
  it('leaves one row and consistent totals when one client rates twice at once', async () => {
    const [a] = clients as [string];
    const answers = await Promise.all([rate(t, a, ids.race!, { rating: 1 }), rate(t, a, ids.race!, { rating: 5 })]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
    const rows = await t.database.db.selectFrom('product_rating').select('rating').where('product_id', '=', ids.race!).execute();
    expect(rows).toHaveLength(1);
    expect(await expectConsistent(ids.race!)).toEqual({ sum: rows[0]!.rating, count: 1 });
    // Many repeats of the same race, mixed with removals, still end consistent.
    const mixed = await Promise.all([
      rate(t, a, ids.race!, { rating: 2 }),
      unrate(t, a, ids.race!),
      rate(t, a, ids.race!, { rating: 4 }),
      postComment(t, a, ids.race!, { body: 'Kiire', rating: 3 }),
      unrate(t, a, ids.race!),
    ]);
    expect(mixed.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 201]);
    const after = await expectConsistent(ids.race!);
    expect(after.count).toBeLessThanOrEqual(1);
  });

  it('counts every client when many rate the same product at once', async () => {
    const raters = [...clients, business];
    const stars = [1, 2, 3, 4, 5];
    const answers = await Promise.all(
      raters.map((token, i) =>
        i % 2 === 0
          ? rate(t, token, ids.crowd!, { rating: stars[i] })
          : postComment(t, token, ids.crowd!, { body: 'Hinne', rating: stars[i] }),
      ),
    );
    expect(answers.every((r) => r.statusCode === 200 || r.statusCode === 201)).toBe(true);
    expect(await expectConsistent(ids.crowd!)).toEqual({ sum: 15, count: 5 });
    expect((await getRating(t, undefined, ids.crowd!)).json()).toEqual({ average: 3, count: 5, own: null });
  });
});
