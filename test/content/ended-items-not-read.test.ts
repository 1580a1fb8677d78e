import { TableNode, type CompiledQuery, type KyselyPlugin, type QueryId } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createCategory } from '../helpers/catalogue.js';
import { planOfStatement } from '../helpers/query-plans.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { wrappedDatabase } from '../helpers/wrapped-database.js';
import { DAY, importContent, iso, read } from './content-helpers.js';

// A store's main page, a category's landing page and the mega menu are the one shown of the
// key's items (the one that started last), and a placement's banners are the ones shown now. A shop
// schedules one for each season and sale, and what ended stays until an operator deletes it: each
// read loaded every item the key ever had (rows with their translations), a read that grew with
// every season. Now only what can still be shown or change the answer is read: items that have not
// ended, and of the open-ended ones that started, the one that started last.

const ENDED = 30;

let t: TestApp;
let key: string;
let categoryId: number;
/** Rows each table's selects returned while `counting`, and the statements. */
const rowsRead = new Map<string, number>();
const statements: Array<{ table: string; statement: CompiledQuery }> = [];
let counting = false;

beforeAll(async () => {
  const sqls = new Map<QueryId, string>();
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      const from = node.kind === 'SelectQueryNode' ? node.from?.froms[0] : undefined;
      if (from !== undefined && TableNode.is(from)) {
        sqls.set(queryId, from.table.identifier.name);
        if (counting)
          statements.push({ table: from.table.identifier.name, statement: t.database.db.getExecutor().compileQuery(node, queryId) });
      }
      return node;
    },
    async transformResult({ result, queryId }) {
      const table = sqls.get(queryId);
      sqls.delete(queryId);
      if (counting && table !== undefined) rowsRead.set(table, (rowsRead.get(table) ?? 0) + result.rows.length);
      return result;
    },
  };
  t = await createTestApp({ wrapDatabase: (database) => wrappedDatabase(database, plugin, () => {}) });
  key = await createApiKey(t.database.db, 'back-office', Date.now());
  categoryId = await createCategory(t.database.db, { et: 'Ilukirjandus' }, { code: 'FICTION' });

  const now = Date.now();
  const title = (et: string) => ({ et: { title: et } });
  // Seasons that came and went, each after the lasting item began: a week each, the last one ended a day ago.
  const season = (i: number) => ({
    visibleFrom: iso(now - (ENDED - i) * 10 * DAY - 8 * DAY),
    visibleTo: iso(now - (ENDED - i) * 10 * DAY - DAY),
  });
  const seasons = Array.from({ length: ENDED }, (_, i) => i);
  const lasting = { visibleFrom: iso(now - 400 * DAY) };
  const pages = [
    { code: 'HOME', store: 'WEB', kind: 'MAIN', ...lasting, translations: title('Avaleht'), blocks: [] },
    ...seasons.map((i) => ({
      code: `HOME-${i}`,
      store: 'WEB',
      kind: 'MAIN',
      ...season(i),
      translations: title(`Hooaeg ${i}`),
      blocks: [],
    })),
    { code: 'FICTION', store: 'WEB', kind: 'CATEGORY', category: 'FICTION', ...lasting, translations: title('Ilukirjandus'), blocks: [] },
    ...seasons.map((i) => ({
      code: `FICTION-${i}`,
      store: 'WEB',
      kind: 'CATEGORY',
      category: 'FICTION',
      ...season(i),
      translations: title(`Ilukirjandus ${i}`),
      blocks: [],
    })),
  ];
  expect((await importContent(t, key, 'composite-pages', pages)).statusCode).toBe(200);
  const menus = [
    { code: 'MENU', store: 'WEB', ...lasting, links: [{ url: '/kestev', labels: { et: 'Kestev' } }] },
    ...seasons.map((i) => ({
      code: `MENU-${i}`,
      store: 'WEB',
      ...season(i),
      links: [{ url: `/hooaeg-${i}`, labels: { et: `Hooaeg ${i}` } }],
    })),
  ];
  expect((await importContent(t, key, 'menus', menus)).statusCode).toBe(200);
  const banners = [
    { code: 'LASTING', store: 'WEB', placement: 'HEADER', ...lasting, translations: title('Kestev') },
    ...seasons.map((i) => ({ code: `SALE-${i}`, store: 'WEB', placement: 'HEADER', ...season(i), translations: title(`Soodus ${i}`) })),
  ];
  expect((await importContent(t, key, 'banners', banners)).statusCode).toBe(200);
});
afterAll(() => t?.close());

async function readCounting(url: string) {
  rowsRead.clear();
  statements.length = 0;
  counting = true;
  try {
    const res = await read(t, url);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  } finally {
    counting = false;
  }
}

it('reads a few of the main pages for GET /main-page, not every season the store ever had', async () => {
  expect(await readCounting('/main-page')).toMatchObject({ code: 'HOME', title: 'Avaleht' });
  expect(rowsRead.get('block_page')).toBeLessThanOrEqual(3);
});

it("reads a few of the category's pages for GET /category-page/{id}", async () => {
  expect(await readCounting(`/category-page/${categoryId}`)).toMatchObject({ code: 'FICTION', title: 'Ilukirjandus' });
  expect(rowsRead.get('block_page')).toBeLessThanOrEqual(3);
});

it('reads a few of the menus for GET /mega-menu', async () => {
  const menu = await readCounting('/mega-menu');
  expect(menu.links.map((link: { url: string }) => link.url)).toEqual(['/kestev']);
  expect(rowsRead.get('menu')).toBeLessThanOrEqual(3);
});

it('reads the banners shown now for GET /header-banner, not the ended ones', async () => {
  expect((await readCounting('/header-banner')).map((banner: { code: string }) => banner.code)).toEqual(['LASTING']);
  expect(rowsRead.get('banner')).toBeLessThanOrEqual(3);
});

it('an operator preview still picks the one that started last, drafts and ended ones included', async () => {
  const res = await read(t, '/main-page?preview=1', { authorization: `Bearer ${key}` });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ code: `HOME-${ENDED - 1}` });
});

// On SQLite, whose plans do not hang on statistics: every part is a range of the key's window index,
// and the one that started last is the range's last entry (no sort). PostgreSQL picks among its
// indexes by statistics, which a table of sixty rows does not make telling: the rows read above are
// the check there.
it.runIf(engine === 'sqlite')('reads them as ranges of the window indexes, unsorted', async () => {
  const expected = { block_page: 'block_page_window_idx', menu: 'menu_window_idx', banner: 'banner_window_idx' } as Record<string, string>;
  let explained = 0;
  for (const url of ['/main-page', `/category-page/${categoryId}`, '/mega-menu', '/header-banner']) {
    await readCounting(url);
    for (const { table, statement } of statements) {
      if (expected[table] === undefined) continue;
      const plan = await planOfStatement(t.database.db, statement);
      expect(plan, statement.sql).toMatch(new RegExp(`^SEARCH ${table} USING INDEX ${expected[table]} \\(.*visible_to[<>=]`));
      expect(plan, statement.sql).not.toMatch(/TEMP B-TREE/);
      explained += 1;
    }
  }
  expect(explained).toBeGreaterThanOrEqual(12);
});
