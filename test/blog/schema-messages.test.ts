import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShop } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent, putContent } from '../content/content-helpers.js';
import { operatorKey } from './helpers.js';
import { expectFieldErrorInEachLanguage, type InEachLanguage } from '../helpers/http.js';

// What the schema of a blog kind's line says (src/modules/blog/content-lines.ts): the admin PUT
// answers a body that breaks it as every 422 of the API, each field's problem in the caller's language
// (the API's validation messages), and writes nothing; an import reports the same line in its own
// English words after the line's number, whatever language is asked.

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  key = await operatorKey(t);
  await createShop(t.database.db, { code: 'VIRU', name: 'Viru' });
});
afterAll(() => t.close());

const post = (extra: Record<string, unknown> = {}) => ({
  store: 'WEB',
  language: 'et',
  slug: 'postitus',
  title: 'Postitus',
  body: '<p>Sisu</p>',
  publishedAt: '2026-01-01',
  ...extra,
});

type Kind = 'blog-categories' | 'blog-posts' | 'news' | 'redirects' | 'shop-schedules';

interface SchemaCase {
  fault: string;
  kind: Kind;
  body: Record<string, unknown>;
  field: string;
  messages: InEachLanguage;
  /** What an import reports for the same line, after its number. */
  line: string;
}

const CASES: SchemaCase[] = [
  {
    fault: 'a wrong type',
    kind: 'blog-posts',
    body: post({ title: 5 }),
    field: 'title',
    messages: {
      et: 'title peab olema tüüpi string.',
      en: 'title must be of type string.',
      ru: 'Значение «title» должно быть типа string.',
    },
    line: '/title: must be a string',
  },
  {
    fault: 'a missing field',
    kind: 'news',
    body: { store: 'WEB', slug: 'uudis', publishedAt: '2026-01-01' },
    field: 'translations',
    messages: { et: 'translations ei tohi olla tühi.', en: 'translations cannot be blank.', ru: 'Необходимо заполнить «translations».' },
    line: '/translations: is required',
  },
  {
    fault: 'a bad pattern',
    kind: 'blog-categories',
    body: { store: 'WEB', slug: 'Not A Slug', names: { et: 'Lugemine' } },
    field: 'slug',
    messages: { et: 'slug on vigane.', en: 'slug is invalid.', ru: 'Значение «slug» неверно.' },
    line: '/slug: is not of the accepted form',
  },
  {
    fault: 'a value none of those allowed',
    kind: 'redirects',
    body: { store: 'WEB', path: '/vana', target: '/uus', status: 307 },
    field: 'status',
    messages: {
      et: 'status on vigane; lubatud väärtused: 301, 302.',
      en: 'status is invalid; allowed values: 301, 302.',
      ru: 'Значение «status» неверно; допустимые значения: 301, 302.',
    },
    line: '/status: must be one of 301, 302',
  },
  {
    fault: 'a field the line does not have, nested',
    kind: 'shop-schedules',
    body: { weekly: [{ weekday: 1, opens: '10:00', closes: '18:00', lunch: '13:00' }] },
    field: 'weekly.0.lunch',
    messages: {
      et: 'weekly.0.lunch ei ole lubatud väli.',
      en: 'weekly.0.lunch is not an accepted field.',
      ru: '«weekly.0.lunch» не является допустимым полем.',
    },
    line: '/weekly/0/lunch: is not an accepted field',
  },
  {
    fault: 'a control character in a text of one line',
    kind: 'blog-posts',
    body: post({ seoTitle: 'Pealkiri\u0007' }),
    field: 'seoTitle',
    messages: {
      et: 'seoTitle sisaldab lubamatuid märke.',
      en: 'seoTitle contains characters that are not allowed.',
      ru: 'Значение «seoTitle» содержит недопустимые символы.',
    },
    line: '/seoTitle: contains the control character U+0007; control characters (tabs and line breaks too) are not allowed here',
  },
  {
    fault: 'a control character in a tag',
    kind: 'blog-posts',
    body: post({ tags: ['talv\u001bx'] }),
    field: 'tags.0',
    messages: {
      et: 'tags.0 sisaldab lubamatuid märke.',
      en: 'tags.0 contains characters that are not allowed.',
      ru: 'Значение «tags.0» содержит недопустимые символы.',
    },
    line: '/tags/0: contains the control character U+001B; control characters (tabs and line breaks too) are not allowed here',
  },
  {
    fault: "a control character in a redirect's target",
    kind: 'redirects',
    body: { store: 'WEB', path: '/vana', target: '/uus\u0001' },
    field: 'target',
    messages: {
      et: 'target sisaldab lubamatuid märke.',
      en: 'target contains characters that are not allowed.',
      ru: 'Значение «target» содержит недопустимые символы.',
    },
    line: '/target: contains the control character U+0001; control characters (tabs and line breaks too) are not allowed here',
  },
  {
    fault: 'a control character in a date that may be null',
    kind: 'news',
    body: {
      store: 'WEB',
      slug: 'uudis',
      translations: { et: { title: 'Uudis', body: '<p>x</p>' } },
      publishedAt: '2026-01-01',
      visibleFrom: '2026-01-01\u0007',
    },
    field: 'visibleFrom',
    messages: {
      et: 'visibleFrom sisaldab lubamatuid märke.',
      en: 'visibleFrom contains characters that are not allowed.',
      ru: 'Значение «visibleFrom» содержит недопустимые символы.',
    },
    line: '/visibleFrom: contains the control character U+0007; control characters (tabs and line breaks too) are not allowed here',
  },
  {
    fault: 'a control character in a date',
    kind: 'blog-posts',
    body: post({ publishedAt: '2026-01-01\u0085' }),
    field: 'publishedAt',
    messages: {
      et: 'publishedAt sisaldab lubamatuid märke.',
      en: 'publishedAt contains characters that are not allowed.',
      ru: 'Значение «publishedAt» содержит недопустимые символы.',
    },
    line: '/publishedAt: contains the control character U+0085; control characters (tabs and line breaks too) are not allowed here',
  },
];

