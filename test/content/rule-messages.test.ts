import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory } from '../helpers/catalogue.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';
import { importContent, putContent } from './content-helpers.js';
import { expectFieldErrorInEachLanguage, type InEachLanguage } from '../helpers/http.js';
import { notADate, WINDOW_ORDER } from '../helpers/import-rule-messages.js';

// The rules of operator input a schema cannot say (content-write.service.ts): a PUT answers a
// broken one as a 422 on its field in the caller's language (et, en, ru) and writes nothing; an
// import reports it after the line's number in English, whatever language the request asks for.

let t: TestApp;
let key: string;

const title = { et: { title: 'Pealkiri' } };
const contentPage = (slug: string, extra: Record<string, unknown> = {}) => ({
  store: 'WEB',
  slug,
  translations: { et: { title: 'Leht', body: '<p>Sisu</p>' } },
  ...extra,
});
const blockPage = (extra: Record<string, unknown>) => ({ store: 'WEB', translations: title, blocks: [], ...extra });
const richText = { type: 'RICH_TEXT', translations: { et: { body: '<p>Tekst</p>' } } };

interface RuleCase {
  rule: string;
  kind: 'content-pages' | 'composite-pages' | 'banners';
  code: string;
  body: Record<string, unknown>;
  field: string;
  messages: InEachLanguage;
}

const CASES: RuleCase[] = [
  {
    rule: 'a window that ends before it starts',
    kind: 'content-pages',
    code: 'R-WINDOW',
    body: contentPage('r-window', { visibleFrom: '2026-01-02', visibleTo: '2026-01-01' }),
    field: 'visibleTo',
    messages: WINDOW_ORDER,
  },
  {
    rule: "a block's window that ends before it starts",
    kind: 'composite-pages',
    code: 'R-BLOCK-WINDOW',
    body: blockPage({ slug: 'r-block-window', blocks: [{ ...richText, visibleFrom: '2026-01-02', visibleTo: '2026-01-01' }] }),
    field: 'blocks.0.visibleTo',
    messages: WINDOW_ORDER,
  },
  {
    rule: 'a day the calendar lacks',
    kind: 'banners',
    code: 'R-DATE',
    body: { store: 'WEB', placement: 'HEADER', translations: title, visibleFrom: '2026-02-30' },
    field: 'visibleFrom',
    messages: notADate('2026-02-30'),
  },
  {
    rule: 'a slug another page of the store has',
    kind: 'content-pages',
    code: 'R-SLUG',
    body: contentPage('taken'),
    field: 'slug',
    messages: {
      et: '"taken" on poes WEB juba kasutusel (kood "TAKEN")',
      en: '"taken" is already used by "TAKEN" in store WEB',
      ru: '«taken» уже используется в магазине WEB (код «TAKEN»)',
    },
  },
  {
    rule: 'a composite page without a slug',
    kind: 'composite-pages',
    code: 'R-NO-SLUG',
    body: blockPage({}),
    field: 'slug',
    messages: {
      et: 'on COMPOSITE-tüüpi lehel kohustuslik',
      en: 'required for a COMPOSITE page',
      ru: 'обязательно для страницы типа COMPOSITE',
    },
  },
  {
    rule: 'a discount page without a campaign',
    kind: 'composite-pages',
    code: 'R-NO-CAMPAIGN',
    body: blockPage({ kind: 'DISCOUNT', slug: 'r-no-campaign' }),
    field: 'campaign',
    messages: {
      et: 'on DISCOUNT-tüüpi lehel kohustuslik',
      en: 'required for a DISCOUNT page',
      ru: 'обязательно для страницы типа DISCOUNT',
    },
  },
  {
    rule: 'a category page without a category',
    kind: 'composite-pages',
    code: 'R-NO-CATEGORY',
    body: blockPage({ kind: 'CATEGORY' }),
    field: 'category',
    messages: {
      et: 'on CATEGORY-tüüpi lehel kohustuslik',
      en: 'required for a CATEGORY page',
      ru: 'обязательно для страницы типа CATEGORY',
    },
  },
  {
    rule: 'a category of another store',
    kind: 'composite-pages',
    code: 'R-CATEGORY',
    body: blockPage({ kind: 'CATEGORY', category: 'OUTLET-ONLY' }),
    field: 'category',
    messages: {
      et: 'poes WEB ei ole kategooriat "OUTLET-ONLY"',
      en: 'there is no category "OUTLET-ONLY" in store WEB',
      ru: 'в магазине WEB нет категории «OUTLET-ONLY»',
    },
  },
  {
    rule: "a block without its type's field",
    kind: 'composite-pages',
    code: 'R-BLOCK',
    body: blockPage({ slug: 'r-block', blocks: [richText, { type: 'BANNER' }] }),
    field: 'blocks.1.placement',
    messages: { et: 'on BANNER-tüüpi plokil kohustuslik', en: 'required for a BANNER block', ru: 'обязательно для блока типа BANNER' },
  },
  {
    rule: 'a rich text block without a body',
    kind: 'composite-pages',
    code: 'R-RICH',
    body: blockPage({ slug: 'r-rich', blocks: [{ type: 'RICH_TEXT', translations: { en: { title: 'No body' } } }] }),
    field: 'blocks.0.translations',
    messages: {
      et: 'RICH_TEXT-tüüpi plokil peab vähemalt ühes keeles olema body',
      en: 'a RICH_TEXT block needs a body in at least one language',
      ru: 'блоку типа RICH_TEXT нужен body хотя бы на одном языке',
    },
  },
];

