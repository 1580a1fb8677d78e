import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/infra/tokens.js';
import { createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { COMMENT_RESUBMIT_WINDOW_MS } from '../../src/modules/catalogue/reviews/comment.service.js';
import { createProduct } from '../helpers/catalogue.js';
import {
  auth,
  clientAccountOf,
  companyClientToken,
  countRows,
  deleteComment,
  getRating,
  listComments,
  postComment,
  rate,
  setNamesOf,
} from '../helpers/catalogue-comments.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { MINUTE, keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow(10 * MINUTE);

let t: AccountsTestApp;
const ids: Record<string, number> = {};
let alice: string;
let bob: string;
let business: string;
let outletClient: string;

beforeAll(async () => {
  t = await createAccountsTestApp();
  const db = t.database.db;
  ids.book = await createProduct(t.database.db, { code: 'C-BOOK', name: 'Kevade', stores: ['WEB', 'WEB2'] });
  ids.quiet = await createProduct(db, { code: 'C-QUIET', name: 'Suvi' });
  ids.paging = await createProduct(db, { code: 'C-PAGE', name: 'Sügis' });
  ids.inactive = await createProduct(db, { code: 'C-GONE', active: false });
  ids.hiddenWeb = await createProduct(db, { code: 'C-B2B', hiddenWeb: true });
  ids.hiddenBusiness = await createProduct(db, { code: 'C-RETAIL', hiddenBusiness: true });
  ids.outlet = await createProduct(db, { code: 'C-OUT', stores: ['WEB2'] });
  ids.repeat = await createProduct(db, { code: 'C-AGAIN', name: 'Talv' });
  alice = await registerVerified(t, uniqueEmail('alice'));
  bob = await registerVerified(t, uniqueEmail('bob'));
  outletClient = await registerVerified(t, uniqueEmail('outlet'), 'WEB2');
  business = await companyClientToken(db);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const isoSeconds = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('POST /product/:id/comments', () => {
  it('creates a comment with the author name, trimmed body and request language', async () => {
    const response = await postComment(t, alice, ids.book!, { body: '  Väga hea raamat!\n' }, { 'x-app-language': 'en' });
    expect(response.statusCode, response.body).toBe(201);
    const comment = response.json();
    expect(comment).toEqual({
      id: expect.any(Number),
      authorName: 'Mari M.',
      body: 'Väga hea raamat!',
      language: 'en',
      createdAt: expect.stringMatching(isoSeconds),
      rating: null,
      own: true,
    });
    expect(Math.abs(Date.parse(comment.createdAt) - Date.now())).toBeLessThan(60_000);
    const row = await t.database.db.selectFrom('product_comment').selectAll().where('id', '=', comment.id).executeTakeFirstOrThrow();
    expect(row.client_account_id).toBe(await clientAccountOf(t.database.db, alice));
    expect(row.product_id).toBe(ids.book);
  });

  it("sets the client's rating with the comment, in the same answer and on the product", async () => {
    const response = await postComment(t, bob, ids.book!, { body: 'Hea', rating: 4 });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ rating: 4, own: true, language: 'et' });
    const product = await t.app.inject({ method: 'GET', url: `/product/${ids.book}`, headers: { store: 'WEB' } });
    expect(product.json().rating).toEqual({ average: 4, count: 1 });
    // A second comment with another rating replaces the rating: one per client and product.
    expect((await postComment(t, bob, ids.book!, { body: 'Siiski väga hea', rating: 5 })).statusCode).toBe(201);
    const again = await t.app.inject({ method: 'GET', url: `/product/${ids.book}`, headers: { store: 'WEB' } });
    expect(again.json().rating).toEqual({ average: 5, count: 1 });
  });

  it('takes a body of exactly 2000 characters (counted after trimming, by code point)', async () => {
    const body = `${'ä'.repeat(1999)}😀`;
    const response = await postComment(t, alice, ids.quiet!, { body: `   ${body}   ` });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().body).toBe(body);
  });

  it('names a user without a first name "Anonymous" in the reader\'s language', async () => {
    const nameless = await registerVerified(t, uniqueEmail('nameless'));
    await setNamesOf(t.database.db, nameless, null, 'Kask');
    const created = await postComment(t, nameless, ids.quiet!, { body: 'Nimetu' }, { 'x-app-language': 'en' });
    expect(created.json().authorName).toBe('Anonymous');
    const et = (await listComments(t, undefined, ids.quiet!)).json();
    expect(et.find((c: { id: number }) => c.id === created.json().id).authorName).toBe('Anonüümne');
    const ru = (await listComments(t, undefined, ids.quiet!, '', { 'x-app-language': 'ru' })).json();
    expect(ru.find((c: { id: number }) => c.id === created.json().id).authorName).toBe('Аноним');
  });

  it('lets business and wholesale clients comment, also on products only the business catalogue shows', async () => {
    const response = await postComment(t, business, ids.hiddenWeb!, { body: 'Ärikliendi arvamus', rating: 3 });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ authorName: 'Jaan T.', rating: 3, own: true });
    const wholesale = await companyClientToken(t.database.db, { kind: 'WHOLESALE', firstName: '  Mari   Liis ', lastName: 'ärm' });
    const second = await postComment(t, wholesale, ids.quiet!, { body: 'Hulgimüük' });
    expect(second.json().authorName).toBe('Mari Liis Ä.');
  });

  it('answers 404 for an unknown, inactive, other-store or hidden product and writes nothing', async () => {
    const before = await countRows(t.database.db, 'product_comment');
    for (const id of [999_999, ids.inactive!, ids.outlet!, ids.hiddenWeb!]) {
      expectErrorBody(await postComment(t, alice, id, { body: 'x' }), 404, 'Not Found');
    }
    expectErrorBody(await postComment(t, business, ids.hiddenBusiness!, { body: 'x' }), 404, 'Not Found');
    expect(await countRows(t.database.db, 'product_comment')).toBe(before);
  });

  it("requires a valid bearer token of the request's store", async () => {
    const before = await countRows(t.database.db, 'product_comment');
    const guest = expectErrorBody(await postComment(t, undefined, ids.book!, { body: 'x' }), 401, 'Unauthorized');
    expect(guest.message).toBe('Selleks logige sisse.');
    const unknown = await postComment(t, 'A'.repeat(43), ids.book!, { body: 'x' });
    expectErrorBody(unknown, 401, 'Unauthorized');
    expect(unknown.headers['www-authenticate']).toContain('Bearer');
    expectErrorBody(
      await postComment(t, undefined, ids.book!, { body: 'x' }, { authorization: 'Basic Zm9vOmJhcg==' }),
      401,
      'Unauthorized',
    );
    expectErrorBody(await postComment(t, undefined, ids.book!, { body: 'x' }, { authorization: 'Bearer' }), 401, 'Unauthorized');
    // A WEB2 token on the WEB store is refused; on WEB2 it works.
    expectErrorBody(await postComment(t, outletClient, ids.book!, { body: 'x' }), 401, 'Unauthorized');
    expect((await postComment(t, outletClient, ids.book!, { body: 'Outletist' }, { store: 'WEB2' })).statusCode).toBe(201);
    expect(await countRows(t.database.db, 'product_comment')).toBe(before + 1);
  });

  it('refuses bad bodies of every kind with the documented shapes and writes nothing', async () => {
    const db = t.database.db;
    const before = { comments: await countRows(db, 'product_comment'), ratings: await countRows(db, 'product_rating') };
    const fieldCases: Array<[unknown, string[]]> = [
      [{}, ['body']],
      [{ rating: 3 }, ['body']],
      [{ body: 123 }, ['body']],
      [{ body: null }, ['body']],
      [{ body: ['a'] }, ['body']],
      [{ body: '' }, ['body']],
      [{ body: ' \n\t ' }, ['body']],
      [{ body: 'a'.repeat(2001) }, ['body']],
      [{ body: `x${'\u0000'}y` }, ['body']],
      [{ body: 'ok', rating: 0 }, ['rating']],
      [{ body: 'ok', rating: 6 }, ['rating']],
      [{ body: 'ok', rating: 2.5 }, ['rating']],
      [{ body: 'ok', rating: '5' }, ['rating']],
      [{ body: 'ok', rating: null }, ['rating']],
      [{ body: 5, rating: 'x' }, ['body', 'rating']],
    ];
    for (const [payload, fields] of fieldCases) {
      const response = await postComment(t, alice, ids.book!, payload);
      expect(expectFieldErrors(response), JSON.stringify(payload).slice(0, 80)).toEqual(fields);
    }
    expectErrorBody(await postComment(t, alice, ids.book!, ['body']), 400, 'Bad Request');
    expectErrorBody(await postComment(t, alice, ids.book!, undefined), 400, 'Bad Request');
    const raw = (payload: string, contentType = 'application/json') =>
      t.app.inject({
        method: 'POST',
        url: `/product/${ids.book}/comments`,
        headers: auth(alice, { 'content-type': contentType }),
        payload,
      });
    expectErrorBody(await raw('{"body": "x"'), 400, 'Bad Request');
    expectErrorBody(await raw('body=x', 'application/x-www-form-urlencoded'), 415, 'Unsupported Media Type');
    expectErrorBody(await raw(JSON.stringify({ body: 'x'.repeat(1024 * 1024 + 10) })), 413, 'Payload Too Large');
    expect(await countRows(db, 'product_comment')).toBe(before.comments);
    expect(await countRows(db, 'product_rating')).toBe(before.ratings);
  });

  it("gives field errors in the request's language", async () => {
    const en = (await postComment(t, alice, ids.book!, { body: '   ' }, { 'x-app-language': 'en' })).json();
    const et = (await postComment(t, alice, ids.book!, { body: '   ' }, { 'x-app-language': 'et' })).json();
    const ru = (await postComment(t, alice, ids.book!, { body: 'a'.repeat(2001) }, { 'x-app-language': 'ru' })).json();
    expect(en).toEqual([{ field: 'body', message: 'body cannot be blank.' }]);
    expect(et).toEqual([{ field: 'body', message: 'body ei tohi olla tühi.' }]);
    expect(ru[0].message).toContain('2000');
    expect(ru[0].message).toContain('максимум');
  });

  it('refuses non-integer product ids with a 400', async () => {
    for (const id of ['abc', '1.5', '0', '-1', '99999999999999999999']) {
      expectErrorBody(await postComment(t, alice, id, { body: 'x' }), 400, 'Bad Request');
    }
  });

  it('limits new comments per client account: 429 with Retry-After past 10 in 10 minutes', async () => {
    const spammer = await registerVerified(t, uniqueEmail('spam'));
    for (let i = 0; i < 10; i += 1) expect((await postComment(t, spammer, ids.quiet!, { body: `Kommentaar ${i}` })).statusCode).toBe(201);
    const before = await countRows(t.database.db, 'product_comment');
    const limited = await postComment(t, spammer, ids.quiet!, { body: 'Veel üks' });
    expectErrorBody(limited, 429, 'Too Many Requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(600);
    expect(await countRows(t.database.db, 'product_comment')).toBe(before);
    // Others are not affected.
    expect((await postComment(t, bob, ids.quiet!, { body: 'Minu oma' })).statusCode).toBe(201);
  });
});

