import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOfficeApp } from '../helpers/back-office.js';
import { expectErrorBody, expectFieldErrorInEachLanguage } from '../helpers/http.js';
import type { TestApp } from '../helpers/test-app.js';
import { importContent, putContent, read } from './content-helpers.js';

// Every link target an operator stores (a banner's linkUrl, an IMAGE block's linkUrl, a LINKS
// block's and a menu's link urls, a redirect's target) is a path of the shop starting with one `/`
// or an http(s) URL (http/link-target.ts). `//host/...` and `/\host/...` are refused: a browser
// takes both for a URL of another host, so the shopper would be sent off the shop. The PUT answers a
// 422 on the field in the caller's language, an import reports the line, and nothing is written;
// a redirect stored before the rule held is not served.

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

const BAD = [
  '//evil.example/path',
  '/\\evil.example/path',
  '///evil.example',
  '/\\/evil.example',
  'javascript:alert(1)',
  'ftp://files.example/a',
  'evil.example/path',
  'https:/evil.example',
];
const GOOD = ['/', '/raamatud?sort=new', '/a//b', 'https://campaign.example/sale', 'http://shop.example'];

const title = { et: { title: 'Pealkiri' } };
const labels = { et: 'Link' };

interface Route {
  kind: 'banners' | 'composite-pages' | 'menus' | 'redirects';
  /** The PUT body (an import line without its code) whose one link target is `target`. */
  body(target: string, n: number): Record<string, unknown>;
  field: string;
}

const ROUTES: Route[] = [
  { kind: 'banners', field: 'linkUrl', body: (target) => ({ store: 'WEB', placement: 'HEADER', translations: title, linkUrl: target }) },
  {
    kind: 'composite-pages',
    field: 'blocks.0.linkUrl',
    body: (target, n) => ({
      store: 'WEB',
      slug: `pilt-${n}`,
      translations: title,
      blocks: [{ type: 'IMAGE', imageUrl: 'https://cdn.example/a.png', linkUrl: target }],
    }),
  },
  {
    kind: 'composite-pages',
    field: 'blocks.0.links.0.url',
    body: (target, n) => ({
      store: 'WEB',
      slug: `lingid-${n}`,
      translations: title,
      blocks: [{ type: 'LINKS', links: [{ url: target, labels }] }],
    }),
  },
  { kind: 'menus', field: 'links.0.url', body: (target) => ({ store: 'WEB', links: [{ url: target, labels }] }) },
  { kind: 'redirects', field: 'target', body: (target, n) => ({ store: 'WEB', path: `/vana-${n}`, target }) },
];

const TABLES = { banners: 'banner', 'composite-pages': 'block_page', menus: 'menu', redirects: 'redirect' } as const;
const storedCodes = async (kind: Route['kind']) =>
  (await t.database.db.selectFrom(TABLES[kind]).select('code').execute()).map((row) => row.code).sort();

const MESSAGES = (field: string) => ({
  en: `${field} must be a path of the shop starting with a single "/", or an http(s) URL.`,
  et: `${field} peab olema poe aadress, mis algab ühe märgiga "/", või http(s) URL.`,
  ru: `Значение «${field}» должно быть путём магазина, начинающимся с одного «/», или http(s) URL.`,
});

describe('PUT /admin/content/<kind>/{code}: a link target', () => {
  it.each(ROUTES)('$kind $field: another host behind a path, or no http(s) URL, is a 422 and writes nothing', async (route) => {
    const before = await storedCodes(route.kind);
    for (const [n, target] of BAD.entries()) {
      await expectFieldErrorInEachLanguage(
        (headers) => putContent(t, key, route.kind, `BAD-${n}`, route.body(target, n), headers),
        route.field,
        MESSAGES(route.field),
      );
    }
    expect(await storedCodes(route.kind)).toEqual(before);
  });

  it.each(ROUTES)('$kind $field: a path of the shop or an http(s) URL is stored', async (route) => {
    for (const [n, target] of GOOD.entries()) {
      const res = await putContent(t, key, route.kind, `GOOD-${route.field}-${n}`.replace(/\./g, '-'), route.body(target, 100 + n));
      expect(res.statusCode, `${target}: ${res.body}`).toBe(200);
    }
  });
});

describe('POST /admin/import/<kind>: a line with a link target of another host', () => {
  it.each(ROUTES)('$kind $field: the line is reported by its number and not written', async (route) => {
    const before = await storedCodes(route.kind);
    const lines = BAD.map((target, n) => ({ code: `IMPORT-BAD-${n}`, ...route.body(target, 200 + n) }));
    const res = await importContent(t, key, route.kind, lines);
    expect(res.statusCode, res.body).toBe(200);
    const pointer = `/${route.field.replace(/\./g, '/')}`;
    expect(res.json().errors).toEqual(
      BAD.map((_, n) => ({ line: n + 1, message: `${pointer}: must be a path of the shop starting with a single "/", or an http(s) URL` })),
    );
    expect(await storedCodes(route.kind)).toEqual(before);
  });
});

