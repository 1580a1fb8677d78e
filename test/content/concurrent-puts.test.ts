import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOfficeApp } from '../helpers/back-office.js';
import { expectFieldErrors } from '../helpers/http.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import type { TestApp } from '../helpers/test-app.js';
import { putContent } from './content-helpers.js';

// PUT /admin/content/<kind>/{code} sent twice at once (a double click, a client's retry): the first
// creates the item and the second finds it. Both read "no such code" before either wrote
// (PostgreSQL), and the second's insert hit the unique code (or slug) and was a 500. On PostgreSQL
// the table is held until both have read, as the race has it; SQLite runs one write at a time.

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

const page = (slug: string) => ({ store: 'WEB', slug, translations: { et: { title: 'Pealkiri', body: '<p>Sisu</p>' } } });

describe('PUT /admin/content twice at once', () => {
  it('the same new item: one is created, the other finds it; one row', async () => {
    const answers = await withTableHeld(t.database.db, 'content_page', () =>
      Promise.all([
        putContent(t, key, 'content-pages', 'TWICE', page('twice')),
        putContent(t, key, 'content-pages', 'TWICE', page('twice')),
      ]),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    expect(answers.map((answer) => answer.json().outcome).sort()).toEqual(['created', 'unchanged']);
    const rows = await t.database.db.selectFrom('content_page').select('id').where('code', '=', 'TWICE').execute();
    expect(rows).toHaveLength(1);
  });

  it("two new items with one slug: one is created, the other is the slug's 422", async () => {
    const answers = await withTableHeld(t.database.db, 'content_page', () =>
      Promise.all([
        putContent(t, key, 'content-pages', 'SLUG1', page('shared')),
        putContent(t, key, 'content-pages', 'SLUG2', page('shared')),
      ]),
    );
    const created = answers.filter((answer) => answer.statusCode === 200);
    expect(created, answers.map((answer) => answer.body).join('\n')).toHaveLength(1);
    const refused = answers.find((answer) => answer.statusCode !== 200)!;
    expect(expectFieldErrors(refused)).toEqual(['slug']);
  });

  it('the same new blog post: one is created, the other finds it; one row', async () => {
    const post = { store: 'WEB', language: 'et', slug: 'kaks-korda', title: 'Kaks korda', body: '<p>x</p>', publishedAt: '2026-01-01' };
    const put = () =>
      t.app.inject({ method: 'PUT', url: '/admin/content/blog-posts/TWICE', headers: { authorization: `Bearer ${key}` }, payload: post });
    const answers = await withTableHeld(t.database.db, 'blog_post', () => Promise.all([put(), put()]));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    expect(answers.map((answer) => answer.json().outcome).sort()).toEqual(['created', 'unchanged']);
    expect(await t.database.db.selectFrom('blog_post').select('id').where('code', '=', 'TWICE').execute()).toHaveLength(1);
  });
});