describe('POST /product/:id/comments sent again', () => {
  /** A retail client of its own, so that no other test's comments count against its rate limit. */
  const newClient = async (firstName = 'Mari') => (await createCustomer(t.database.db, { firstName })).token;
  const commentsOf = (token: string) =>
    t.database.db
      .selectFrom('product_comment')
      .innerJoin('access_token', 'access_token.client_account_id', 'product_comment.client_account_id')
      .select(['product_comment.id', 'product_comment.product_id', 'product_comment.body'])
      .where('access_token.token_hash', '=', hashToken(token))
      .orderBy('product_comment.id')
      .execute();

  it('answers the first comment (same status and body) and writes nothing, rating and rate limit included', async () => {
    const client = await newClient();
    const first = await postComment(t, client, ids.repeat!, { body: 'Topeltklõps', rating: 4 });
    expect(first.statusCode, first.body).toBe(201);
    const ratingRows = await countRows(t.database.db, 'product_rating');
    // The rating as of long ago: a repeat that rewrote it would show in updated_at.
    const clientAccountId = await clientAccountOf(t.database.db, client);
    const longAgo = Date.UTC(2020, 0, 1);
    await t.database.db
      .updateTable('product_rating')
      .set({ updated_at: longAgo })
      .where('product_id', '=', ids.repeat!)
      .where('client_account_id', '=', clientAccountId)
      .execute();
    const ratedAt = async () =>
      (
        await t.database.db
          .selectFrom('product_rating')
          .select('updated_at')
          .where('product_id', '=', ids.repeat!)
          .where('client_account_id', '=', clientAccountId)
          .executeTakeFirstOrThrow()
      ).updated_at;
    // A retry sends the same bytes; a second click may come with other whitespace around the text.
    const second = await postComment(t, client, ids.repeat!, { body: ' Topeltklõps\n', rating: 4 });
    expect(second.statusCode).toBe(first.statusCode);
    expect(second.json()).toEqual(first.json());
    expect(await commentsOf(client)).toHaveLength(1);
    expect(await countRows(t.database.db, 'product_rating')).toBe(ratingRows);
    expect(Number(await ratedAt())).toBe(longAgo);
    // The repeats took nothing from the 10 comments in 10 minutes: nine more new ones are still allowed.
    for (let i = 0; i < 5; i += 1)
      expect((await postComment(t, client, ids.repeat!, { body: 'Topeltklõps', rating: 4 })).statusCode).toBe(201);
    for (let i = 0; i < 9; i += 1) expect((await postComment(t, client, ids.repeat!, { body: `Uus ${i}` })).statusCode).toBe(201);
    expect(await commentsOf(client)).toHaveLength(10);
    // At the limit, a repeat of the last still answers it; only something new is a 429.
    const repeat = await postComment(t, client, ids.repeat!, { body: 'Uus 8' });
    expect(repeat.statusCode, repeat.body).toBe(201);
    expect(repeat.json().body).toBe('Uus 8');
    expectErrorBody(await postComment(t, client, ids.repeat!, { body: 'Veel üks' }), 429, 'Too Many Requests');
    expect(await commentsOf(client)).toHaveLength(10);
  });

  it('makes one comment of two identical submits at the same time, and both answer it', async () => {
    // A few rounds, each a new text: on PostgreSQL both requests of a round are in flight together.
    for (let round = 0; round < 3; round += 1) {
      const client = await newClient();
      const payload = { body: `Samal ajal ${round}`, rating: 5 };
      const [one, two] = await Promise.all([postComment(t, client, ids.repeat!, payload), postComment(t, client, ids.repeat!, payload)]);
      expect(one.statusCode, one.body).toBe(201);
      expect(two.statusCode, two.body).toBe(201);
      expect(two.json()).toEqual(one.json());
      expect(await commentsOf(client)).toHaveLength(1);
    }
  });

  it('writes a new comment for another text or product, or once the window has passed', async () => {
    const client = await newClient();
    const first = (await postComment(t, client, ids.repeat!, { body: 'Esimene', rating: 3 })).json();
    const answers = [
      await postComment(t, client, ids.repeat!, { body: 'Esimene!', rating: 3 }),
      await postComment(t, client, ids.repeat!, { body: 'esimene', rating: 3 }),
      await postComment(t, client, ids.repeat!, { body: 'Esimene!!' }),
      await postComment(t, client, ids.repeat!, { body: 'Esimene?' }),
      await postComment(t, client, ids.quiet!, { body: 'Esimene', rating: 3 }),
    ];
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
    const made = answers.map((answer) => answer.json().id);
    expect(new Set([first.id, ...made]).size).toBe(6);
    // The first, written just outside the window: the same submit now is a new comment.
    const cutoff = Date.now() - COMMENT_RESUBMIT_WINDOW_MS;
    await t.database.db.updateTable('product_comment').set({ created_at: cutoff }).where('id', '=', first.id).execute();
    const later = await postComment(t, client, ids.repeat!, { body: 'Esimene', rating: 3 });
    expect(later.statusCode, later.body).toBe(201);
    expect(later.json().id).not.toBe(first.id);
    // Just inside it, the first is answered again.
    const newer = (await postComment(t, client, ids.repeat!, { body: 'Teine' })).json();
    await t.database.db
      .updateTable('product_comment')
      .set({ created_at: Date.now() - COMMENT_RESUBMIT_WINDOW_MS + 60_000 })
      .where('id', '=', newer.id)
      .execute();
    expect((await postComment(t, client, ids.repeat!, { body: 'Teine' })).json().id).toBe(newer.id);
    expect(await commentsOf(client)).toHaveLength(8);
  });

  it("takes the same text with other stars as the same comment, whose stars readers see are the author's last", async () => {
    const client = await newClient();
    const productId = await createProduct(t.database.db, { code: 'C-STARS', name: 'Tähed' });
    const comments = async () =>
      (await listComments(t, undefined, productId))
        .json()
        .map(({ body, rating }: { body: string; rating: number | null }) => ({ body, rating }));
    const summary = async () => (await getRating(t, client, productId)).json();

    const first = await postComment(t, client, productId, { body: 'Hea raamat', rating: 4 });
    expect(first.statusCode, first.body).toBe(201);
    // Other stars clicked and the same text sent again: no second comment with the same words,
    // and the stars sent last are the author's rating, next to the comment and in the totals.
    for (const rating of [2, 4, 1]) {
      const again = await postComment(t, client, productId, { body: ' Hea raamat\n', rating });
      expect(again.statusCode, again.body).toBe(201);
      expect(again.json()).toEqual({ ...first.json(), rating });
      expect(await comments()).toEqual([{ body: 'Hea raamat', rating }]);
      expect(await summary()).toEqual({ average: rating, count: 1, own: rating });
    }
    // Without stars it is the same comment, and the rating stays as it was.
    const plain = await postComment(t, client, productId, { body: 'Hea raamat' });
    expect(plain.json()).toEqual({ ...first.json(), rating: 1 });
    expect(await comments()).toEqual([{ body: 'Hea raamat', rating: 1 }]);
    expect(await commentsOf(client)).toHaveLength(1);
  });

  it("gives another client's identical text a comment of their own", async () => {
    const mari = await newClient('Mari');
    const jaan = await newClient('Jaan');
    const payload = { body: 'Parim raamat sel aastal', rating: 5 };
    const hers = (await postComment(t, mari, ids.repeat!, payload)).json();
    const his = await postComment(t, jaan, ids.repeat!, payload);
    expect(his.statusCode, his.body).toBe(201);
    expect(his.json()).toMatchObject({ authorName: 'Jaan M.', own: true, rating: 5 });
    expect(his.json().id).not.toBe(hers.id);
    // At the same time too.
    const [a, b] = await Promise.all([postComment(t, mari, ids.quiet!, payload), postComment(t, jaan, ids.quiet!, payload)]);
    expect(a.json().id).not.toBe(b.json().id);
    expect((await commentsOf(mari)).map((row) => row.body)).toEqual([payload.body, payload.body]);
    expect((await commentsOf(jaan)).map((row) => row.body)).toEqual([payload.body, payload.body]);
  });
});