/** Every row a refused edit could have written. */
async function stored() {
  const db = t.database.db;
  const all = (table: 'blog_category' | 'blog_post' | 'blog_post_tag' | 'news' | 'redirect' | 'shop_opening_hours') =>
    db.selectFrom(table).selectAll().execute();
  return Promise.all(
    (['blog_category', 'blog_post', 'blog_post_tag', 'news', 'redirect', 'shop_opening_hours'] as const).map((table) => all(table)),
  );
}

describe('PUT /admin/content/<kind>/{code} of the blog kinds: a body its schema refuses', () => {
  it.each(CASES)('$fault is a 422 on the field in et, en and ru, and writes nothing', async ({ kind, body, field, messages }) => {
    const before = await stored();
    const code = kind === 'shop-schedules' ? 'VIRU' : 'S-FAULT';
    await expectFieldErrorInEachLanguage((headers) => putContent(t, key, kind, code, body, headers), field, messages);
    expect(await stored()).toEqual(before);
  });

  it('answers every field at fault, one message each', async () => {
    const res = await putContent(t, key, 'blog-posts', 'S-MANY', post({ title: 5, slug: 'Not A Slug', colour: 'red' }), {
      'x-app-language': 'en',
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual(
      expect.arrayContaining([
        { field: 'colour', message: 'colour is not an accepted field.' },
        { field: 'title', message: 'title must be of type string.' },
        { field: 'slug', message: 'slug is invalid.' },
      ]),
    );
    expect(res.json()).toHaveLength(3);
  });
});

describe('an import line of a blog kind its schema refuses', () => {
  it('is reported by its number in the import’s English words, whatever language is asked', async () => {
    const before = await stored();
    for (const { kind, body, line } of CASES) {
      const codeField = kind === 'shop-schedules' ? 'shop' : 'code';
      const res = await importContent(t, key, kind, [{ [codeField]: kind === 'shop-schedules' ? 'VIRU' : 'S-FAULT', ...body }], {
        'x-app-language': 'ru',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().errors, kind).toEqual([{ line: 1, message: line }]);
    }
    expect(await stored()).toEqual(before);
  });
});
