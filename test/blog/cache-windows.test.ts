import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent, operatorKey } from './helpers.js';

// A blog or news answer may be kept for ten minutes, but not past the moment it changes by
// itself: a post or news item of its scope coming into or going out of its window. An unpublished
// post must not stay on guests' screens, or in a CDN, for ten minutes after its end.

const NOW = Math.floor(Date.now() / 1000) * 1000;
const SECOND = 1000;
const iso = (ms: number) => new Date(ms).toISOString();

let t: TestApp;

const post = (code: string, language: string, extra: Record<string, unknown> = {}) => ({
  code,
  store: 'WEB',
  language,
  slug: code.toLowerCase(),
  title: code,
  body: `<p>${code}</p>`,
  publishedAt: '2026-01-01',
  ...extra,
});
const news = (code: string, extra: Record<string, unknown> = {}) => ({
  code,
  store: 'WEB',
  slug: code.toLowerCase(),
  publishedAt: '2026-01-01',
  translations: { et: { title: code, body: 'x' } },
  ...extra,
});

beforeAll(async () => {
  t = await createTestApp({ clock: fixedClock(NOW) });
  const posts = await importContent(t, 'blog-posts', [
    post('STAYS', 'et'),
    post('ENDS', 'et', { visibleTo: iso(NOW + 120 * SECOND) }),
    post('STARTS', 'en', { visibleFrom: iso(NOW + 300 * SECOND) }),
    post('PLAIN', 'ru'),
    // A draft never shows: its window changes nothing.
    post('DRAFT', 'ru', { active: false, visibleFrom: iso(NOW + 60 * SECOND) }),
  ]);
  expect(posts.json(), posts.body).toMatchObject({ errorCount: 0 });
  const items = await importContent(t, 'news', [news('OPEN'), news('CLOSING', { visibleTo: iso(NOW + 200 * SECOND) })]);
  expect(items.json(), items.body).toMatchObject({ errorCount: 0 });
  const pages = await importContent(t, 'content-pages', [
    {
      code: 'LEAVING',
      store: 'WEB',
      slug: 'lahkub',
      visibleTo: iso(NOW + 150 * SECOND),
      translations: { et: { title: 'Lahkub', body: '<p>x</p>' } },
    },
  ]);
  expect(pages.json(), pages.body).toMatchObject({ errorCount: 0 });
});
afterAll(() => t.close());

const cacheControl = async (url: string, headers: Record<string, string> = {}) => {
  const res = await t.app.inject({ url, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.headers['cache-control'];
};

describe('how long a blog or news answer may be kept', () => {
  it('is ten minutes when nothing it weighs starts or ends sooner', async () => {
    expect(await cacheControl('/blog', { 'x-app-language': 'ru' })).toBe('public, max-age=600');
    expect(await cacheControl('/blog/stays')).toBe('public, max-age=600');
    expect(await cacheControl('/news/open')).toBe('public, max-age=600');
  });

  it("ends when a post of the list's language ends or starts", async () => {
    expect(await cacheControl('/blog')).toBe('public, max-age=120');
    expect(await cacheControl('/blog', { 'x-app-language': 'en' })).toBe('public, max-age=300');
  });

  it("ends when the post's or news item's own window ends", async () => {
    expect(await cacheControl('/blog/ends')).toBe('public, max-age=120');
    expect(await cacheControl('/news/closing')).toBe('public, max-age=200');
    expect(await cacheControl('/news')).toBe('public, max-age=200');
  });

  it("for a QR code of a post, news item or content page, ends when the item's own window ends", async () => {
    // A QR code of an item past its end is a 404; kept for ten minutes it pointed at a page gone.
    expect(await cacheControl('/qr-code/blog-STAYS')).toBe('public, max-age=600');
    expect(await cacheControl('/qr-code/blog-ENDS')).toBe('public, max-age=120');
    expect(await cacheControl('/qr-code/news-CLOSING')).toBe('public, max-age=200');
    expect(await cacheControl('/qr-code/page-LEAVING')).toBe('public, max-age=150');
  });

  it('is private to a retail customer and never stored for an operator preview', async () => {
    const retail = await createCustomer(t.database.db, { kind: 'SIMPLE' });
    expect(await cacheControl('/blog', { authorization: `Bearer ${retail.token}` })).toBe('private, max-age=120');
    const key = await operatorKey(t);
    expect(await cacheControl('/blog?preview=1', { authorization: `Bearer ${key}` })).toBe('no-store');
  });
});
