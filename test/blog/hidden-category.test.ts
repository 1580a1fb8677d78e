import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent, operatorKey } from './helpers.js';

// A blog category switched off (`active: false`) is hidden from the public: GET /blog-category leaves
// it out and a post of it names no category. Its listing, GET /blog?category=<its slug>, is then what
// a category that does not exist answers (none), not its posts under a category nobody may see;
// an operator's preview still lists them.

let t: TestApp;
let key = '';
const post = (code: string, category: string) => ({
  code,
  store: 'WEB',
  language: 'et',
  slug: code.toLowerCase(),
  title: `Postitus ${code}`,
  body: `<p>${code}</p>`,
  publishedAt: '2026-01-01',
  category,
});

beforeAll(async () => {
  t = await createTestApp();
  key = await operatorKey(t);
  const categories = await importContent(t, 'blog-categories', [
    { code: 'READ', store: 'WEB', slug: 'lugemine', names: { et: 'Lugemine' } },
    { code: 'OFF', store: 'WEB', slug: 'peidus', names: { et: 'Peidus' }, active: false },
  ]);
  expect(categories.json(), categories.body).toMatchObject({ errorCount: 0 });
  const posts = await importContent(t, 'blog-posts', [post('SHOWN', 'READ'), post('IN-OFF', 'OFF')]);
  expect(posts.json(), posts.body).toMatchObject({ errorCount: 0, outcomes: { created: 2 } });
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const slugs = (res: { json(): unknown }) => (res.json() as Array<{ slug: string }>).map((item) => item.slug);

describe('GET /blog?category= of a category switched off', () => {
  it('lists none of its posts, as for a category that does not exist', async () => {
    expect(slugs(await get('/blog-category'))).toEqual(['lugemine']);
    expect(slugs(await get('/blog?category=lugemine'))).toEqual(['shown']);
    const hidden = await get('/blog?category=peidus');
    expect(hidden.statusCode, hidden.body).toBe(200);
    expect(slugs(hidden)).toEqual([]);
    expect(hidden.headers['x-pagination-total-count']).toBe('0');
  });

  it('still lists the post itself, without its category, and its category in preview', async () => {
    const all = await get('/blog');
    expect((all.json() as Array<{ slug: string; category: unknown }>).find((item) => item.slug === 'in-off')).toMatchObject({
      category: null,
    });
    const preview = await get('/blog?category=peidus&preview=1', { authorization: `Bearer ${key}` });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(slugs(preview)).toEqual(['in-off']);
  });
});
