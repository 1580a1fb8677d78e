import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorKey } from '../blog/helpers.js';
import { importContent, putContent } from '../content/content-helpers.js';
import { rowCount } from '../helpers/table-counts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectFieldErrorInEachLanguage } from '../helpers/http.js';
import { WINDOW_ORDER } from '../helpers/import-rule-messages.js';

// A window whose end is not after its start is one rule (catalogue-import/fields.ts, validityWindow)
// for every kind with a window: an import reports `/<end>: must be after <start>` by the line's number
// in English, whatever language is asked; an admin edit (content, blog) answers it on the end's field
// in the caller's language. Nothing is written either way.

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  key = await operatorKey(t);
});
afterAll(() => t.close());

const backwards = { validFrom: '2026-02-01', validTo: '2026-01-31' };

describe('a window that ends before it starts, in an import of a kind with no admin edit', () => {
  it.each([
    ['campaigns', 'campaign', { code: 'C-WINDOW', store: 'WEB', names: { et: 'Kampaania' }, prices: [], ...backwards }],
    ['discount-codes', 'discount_code', { code: 'D-WINDOW', percent: 10, ...backwards }],
  ] as const)('of %s is reported in English on validTo and writes nothing', async (kind, table, line) => {
    const res = await importContent(t, key, kind, [line], { 'x-app-language': 'ru' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().errors).toEqual([{ line: 1, message: '/validTo: must be after validFrom' }]);
    expect(await rowCount(t.database.db, table)).toBe(0);
  });
});

describe('the same rule in an admin edit', () => {
  const window = { visibleFrom: '2026-02-01', visibleTo: '2026-01-31' };
  const edits = [
    ['blog-posts', { store: 'WEB', language: 'et', slug: 'w', title: 'W', body: '<p>w</p>', publishedAt: '2026-01-01', ...window }],
    ['content-pages', { store: 'WEB', slug: 'w', translations: { et: { title: 'W', body: '<p>w</p>' } }, ...window }],
  ] as const;

  it.each(edits)('of %s is a 422 on visibleTo in et, en and ru, worded as the imports word it', async (kind, body) => {
    await expectFieldErrorInEachLanguage((headers) => putContent(t, key, kind, 'W-WINDOW', body, headers), 'visibleTo', WINDOW_ORDER);
    expect(await rowCount(t.database.db, kind === 'blog-posts' ? 'blog_post' : 'content_page')).toBe(0);
  });
});
