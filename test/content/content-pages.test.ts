import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';
import { DAY, deleteContent, importContent, iso, putContent, read } from './content-helpers.js';

let t: TestApp;
let key: string;

const page = (code: string, slug: string, extra: Record<string, unknown> = {}) => ({
  code,
  store: 'WEB',
  slug,
  translations: {
    et: { title: `Pealkiri ${code}`, body: `<p>Sisu ${code}</p>`, seoTitle: `SEO ${code}`, seoDescription: 'Kirjeldus' },
    en: { title: `Title ${code}`, body: `<p>Body ${code}</p>` },
  },
  ...extra,
});

beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
  const now = Date.now();
  const res = await importContent(t, key, 'content-pages', [
    page('ABOUT', 'about'),
    page('DRAFT', 'draft', { active: false }),
    page('FUTURE', 'future', { visibleFrom: iso(now + DAY) }),
    page('PAST', 'past', { visibleTo: iso(now - DAY) }),
    page('WINDOW', 'window', { visibleFrom: iso(now - DAY), visibleTo: iso(now + DAY) }),
    {
      ...page('OUTLET', 'outlet'),
      store: 'WEB2',
      translations: { en: { title: 'Outlet', body: 'en' }, ru: { title: 'Аутлет', body: 'ru' } },
    },
  ]);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ outcomes: { created: 6 }, errorCount: 0 });
});
afterAll(() => t.close());

describe('GET /content-page/{slug}', () => {
  it('answers a published page in the asked language with its SEO texts and updated time', async () => {
    const res = await read(t, '/content-page/about');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      code: 'ABOUT',
      slug: 'about',
      language: 'et',
      title: 'Pealkiri ABOUT',
      body: '<p>Sisu ABOUT</p>',
      seoTitle: 'SEO ABOUT',
      seoDescription: 'Kirjeldus',
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
    });
    const en = await read(t, '/content-page/about', { 'x-app-language': 'en' });
    expect(en.json()).toMatchObject({ language: 'en', title: 'Title ABOUT', seoTitle: null });
  });

  it("falls back to the store's default language when the page lacks the asked one", async () => {
    const ru = await read(t, '/content-page/about', { 'x-app-language': 'ru' });
    expect(ru.json()).toMatchObject({ language: 'et', title: 'Pealkiri ABOUT' });
    await t.database.db.updateTable('web_store').set({ default_language: 'en' }).where('code', '=', 'WEB2').execute();
    try {
      const et = await read(t, '/content-page/outlet', { store: 'WEB2', 'x-app-language': 'et' });
      expect(et.json()).toMatchObject({ language: 'en', title: 'Outlet' });
      const asked = await read(t, '/content-page/outlet', { store: 'WEB2', 'x-app-language': 'ru' });
      expect(asked.json()).toMatchObject({ language: 'ru', title: 'Аутлет' });
    } finally {
      await t.database.db.updateTable('web_store').set({ default_language: 'et' }).where('code', '=', 'WEB2').execute();
    }
  });

  it('hides drafts, future and past pages and pages of another store as a 404; shows a page inside its window', async () => {
    for (const slug of ['draft', 'future', 'past', 'outlet', 'nope']) {
      const res = await read(t, `/content-page/${slug}`);
      expectErrorBody(res, 404, 'Not Found');
    }
    expect((await read(t, '/content-page/window')).statusCode).toBe(200);
  });

  it('shows drafts and future pages to an operator with ?preview=1, never cached; refuses preview without a key', async () => {
    const preview = await read(t, '/content-page/draft?preview=1', { authorization: `Bearer ${key}` });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({ code: 'DRAFT' });
    expect(preview.headers['cache-control']).toBe('no-store');
    expect((await read(t, '/content-page/future?preview=true', { authorization: `Bearer ${key}` })).statusCode).toBe(200);
    expectErrorBody(await read(t, '/content-page/draft?preview=1'), 401, 'Unauthorized');
    expectErrorBody(await read(t, '/content-page/draft?preview=1', { authorization: 'Bearer not-a-key' }), 401, 'Unauthorized');
    expectErrorBody(await read(t, '/content-page/about?preview=maybe'), 400, 'Bad Request');
  });
});

