import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShop } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent, putContent } from '../content/content-helpers.js';
import { operatorKey } from './helpers.js';
import { expectFieldErrorInEachLanguage, type InEachLanguage } from '../helpers/http.js';
import { listedTwice, notADate, WINDOW_ORDER } from '../helpers/import-rule-messages.js';

// The rules of operator input a line's schema cannot say (src/modules/blog/content-kinds.ts, and the
// shared ones of catalogue-import/fields.ts: a window's order, a value listed twice): the
// admin PUT answers a broken one as a 422 on its field in the caller's language (et, en, ru) and
// writes nothing; an import reports it after the line's number in English, whatever language is asked.

let t: TestApp;
let key: string;

const post = (slug: string, extra: Record<string, unknown> = {}) => ({
  store: 'WEB',
  language: 'et',
  slug,
  title: 'Postitus',
  body: '<p>Sisu</p>',
  publishedAt: '2026-01-01',
  ...extra,
});
const news = (slug: string, extra: Record<string, unknown> = {}) => ({
  store: 'WEB',
  slug,
  translations: { et: { title: 'Uudis', body: '<p>Sisu</p>' } },
  publishedAt: '2026-01-01',
  ...extra,
});
const redirect = (path: string, target = '/uus') => ({ store: 'WEB', path, target });
const hours = (opens: string, closes: string) => ({ weekly: [{ weekday: 1, opens, closes }] });
const exception = (day: Record<string, unknown>) => ({
  weekly: [],
  exceptions: [{ date: '2026-12-24', names: { et: 'Jõululaupäev' }, ...day }],
});

type Kind = 'blog-categories' | 'blog-posts' | 'news' | 'redirects' | 'shop-schedules';

interface RuleCase {
  rule: string;
  kind: Kind;
  code: string;
  body: Record<string, unknown>;
  field: string;
  messages: InEachLanguage;
}