describe('GET /product/:id/comments', () => {
  let carol: string;
  const created: number[] = [];

  beforeAll(async () => {
    carol = await registerVerified(t, uniqueEmail('carol'));
    await rate(t, carol, ids.paging!, { rating: 2 });
    for (let i = 1; i <= 5; i += 1) {
      const token = i % 2 === 0 ? carol : alice;
      const language = i === 5 ? 'ru' : 'et';
      const response = await postComment(t, token, ids.paging!, { body: `Nr ${i}` }, { 'x-app-language': language });
      created.push(response.json().id);
    }
    // The first two are older; the others may share a millisecond, and then the id decides.
    await t.database.db
      .updateTable('product_comment')
      .set({ created_at: Date.UTC(2020, 0, 1) })
      .where('id', 'in', created.slice(0, 2))
      .execute();
  });

  it('lists newest first with paging headers, author ratings and own flags', async () => {
    const response = await listComments(t, alice, ids.paging!, '?per-page=2');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-pagination-total-count']).toBe('5');
    expect(response.headers['x-pagination-page-count']).toBe('3');
    expect(response.headers['x-pagination-per-page']).toBe('2');
    expect(response.headers['x-pagination-current-page']).toBe('1');
    expect(response.headers.link).toContain('rel="next"');
    const first = response.json();
    expect(first.map((c: { id: number }) => c.id)).toEqual([created[4], created[3]]);
    expect(first[0]).toMatchObject({ body: 'Nr 5', language: 'ru', own: true, rating: null, authorName: 'Mari M.' });
    expect(first[1]).toMatchObject({ body: 'Nr 4', own: false, rating: 2 });
    const last = (await listComments(t, alice, ids.paging!, '?per-page=2&page=3')).json();
    expect(last.map((c: { id: number }) => c.id)).toEqual([created[0]]);
    const all = (await listComments(t, carol, ids.paging!)).json();
    expect(all.map((c: { id: number }) => c.id)).toEqual([created[4], created[3], created[2], created[1], created[0]]);
    expect(all.map((c: { own: boolean }) => c.own)).toEqual([false, true, false, true, false]);
    expect(all[0].createdAt).toMatch(isoSeconds);
    expect(all[4].createdAt).toBe('2020-01-01T00:00:00Z');
  });

  it('shows guests no own comments and filters by language', async () => {
    const guest = (await listComments(t, undefined, ids.paging!)).json();
    expect(guest).toHaveLength(5);
    expect(guest.every((c: { own: boolean }) => !c.own)).toBe(true);
    const russian = await listComments(t, undefined, ids.paging!, '?language=ru');
    expect(russian.headers['x-pagination-total-count']).toBe('1');
    expect(russian.json().map((c: { body: string }) => c.body)).toEqual(['Nr 5']);
    expect((await listComments(t, undefined, ids.hiddenBusiness!)).json()).toEqual([]);
  });

  it('answers an empty page past the end and 400 for bad paging or language', async () => {
    const past = await listComments(t, undefined, ids.paging!, '?page=9');
    expect(past.statusCode).toBe(200);
    expect(past.json()).toEqual([]);
    for (const query of ['?page=0', '?page=x', '?per-page=0', '?per-page=1.5', '?language=de']) {
      expectErrorBody(await listComments(t, undefined, ids.paging!, query), 400, 'Bad Request');
    }
  });

  it('caches a guest answer publicly with an ETag, a retail one privately with revalidation, a business one not at all', async () => {
    const guest = await listComments(t, undefined, ids.paging!);
    expect(guest.headers['cache-control']).toBe('public, max-age=60');
    expect(guest.headers.vary).toContain('Authorization');
    const etag = guest.headers.etag as string;
    expect(etag).toBeTruthy();
    const conditional = await listComments(t, undefined, ids.paging!, '', { 'if-none-match': etag });
    expect(conditional.statusCode).toBe(304);
    expect(conditional.body).toBe('');
    const retail = await listComments(t, alice, ids.paging!);
    expect(retail.headers['cache-control']).toBe('private, no-cache');
    expect((await listComments(t, alice, ids.paging!, '', { 'if-none-match': retail.headers.etag as string })).statusCode).toBe(304);
    // The retail answer differs from the guest's (own), so the guest's ETag does not match it.
    expect(retail.headers.etag).not.toBe(etag);
    const companyAnswer = await listComments(t, business, ids.paging!);
    expect(companyAnswer.statusCode).toBe(200);
    expect(companyAnswer.headers['cache-control']).toBe('no-store');
    expect(companyAnswer.headers.etag).toBeUndefined();
  });

  it('is a 404 for invisible products and a 400 for bad ids; a bad token is a 401', async () => {
    for (const id of [999_999, ids.inactive!, ids.outlet!, ids.hiddenWeb!]) {
      expectErrorBody(await listComments(t, undefined, id), 404, 'Not Found');
    }
    expect((await listComments(t, business, ids.hiddenWeb!)).statusCode).toBe(200);
    expectErrorBody(await listComments(t, business, ids.hiddenBusiness!), 404, 'Not Found');
    expectErrorBody(await listComments(t, undefined, 'abc'), 400, 'Bad Request');
    expectErrorBody(await listComments(t, 'not-a-token', ids.paging!), 401, 'Unauthorized');
    expect((await listComments(t, undefined, ids.book!, '', { store: 'WEB2' })).statusCode).toBe(200);
  });
});