describe('GET /external-url of a redirect stored before the rule held', () => {
  it('is a 404 and counts no hit, whichever form sends the shopper to another host', async () => {
    const imported = await importContent(t, key, 'redirects', [
      { code: 'OLD-1', store: 'WEB', path: '/vana-leht-1', target: '/uus' },
      { code: 'OLD-2', store: 'WEB', path: '/vana-leht-2', target: '/uus' },
      { code: 'OLD-3', store: 'WEB', path: '/vana-leht-3', target: '/uus' },
    ]);
    expect(imported.json(), imported.body).toMatchObject({ errorCount: 0 });
    expect((await read(t, '/external-url?path=/vana-leht-1')).json()).toMatchObject({ target: '/uus' });
    // The admin's read writes that hit's count first, before the rows are reset below.
    expect((await read(t, '/admin/content/redirects/OLD-1', { authorization: `Bearer ${key}` })).json()).toMatchObject({ hits: 1 });
    // What an import let through before: written as it was stored then.
    const stale = { 'OLD-1': '//evil.example/path', 'OLD-2': '/\\evil.example/path', 'OLD-3': 'javascript:alert(1)' };
    for (const [code, target] of Object.entries(stale)) {
      await t.database.db.updateTable('redirect').set({ target, hits: 0 }).where('code', '=', code).execute();
    }
    for (const [n, code] of Object.keys(stale).entries()) {
      expectErrorBody(await read(t, `/external-url?path=/vana-leht-${n + 1}`), 404, 'Not Found');
      const admin = await read(t, `/admin/content/redirects/${code}`, { authorization: `Bearer ${key}` });
      expect(admin.json()).toMatchObject({ target: stale[code as keyof typeof stale], hits: 0 });
    }
  });
});

describe('links stored before the rule held, as the shop shows them', () => {
  it('are not shown where they lead to another host: a banner and an image without a link, and the link lists without them', async () => {
    const links = [
      { url: '/hea', labels: { et: 'Hea' } },
      { url: '/ka-hea', labels: { et: 'Ka hea' } },
    ];
    const imported = [
      await importContent(t, key, 'banners', [
        { code: 'STALE-B', store: 'WEB2', placement: 'HEADER', translations: title, linkUrl: '/hea' },
      ]),
      await importContent(t, key, 'composite-pages', [
        {
          code: 'STALE-P',
          store: 'WEB2',
          slug: 'vana-sisu',
          translations: title,
          blocks: [
            { type: 'IMAGE', imageUrl: 'https://cdn.example/a.png', linkUrl: '/hea' },
            { type: 'LINKS', links },
          ],
        },
      ]),
      await importContent(t, key, 'menus', [{ code: 'STALE-M', store: 'WEB2', links }]),
    ];
    for (const res of imported) expect(res.json(), res.body).toMatchObject({ errorCount: 0 });
    // What an import let through before: the first link of each made another host's.
    const db = t.database.db;
    const evil = '//evil.example/path';
    await db.updateTable('banner').set({ link_url: evil }).where('code', '=', 'STALE-B').execute();
    const page = await db.selectFrom('block_page').select('id').where('code', '=', 'STALE-P').executeTakeFirstOrThrow();
    for (const block of await db.selectFrom('page_block').select(['id', 'settings']).where('page_id', '=', page.id).execute()) {
      const settings = block.settings.replace('"/hea"', JSON.stringify(evil));
      await db.updateTable('page_block').set({ settings }).where('id', '=', block.id).execute();
    }
    const menu = await db.selectFrom('menu').select('links').where('code', '=', 'STALE-M').executeTakeFirstOrThrow();
    await db
      .updateTable('menu')
      .set({ links: menu.links.replace('"/hea"', JSON.stringify('/\\evil.example')) })
      .where('code', '=', 'STALE-M')
      .execute();

    const web2 = { store: 'WEB2' };
    const banners = (await read(t, '/header-banner', web2)).json();
    expect(banners).toEqual([expect.objectContaining({ code: 'STALE-B', linkUrl: null })]);
    const blocks = (await read(t, '/composite-page/vana-sisu', web2)).json().blocks;
    expect(blocks).toEqual([
      expect.objectContaining({ type: 'IMAGE', linkUrl: null }),
      expect.objectContaining({ type: 'LINKS', links: [{ url: '/ka-hea', label: 'Ka hea' }] }),
    ]);
    expect((await read(t, '/mega-menu', web2)).json().links).toEqual([{ url: '/ka-hea', label: 'Ka hea', categoryId: null }]);
  });
});