const CASES: RuleCase[] = [
  {
    rule: "a post's window that ends before it starts",
    kind: 'blog-posts',
    code: 'R-WINDOW',
    body: post('r-window', { visibleFrom: '2026-01-02', visibleTo: '2026-01-01' }),
    field: 'visibleTo',
    messages: WINDOW_ORDER,
  },
  {
    rule: "a news item's window that ends before it starts",
    kind: 'news',
    code: 'R-NEWS-WINDOW',
    body: news('r-news-window', { visibleFrom: '2026-01-02T10:00:00Z', visibleTo: '2026-01-02T10:00:00Z' }),
    field: 'visibleTo',
    messages: WINDOW_ORDER,
  },
  {
    rule: 'a day the calendar lacks',
    kind: 'news',
    code: 'R-DATE',
    body: news('r-date', { publishedAt: '2026-02-30' }),
    field: 'publishedAt',
    messages: notADate('2026-02-30'),
  },
  {
    rule: 'a slug another post of the store has',
    kind: 'blog-posts',
    code: 'R-SLUG',
    body: post('taken'),
    field: 'slug',
    messages: {
      et: '"taken" on poes WEB juba kasutusel (kood "TAKEN")',
      en: '"taken" is already used by "TAKEN" in WEB',
      ru: '«taken» уже используется в магазине WEB (код «TAKEN»)',
    },
  },
  {
    rule: 'a slug another blog category of the store has',
    kind: 'blog-categories',
    code: 'R-CATEGORY-SLUG',
    body: { store: 'WEB', slug: 'reading', names: { et: 'Lugemine' } },
    field: 'slug',
    messages: {
      et: '"reading" on poes WEB juba kasutusel (kood "READING")',
      en: '"reading" is already used by "READING" in WEB',
      ru: '«reading» уже используется в магазине WEB (код «READING»)',
    },
  },
  {
    rule: 'a blog category of another store',
    kind: 'blog-posts',
    code: 'R-CATEGORY',
    body: post('r-category', { store: 'WEB2', category: 'READING' }),
    field: 'category',
    messages: {
      et: 'poes WEB2 ei ole blogikategooriat "READING"',
      en: 'there is no blog category "READING" in WEB2',
      ru: 'в магазине WEB2 нет категории блога «READING»',
    },
  },
  {
    rule: 'a path that is neither a path nor a URL',
    kind: 'redirects',
    code: 'R-PATH',
    body: redirect('no-slash'),
    field: 'path',
    messages: {
      et: 'peab algama märgiga "/" (või olema täielik http(s) URL)',
      en: 'must start with "/" (or be a full http(s) URL)',
      ru: 'должен начинаться с «/» (или быть полным http(s) URL)',
    },
  },
  {
    rule: 'a path longer in UTF-8 than an index holds',
    kind: 'redirects',
    code: 'R-BYTES',
    body: redirect(`/${'漢'.repeat(700)}`),
    field: 'path',
    messages: {
      et: 'võib UTF-8 kodeeringus olla kuni 2000 baiti',
      en: 'must be at most 2000 bytes in UTF-8',
      ru: 'должен занимать не более 2000 байт в UTF-8',
    },
  },
  {
    rule: 'a redirect to its own path',
    kind: 'redirects',
    code: 'R-LOOP',
    body: redirect('/ring/', '/ring'),
    field: 'target',
    messages: {
      et: 'ümbersuunamine iseenda aadressile jääks ringlema',
      en: 'a redirect to its own path would loop',
      ru: 'перенаправление на собственный путь зациклилось бы',
    },
  },
  {
    rule: 'a path another redirect of the store has',
    kind: 'redirects',
    code: 'R-PATH-TAKEN',
    body: redirect('https://old.example/vana#top'),
    field: 'path',
    messages: {
      et: '"/vana" on poes WEB juba ümber suunatud (kood "OLD")',
      en: '"/vana" already redirects as "OLD" in WEB',
      ru: '«/vana» уже перенаправляется в магазине WEB (код «OLD»)',
    },
  },
  {
    rule: 'a time after midnight',
    kind: 'shop-schedules',
    code: 'VIRU',
    body: hours('10:00', '24:30'),
    field: 'weekly.0',
    messages: {
      et: 'kellaaeg on kuni 24:00 (ja opens sellest varasem)',
      en: 'a time is at most 24:00 (and opens before it)',
      ru: 'время не позже 24:00 (и opens раньше него)',
    },
  },
  {
    rule: 'hours that close before they open',
    kind: 'shop-schedules',
    code: 'VIRU',
    body: hours('18:00', '10:00'),
    field: 'weekly.0',
    messages: {
      et: 'closes peab olema hilisem kui opens (lahtiolekuaeg jääb ühe päeva sisse)',
      en: 'closes must be after opens (hours lie within one day)',
      ru: 'closes должно быть позже opens (часы работы лежат в пределах одного дня)',
    },
  },
  {
    rule: 'a closed day with hours',
    kind: 'shop-schedules',
    code: 'VIRU',
    body: exception({ closed: true, opens: '10:00' }),
    field: 'exceptions.0',
    messages: {
      et: 'suletud päeval ei ole opens ega closes',
      en: 'a closed day has no opens or closes',
      ru: 'у закрытого дня нет opens и closes',
    },
  },
  {
    rule: 'an open day without both hours',
    kind: 'shop-schedules',
    code: 'VIRU',
    body: exception({ opens: '10:00' }),
    field: 'exceptions.0',
    messages: {
      et: 'andke opens ja closes või closed: true',
      en: 'give opens and closes, or closed: true',
      ru: 'укажите opens и closes или closed: true',
    },
  },
  {
    rule: 'an exception on a day the calendar lacks',
    kind: 'shop-schedules',
    code: 'VIRU',
    body: exception({ date: '2026-02-30', closed: true }),
    field: 'exceptions.0.date',
    messages: notADate('2026-02-30'),
  },
  {
    rule: 'a tag listed twice (tags are lower-cased first)',
    kind: 'blog-posts',
    code: 'R-TAGS',
    body: post('r-tags', { tags: ['talv', 'Talv'] }),
    field: 'tags',
    messages: listedTwice('talv'),
  },
  {
    // 'İ' lower-cases to two characters (i and a combining dot): 40 of them are 80, past the column's 60,
    // which PostgreSQL refused with a 500.
    rule: 'a tag longer than 60 characters once lower-cased',
    kind: 'blog-posts',
    code: 'R-TAG-LENGTH',
    body: post('r-tag-length', { tags: ['talv', 'İ'.repeat(40)] }),
    field: 'tags.1',
    messages: {
      en: 'must be at most 60 characters in lower case',
      et: 'võib väiketähtedes olla kuni 60 märki',
      ru: 'должен содержать не более 60 символов в нижнем регистре',
    },
  },
  {
    rule: 'a weekday listed twice',
    kind: 'shop-schedules',
    code: 'VIRU',
    body: { weekly: [...hours('10:00', '18:00').weekly, { weekday: 1, opens: '11:00', closes: '12:00' }] },
    field: 'weekly',
    messages: listedTwice('1'),
  },
  {
    rule: 'an exception date listed twice',
    kind: 'shop-schedules',
    code: 'VIRU',
    body: { weekly: [], exceptions: [...exception({ closed: true }).exceptions, ...exception({ closed: true }).exceptions] },
    field: 'exceptions',
    messages: listedTwice('2026-12-24'),
  },
  {
    rule: 'a shop there is none of',
    kind: 'shop-schedules',
    code: 'NOPE',
    body: hours('10:00', '18:00'),
    field: 'shop',
    messages: { et: 'poodi "NOPE" ei ole', en: 'there is no shop "NOPE"', ru: 'магазина «NOPE» нет' },
  },
];