describe('DELETE /product/:id/comments/:commentId', () => {
  it("deletes the caller's own comment (204) and keeps their rating", async () => {
    const created = (await postComment(t, alice, ids.paging!, { body: 'Kustutan kohe', rating: 5 })).json();
    const response = await deleteComment(t, alice, ids.paging!, created.id);
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');
    const listed = (await listComments(t, undefined, ids.paging!, '?per-page=100')).json();
    expect(listed.map((c: { id: number }) => c.id)).not.toContain(created.id);
    const rating = await t.database.db
      .selectFrom('product_rating')
      .select('rating')
      .where('product_id', '=', ids.paging!)
      .where('client_account_id', '=', await clientAccountOf(t.database.db, alice))
      .executeTakeFirst();
    expect(rating?.rating).toBe(5);
    // Gone is gone: a second delete is a 404.
    expectErrorBody(await deleteComment(t, alice, ids.paging!, created.id), 404, 'Not Found');
  });

  it("answers another client's comment exactly like a missing one and keeps it", async () => {
    const created = (await postComment(t, bob, ids.paging!, { body: 'Minu oma, mitte sinu' })).json();
    const others = expectErrorBody(await deleteComment(t, alice, ids.paging!, created.id, { 'x-app-language': 'en' }), 404, 'Not Found');
    const missing = expectErrorBody(await deleteComment(t, alice, ids.paging!, 999_999, { 'x-app-language': 'en' }), 404, 'Not Found');
    expect(others.message).toBe(`There is no comment ${created.id} of yours on this product.`);
    expect(missing.message).toBe('There is no comment 999999 of yours on this product.');
    // The right comment id under another product is not found either.
    expectErrorBody(await deleteComment(t, bob, ids.quiet!, created.id), 404, 'Not Found');
    const still = await t.database.db.selectFrom('product_comment').select('id').where('id', '=', created.id).executeTakeFirst();
    expect(still).toBeDefined();
  });

  it('needs a token and integer ids, and a visible product', async () => {
    const created = (await postComment(t, bob, ids.book!, { body: 'Jääb alles' })).json();
    expectErrorBody(await deleteComment(t, undefined, ids.book!, created.id), 401, 'Unauthorized');
    expectErrorBody(await deleteComment(t, 'A'.repeat(43), ids.book!, created.id), 401, 'Unauthorized');
    for (const commentId of ['abc', '1.5', '0', '-3']) {
      expectErrorBody(await deleteComment(t, bob, ids.book!, commentId), 400, 'Bad Request');
    }
    expectErrorBody(await deleteComment(t, bob, 'x', created.id), 400, 'Bad Request');
    expectErrorBody(await deleteComment(t, bob, 999_999, created.id), 404, 'Not Found');
    const still = await t.database.db.selectFrom('product_comment').select('id').where('id', '=', created.id).executeTakeFirst();
    expect(still).toBeDefined();
  });
});
