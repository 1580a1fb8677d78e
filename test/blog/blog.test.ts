import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent, operatorKey } from './helpers.js';

let t: TestApp;
let key = '';
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

const post = (code: string, extra: Record<string, unknown> = {}) => ({
  code,
  store: 'WEB',
  language: 'et',
  slug: code.toLowerCase(),
  title: `Postitus ${code}`,
  body: `<p>${code}</p>`,
  publishedAt: '2026-01-01',
  ...extra,
});

beforeAll(async () => {
  t = await createTestApp();
  key = await operatorKey(t);
  const now = Date.now();
  expect(
    (
      await importContent(t, 'blog-categories', [
        { code: 'READ', store: 'WEB', slug: 'lugemine', names: { et: 'Lugemine', en: 'Reading' }, position: 1 },
        { code: 'NEWS', store: 'WEB', slug: 'uudised', names: { et: 'Uudised' }, position: 2 },
        { code: 'OFF', store: 'WEB', slug: 'peidus', names: { et: 'Peidus' }, active: false },
      ])
    ).json(),
  ).toMatchObject({ errorCount: 0 });
  const res = await importContent(t, 'blog-posts', [
    post('P1', { category: 'READ', tags: ['Raamatud', 'suvi'], publishedAt: '2026-01-01' }),
    post('P2', { category: 'READ', tags: ['raamatud'], publishedAt: '2026-02-01' }),
    post('P3', { publishedAt: '2026-03-01', summary: 'Lühidalt' }),
    post('EN1', { language: 'en', title: 'English post', publishedAt: '2026-03-02' }),
    post('DRAFT', { active: false }),
    post('FUTURE', { visibleFrom: iso(now + DAY) }),
    post('PAST', { visibleTo: iso(now - DAY) }),
    post('XSS', {
      body: '<p onclick="alert(1)">hi<script>alert(1)</script><a href="javascript:alert(1)">x</a><img src=x onerror=alert(1)></p>',
      publishedAt: '2025-01-01',
    }),
  ]);
  expect(res.json()).toMatchObject({ errorCount: 0, outcomes: { created: 8 } });
  await importContent(t, 'news', [
    {
      code: 'N1',
      store: 'WEB',
      slug: 'avamine',
      publishedAt: '2026-01-05',
      translations: { et: { title: 'Avamine', body: '<b>et</b>' }, en: { title: 'Opening', body: '<b>en</b>' } },
    },
    { code: 'N2', store: 'WEB', slug: 'ainult-eesti', publishedAt: '2026-01-06', translations: { et: { title: 'Eesti', body: 'x' } } },
    {
      code: 'N3',
      store: 'WEB',
      slug: 'mustand',
      active: false,
      publishedAt: '2026-01-07',
      translations: { et: { title: 'Mustand', body: 'x' } },
    },
    { code: 'N4', store: 'WEB2', slug: 'outlet', publishedAt: '2026-01-07', translations: { et: { title: 'Outlet', body: 'x' } } },
  ]);
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const slugs = (res: { json(): unknown }) => (res.json() as Array<{ slug: string }>).map((item) => item.slug);

describe('GET /blog', () => {
  it("lists the published posts of the caller's language, newest first, with category and tags", async () => {
    const res = await get('/blog');
    expect(res.statusCode, res.body).toBe(200);
    expect(slugs(res)).toEqual(['p3', 'p2', 'p1', 'xss']);
    expect(res.json()[2]).toMatchObject({
      code: 'P1',
      language: 'et',
      category: { code: 'READ', slug: 'lugemine', name: 'Lugemine' },
      tags: ['raamatud', 'suvi'],
    });
    expect(res.headers['x-pagination-total-count']).toBe('4');
    expect(slugs(await get('/blog', { 'x-app-language': 'en' }))).toEqual(['en1']);
    expect(slugs(await get('/blog', { 'x-app-language': 'ru' }))).toEqual([]);
  });

  it('filters by category slug and tag, and pages', async () => {
    expect(slugs(await get('/blog?category=lugemine'))).toEqual(['p2', 'p1']);
    expect(slugs(await get('/blog?tag=SUVI'))).toEqual(['p1']);
    expect(slugs(await get('/blog?category=lugemine&tag=raamatud'))).toEqual(['p2', 'p1']);
    expect(slugs(await get('/blog?category=none'))).toEqual([]);
    const page = await get('/blog?per-page=3&page=2');
    expect(slugs(page)).toEqual(['xss']);
    expect(page.headers['x-pagination-page-count']).toBe('2');
  });

  it('shows drafts and items outside their window only in an operator preview', async () => {
    const preview = await get('/blog?preview=1', { authorization: `Bearer ${key}` });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(slugs(preview)).toEqual(expect.arrayContaining(['draft', 'future', 'past']));
    expect(preview.headers['cache-control']).toBe('no-store');
    expectErrorBody(await get('/blog?preview=1'), 401, 'Unauthorized');
    const customer = await createCustomer(t.database.db, { kind: 'SIMPLE' });
    expectErrorBody(await get('/blog/draft?preview=1', { authorization: `Bearer ${customer.token}` }), 401, 'Unauthorized');
    expect((await get('/blog/draft?preview=1', { authorization: `Bearer ${key}` })).json()).toMatchObject({ code: 'DRAFT' });
    for (const slug of ['draft', 'future', 'past']) expectErrorBody(await get(`/blog/${slug}`), 404, 'Not Found');
  });

  it('caches for guests anywhere and retail in their browser, never for business and wholesale', async () => {
    const guest = await get('/blog');
    expect(guest.headers['cache-control']).toBe('public, max-age=600');
    expect((await get('/blog', { 'if-none-match': String(guest.headers.etag) })).statusCode).toBe(304);
    const retail = await createCustomer(t.database.db, { kind: 'SIMPLE' });
    expect((await get('/blog', { authorization: `Bearer ${retail.token}` })).headers['cache-control']).toBe('private, max-age=600');
    for (const kind of ['BUSINESS', 'WHOLESALE'] as const) {
      const customer = await createCustomer(t.database.db, { kind });
      const res = await get('/blog/p1', { authorization: `Bearer ${customer.token}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
    }
  });

  it('refuses bad input with a 4xx', async () => {
    expectErrorBody(await get('/blog?page=0'), 400, 'Bad Request');
    expectErrorBody(await get('/blog?tag='), 400, 'Bad Request');
    expectErrorBody(await get('/blog?preview=maybe'), 400, 'Bad Request');
    expectErrorBody(await get('/blog', { authorization: 'Bearer nonsense' }), 401, 'Unauthorized');
    expect((await get(`/blog/${'x'.repeat(300)}`)).statusCode).toBeGreaterThanOrEqual(400);
    expectErrorBody(await get('/blog/none'), 404, 'Not Found');
  });
});

describe('GET /blog/:slug', () => {
  it('shows a post in its own language whatever the caller asks for', async () => {
    const res = await get('/blog/en1', { 'x-app-language': 'et' });
    expect(res.json()).toMatchObject({ code: 'EN1', language: 'en', title: 'English post', body: '<p>EN1</p>', seoTitle: null });
  });

  it('stores HTML sanitized', async () => {
    const body: string = (await get('/blog/xss')).json().body;
    expect(body).not.toMatch(/script|onclick|onerror|javascript:/i);
    expect(body).toContain('hi');
  });
});

describe('GET /blog-category', () => {
  it('lists the active categories in order, translated with a fallback', async () => {
    expect((await get('/blog-category', { 'x-app-language': 'en' })).json()).toEqual([
      { code: 'READ', slug: 'lugemine', name: 'Reading', position: 1 },
      { code: 'NEWS', slug: 'uudised', name: 'Uudised', position: 2 },
    ]);
  });
});

describe('GET /news', () => {
  it('lists the published news of the store, translated with a fallback to Estonian', async () => {
    const en = await get('/news', { 'x-app-language': 'en' });
    expect(en.json().map((item: { title: string; language: string }) => [item.title, item.language])).toEqual([
      ['Eesti', 'et'],
      ['Opening', 'en'],
    ]);
    expect(en.headers['x-pagination-total-count']).toBe('2');
    expect(slugs(await get('/news', { store: 'WEB2' }))).toEqual(['outlet']);
    expect(slugs(await get('/news?per-page=1&page=2'))).toEqual(['avamine']);
  });

  it('shows one item, and a draft only in preview', async () => {
    expect((await get('/news/avamine', { 'x-app-language': 'en' })).json()).toMatchObject({ title: 'Opening', body: '<b>en</b>' });
    expectErrorBody(await get('/news/mustand'), 404, 'Not Found');
    expectErrorBody(await get('/news/outlet'), 404, 'Not Found');
    expect((await get('/news/mustand?preview=true', { authorization: `Bearer ${key}` })).json()).toMatchObject({ title: 'Mustand' });
  });
});