/** Everything the refused edits could have written (schedules: the existing shop's hours and exceptions). */
async function stored() {
  const db = t.database.db;
  const byId = (table: 'blog_category' | 'blog_post' | 'news' | 'redirect') => db.selectFrom(table).selectAll().orderBy('id').execute();
  return {
    categories: await byId('blog_category'),
    names: await db.selectFrom('blog_category_name').selectAll().orderBy('blog_category_id').orderBy('language').execute(),
    posts: await byId('blog_post'),
    tags: await db.selectFrom('blog_post_tag').selectAll().orderBy('blog_post_id').orderBy('tag').execute(),
    news: await byId('news'),
    redirects: await byId('redirect'),
    hours: await db.selectFrom('shop_opening_hours').selectAll().orderBy('shop_id').orderBy('weekday').execute(),
    exceptions: await db.selectFrom('shop_schedule_exception').selectAll().orderBy('shop_id').orderBy('day').execute(),
  };
}

beforeAll(async () => {
  t = await createTestApp();
  key = await operatorKey(t);
  await createShop(t.database.db, { code: 'VIRU', name: 'Viru' });
  const existing: Array<[Kind, string, Record<string, unknown>]> = [
    ['blog-categories', 'READING', { store: 'WEB', slug: 'reading', names: { et: 'Lugemine' } }],
    ['blog-posts', 'TAKEN', post('taken', { category: 'READING', tags: ['talv'] })],
    ['redirects', 'OLD', redirect('/vana')],
    ['shop-schedules', 'VIRU', { ...hours('10:00', '18:00'), exceptions: [{ date: '2026-12-25', closed: true, names: { et: 'Jõulud' } }] }],
  ];
  for (const [kind, code, body] of existing) expect((await putContent(t, key, kind, code, body)).statusCode).toBe(200);
});
afterAll(() => t.close());

describe('PUT /admin/content/<kind>/{code} of the blog kinds: a broken rule', () => {
  it.each(CASES)('$rule is a 422 on its field in et, en and ru', async ({ kind, code, body, field, messages }) => {
    await expectFieldErrorInEachLanguage((headers) => putContent(t, key, kind, code, body, headers), field, messages);
  });

  it('writes nothing: no record is created, and an existing one keeps what it had', async () => {
    const before = await stored();
    for (const { kind, code, body } of CASES) expect((await putContent(t, key, kind, code, body)).statusCode).toBe(422);
    // Existing records edited with a rule broken: before the write (a window) and in it (a category of another store).
    const keepPost = await putContent(
      t,
      key,
      'blog-posts',
      'TAKEN',
      post('renamed', { tags: ['uus'], visibleFrom: '2026-02-01', visibleTo: '2026-01-01' }),
    );
    const keepCategory = await putContent(t, key, 'blog-posts', 'TAKEN', post('renamed', { tags: ['uus'], category: 'NOPE' }));
    const keepRedirect = await putContent(t, key, 'redirects', 'OLD', redirect('/vana', '/vana'));
    for (const res of [keepPost, keepCategory, keepRedirect]) expect(res.statusCode, res.body).toBe(422);
    expect(await stored()).toEqual(before);
  });
});

describe('an import line of a blog kind that breaks a rule', () => {
  it('is reported by its number with the field, in English whatever language is asked', async () => {
    const before = await stored();
    for (const kind of [...new Set(CASES.map((rule) => rule.kind))]) {
      const cases = CASES.filter((rule) => rule.kind === kind);
      const codeField = kind === 'shop-schedules' ? 'shop' : 'code';
      const lines = cases.map(({ code, body }) => ({ [codeField]: code, ...body }));
      const res = await importContent(t, key, kind, lines, { 'x-app-language': 'ru' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().errors, kind).toEqual(
        cases.map(({ field, messages }, index) => ({ line: index + 1, message: `/${field.replace(/\./g, '/')}: ${messages.en}` })),
      );
    }
    expect(await stored()).toEqual(before);
  });
});