const TABLE = { 'content-pages': 'content_page', 'composite-pages': 'block_page', banners: 'banner' } as const;

async function storedCodes(codes: string[]): Promise<string[]> {
  const db = t.database.db;
  const found: string[] = [];
  for (const table of Object.values(TABLE)) {
    const rows = await db.selectFrom(table).select('code').where('code', 'in', codes).execute();
    found.push(...rows.map((row) => row.code));
  }
  return found;
}

beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
  await createCategory(t.database.db, { et: 'Outlet' }, { code: 'OUTLET-ONLY', store: 'WEB2' });
  expect((await putContent(t, key, 'content-pages', 'TAKEN', contentPage('taken'))).statusCode).toBe(200);
  expect((await putContent(t, key, 'composite-pages', 'KEEP', blockPage({ slug: 'keep', blocks: [richText] }))).statusCode).toBe(200);
});
afterAll(() => t.close());

describe('PUT /admin/content/<kind>/{code}: a broken rule', () => {
  it.each(CASES)('$rule is a 422 on its field in et, en and ru', async ({ kind, code, body, field, messages }) => {
    await expectFieldErrorInEachLanguage((headers) => putContent(t, key, kind, code, body, headers), field, messages);
  });

  it('writes nothing: no item is created, and an existing one keeps what it had', async () => {
    for (const { kind, code, body } of CASES) expect((await putContent(t, key, kind, code, body)).statusCode).toBe(422);
    expect(await storedCodes(CASES.map((rule) => rule.code))).toEqual([]);
    const before = await t.database.db.selectFrom('block_page').selectAll().where('code', '=', 'KEEP').executeTakeFirstOrThrow();
    const refused = await putContent(t, key, 'composite-pages', 'KEEP', {
      ...blockPage({ slug: 'keep-renamed', blocks: [richText, { type: 'BANNER' }] }),
      translations: { et: { title: 'Uus' } },
    });
    expect(refused.statusCode, refused.body).toBe(422);
    const after = await t.database.db.selectFrom('block_page').selectAll().where('code', '=', 'KEEP').executeTakeFirstOrThrow();
    expect(after).toEqual(before);
    const blocks = await t.database.db.selectFrom('page_block').select('type').where('page_id', '=', before.id).execute();
    expect(blocks.map((block) => block.type)).toEqual(['RICH_TEXT']);
  });
});

describe('an import line that breaks a rule', () => {
  it('is reported by its number with the field, in English whatever language is asked', async () => {
    for (const kind of ['content-pages', 'composite-pages', 'banners'] as const) {
      const cases = CASES.filter((rule) => rule.kind === kind);
      const res = await importContent(
        t,
        key,
        kind,
        cases.map(({ code, body }) => ({ code, ...body })),
        { 'x-app-language': 'ru' },
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().errors).toEqual(
        cases.map(({ field, messages }, index) => ({ line: index + 1, message: `/${field.replace(/\./g, '/')}: ${messages.en}` })),
      );
    }
    expect(await storedCodes(CASES.map((rule) => rule.code))).toEqual([]);
  });
});

describe('PUT /admin/content/<kind>/{code}: a control character in a URL', () => {
  it("is a 422 on its field in the caller's language, and nothing is written", async () => {
    const banner = (extra: Record<string, unknown>) => ({ store: 'WEB', placement: 'HEADER', translations: title, ...extra });
    const cases = [
      { code: 'R-LINK-URL', body: banner({ linkUrl: '/raamatud\u0000' }), field: 'linkUrl' },
      { code: 'R-LINK-HTTP', body: banner({ linkUrl: 'https://example.com/\u001b[31m' }), field: 'linkUrl' },
      { code: 'R-IMAGE-URL', body: banner({ imageUrl: 'https://cdn.example.com/a\u0085.png' }), field: 'imageUrl' },
    ];
    for (const { code, body, field } of cases) {
      const res = await putContent(t, key, 'banners', code, body, { 'x-app-language': 'en' });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toEqual([{ field, message: `${field} contains characters that are not allowed.` }]);
      const et = await putContent(t, key, 'banners', code, body, { 'x-app-language': 'et' });
      expect(et.json()).toEqual([{ field, message: `${field} sisaldab lubamatuid märke.` }]);
    }
    expect(await storedCodes(cases.map((rule) => rule.code))).toEqual([]);
    expect((await putContent(t, key, 'banners', 'R-LINK-OK', banner({ linkUrl: '/raamatud?sort=new' }))).statusCode).toBe(200);
  });
});