describe('caching per customer kind', () => {
  it('lets guests (anywhere) and retail customers (in their browser) cache for ten minutes with an ETag and 304; never business or wholesale', async () => {
    const guest = await read(t, '/content-page/about');
    expect(guest.headers['cache-control']).toBe('public, max-age=600');
    expect(guest.headers.vary).toContain('x-app-language');
    const etag = guest.headers.etag as string;
    expect(etag).toBeTruthy();
    const again = await read(t, '/content-page/about', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');

    const retail = await createCustomer(t.database.db, { kind: 'SIMPLE' });
    const retailRes = await read(t, '/content-page/about', { authorization: `Bearer ${retail.token}` });
    expect(retailRes.headers['cache-control']).toBe('private, max-age=600');
    expect(retailRes.headers.vary).toContain('Authorization');
    expect(
      (await read(t, '/content-page/about', { authorization: `Bearer ${retail.token}`, 'if-none-match': String(retailRes.headers.etag) }))
        .statusCode,
    ).toBe(304);
    for (const kind of ['BUSINESS', 'WHOLESALE'] as const) {
      const customer = await createCustomer(t.database.db, { kind });
      const res = await read(t, '/content-page/about', { authorization: `Bearer ${customer.token}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
    }
    expect(String((await read(t, '/content-page/nope')).headers['cache-control'])).not.toContain('public');
  });
});

describe('operator input of content pages', () => {
  it('is idempotent: the same lines again change nothing, a changed line updates', async () => {
    const same = await importContent(t, key, 'content-pages', [page('ABOUT', 'about')]);
    expect(same.json()).toMatchObject({ outcomes: { unchanged: 1 } });
    const changed = await importContent(t, key, 'content-pages', [
      { ...page('ABOUT', 'about'), translations: { et: { title: 'Uus', body: 'x' } } },
    ]);
    expect(changed.json()).toMatchObject({ outcomes: { updated: 1 } });
    expect((await read(t, '/content-page/about', { 'x-app-language': 'en' })).json()).toMatchObject({ language: 'et', title: 'Uus' });
    await importContent(t, key, 'content-pages', [page('ABOUT', 'about')]);
  });

  it('reports bad lines by number and imports the rest', async () => {
    const res = await importContent(t, key, 'content-pages', [
      page('OK1', 'ok-one'),
      '{"code":',
      { ...page('BAD-SLUG', 'Not A Slug') },
      { ...page('NO-LANG', 'no-lang'), translations: {} },
      { ...page('BAD-WINDOW', 'bad-window'), visibleFrom: '2026-01-02', visibleTo: '2026-01-01' },
      { ...page('TAKEN', 'about') },
      { ...page('BAD-STORE', 'bad-store'), store: 'NOPE' },
      { ...page('BAD-DATE', 'bad-date'), visibleFrom: '2026-02-30' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.outcomes).toEqual({ created: 1 });
    expect(body.errors.map((error: { line: number }) => error.line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(body.errors[3].message).toContain('visibleTo');
    expect(body.errors[4].message).toContain('already used by "ABOUT"');
  });

  it('sanitizes HTML from the import and the PUT: scripts, handlers and javascript: URLs are gone', async () => {
    const payloads = [
      '<script>alert(1)</script><p>ok</p>',
      '<img src="https://img.example/a.png" onerror="alert(1)">',
      '<a href="javascript:alert(1)">x</a>',
      '<svg onload="alert(1)"></svg><iframe src="https://evil.example"></iframe>',
      '<p style="background:url(javascript:alert(1))" onclick="alert(1)">t</p>',
      '<a href="JaVaScRiPt:alert(1)">y</a><a href="https://shop.example/x" target="_blank">z</a>',
    ].join('');
    await importContent(t, key, 'content-pages', [{ ...page('XSS', 'xss'), translations: { et: { title: 'X', body: payloads } } }]);
    const put = await putContent(t, key, 'content-pages', 'XSS2', {
      ...page('XSS2', 'xss-two'),
      code: undefined,
      translations: { et: { title: 'X', body: payloads } },
    });
    expect(put.statusCode, put.body).toBe(200);
    for (const slug of ['xss', 'xss-two']) {
      const body: string = (await read(t, `/content-page/${slug}`)).json().body;
      expect(body).not.toMatch(/script|onerror|onload|onclick|javascript:|iframe|svg|style=/i);
      expect(body).toContain('<p>ok</p>');
      expect(body).toContain('<img src="https://img.example/a.png" />');
      expect(body).toContain('rel="noopener noreferrer"');
    }
  });

  it('PUT creates, updates and leaves unchanged; DELETE removes; both need an operator key', async () => {
    const body = { store: 'WEB', slug: 'put-page', translations: { et: { title: 'Pandud', body: '<b>b</b>' } } };
    const created = await putContent(t, key, 'content-pages', 'PUT1', body);
    expect(created.json()).toEqual({ code: 'PUT1', outcome: 'created' });
    expect((await putContent(t, key, 'content-pages', 'PUT1', body)).json()).toEqual({ code: 'PUT1', outcome: 'unchanged' });
    expect((await putContent(t, key, 'content-pages', 'PUT1', { ...body, active: false })).json()).toEqual({
      code: 'PUT1',
      outcome: 'updated',
    });
    expectErrorBody(await read(t, '/content-page/put-page'), 404, 'Not Found');
    expect((await deleteContent(t, key, 'content-pages', 'PUT1')).statusCode).toBe(204);
    expectErrorBody(await deleteContent(t, key, 'content-pages', 'PUT1'), 404, 'Not Found');
    expectErrorBody(await t.app.inject({ method: 'PUT', url: '/admin/content/content-pages/X', payload: body }), 401, 'Unauthorized');
    expectErrorBody(await t.app.inject({ method: 'DELETE', url: '/admin/content/content-pages/X' }), 401, 'Unauthorized');
  });

  it('answers bad PUT input with a 4xx, never a 500', async () => {
    const good = { store: 'WEB', slug: 'put-bad', translations: { et: { title: 'T', body: 'b' } } };
    const cases: Array<[unknown, number]> = [
      [{ ...good, slug: 'Bad Slug' }, 422],
      [{ ...good, store: 'NOPE' }, 422],
      [{ ...good, translations: {} }, 422],
      [{ ...good, visibleFrom: 'yesterday' }, 422],
      [{ ...good, visibleFrom: '2026-01-02', visibleTo: '2026-01-01' }, 422],
      [{ ...good, slug: 'about' }, 422],
      [{ ...good, translations: { et: { title: 'T', body: 'x\u0000' } } }, 422],
      [[], 400],
    ];
    for (const [payload, status] of cases) {
      const res = await putContent(t, key, 'content-pages', 'PUTBAD', payload);
      expect(res.statusCode, `${JSON.stringify(payload)}: ${res.body}`).toBe(status);
    }
    const invalid = await putContent(t, key, 'content-pages', 'PUTBAD', { ...good, visibleFrom: '2026-01-02', visibleTo: '2026-01-01' });
    // Without x-app-language, in the configured default language (Estonian).
    expect(invalid.json()).toEqual([{ field: 'visibleTo', message: 'peab olema hilisem kui visibleFrom' }]);
    const badJson = await t.app.inject({
      method: 'PUT',
      url: '/admin/content/content-pages/X',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"store":',
    });
    expect(badJson.statusCode).toBe(400);
    expect((await putContent(t, key, 'content-pages', ' bad code ', good)).statusCode).toBe(400);
  });
});
