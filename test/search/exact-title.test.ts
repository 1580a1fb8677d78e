import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as titleKeyMigration from '../../src/db/migrations/2026_12_02_0700_add_search_product_title_key.js';
import { createEngine, foldAllQueued, startRebuild } from '../../src/modules/search/index.js';
import { WALK_MIN_TITLED, walkPays } from '../../src/modules/search/relevance-walk.repository.js';
import { createProduct, type ProductSpec } from '../helpers/catalogue.js';
import { planOfStatement } from '../helpers/query-plans.js';
import { recordingDatabase, type StatementRecorder } from '../helpers/recording-database.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { createBulkProducts } from './bulk-catalogue.js';
import { get, names, q } from './fixtures.js';

// A shopper who types a whole title expects that product first (within its availability: out of stock still
// sinks), above longer titles that start with the same words and above whatever sells more; in search, in its
// walked pages (SQLite, relevance-walk.repository.ts) and in autocomplete. "Exact" is the folded title: case,
// diacritics and punctuation do not count, every word does.

let t: TestApp;
let recorder: StatementRecorder;
const id: Record<string, number> = {};

const SPECS: Record<string, ProductSpec> = {
  forest: { name: 'Mets', salesCount: 1 },
  wild: { name: 'Metsik õde', salesCount: 500 },
  wildFamily: { name: 'Metsik õde ja vend', salesCount: 600 },
  tales: { name: 'Metsa lood', salesCount: 300 },
  sea: { name: 'Mets ja meri', salesCount: 200 },
  birds: { name: 'Linnud', altNames: ['Mets'], salesCount: 900 },
  sister: { name: 'Õde!', salesCount: 2 },
  bog: { name: 'Raba', availability: 'TEMPORARILY_OUT_OF_STOCK', salesCount: 0 },
  frog: { name: 'Rabakonn', availability: 'TEMPORARILY_OUT_OF_STOCK', salesCount: 50 },
  moor: { name: 'Raba ja soo', salesCount: 1 },
  oldBog: { name: 'Raba', availability: 'PERMANENTLY_OUT_OF_STOCK', salesCount: 70 },
  river: { name: 'Jõgi', salesCount: 5 },
  riverSea: { name: 'Jõgi ja meri', salesCount: 9 },
  valley: { name: 'Jõgi ja org', salesCount: 7 },
  spruce: { name: 'Kuusk', salesCount: 0 },
  bulk: { name: 'Bulk book', salesCount: 0 },
  bulkLater: { name: 'Bulk, book', availability: 'TEMPORARILY_OUT_OF_STOCK', salesCount: 0 },
  bulkHidden: { name: 'Bulk book', hiddenWeb: true, salesCount: 5_000 },
};

/** Products whose titles repeat "kuusk": a text rank puts each above the one titled "Kuusk". */
const SPRUCES = 305;

beforeAll(async () => {
  t = await createTestApp({ wrapDatabase: (database) => (recorder = recordingDatabase(database)).handle });
  const db = t.database.db;
  for (const [key, spec] of Object.entries(SPECS)) id[key] = await createProduct(db, spec);
  // SQLite walks the first pages of a text with 2,000 title matches the caller sees; PostgreSQL ranks every match.
  await createBulkProducts(t, engine === 'sqlite' ? 2_600 : 1_000, 'BULK', { fold: false });
  await sql`update product set availability = 'TEMPORARILY_OUT_OF_STOCK' where code like 'BULK-%' and id % 40 <> 0`.execute(db);
  await createBulkProducts(t, SPRUCES, 'SPRUCE', { fold: false });
  await sql`update product set name = 'Kuusk kuusk kuusk ' || id where code like 'SPRUCE-%'`.execute(db);
  await foldAllQueued(t.database, createEngine(t.database));
}, 60_000);
afterAll(() => t.close());

const ids = async (url: string) => (await get<Array<{ id: number }>>(t, url)).body.map((card) => card.id);

describe('a title typed exactly', () => {
  it('comes first, above longer titles that start with it, titles that sell more and tags', async () => {
    expect(await names(t, q('Mets'))).toEqual(['Mets', 'Metsik õde ja vend', 'Metsik õde', 'Metsa lood', 'Mets ja meri', 'Linnud']);
    // A word typed whole matches only itself.
    expect(await names(t, q('Mets '))).toEqual(['Mets', 'Mets ja meri', 'Linnud']);
  });

  it('is compared folded: case, diacritics and punctuation do not count', async () => {
    for (const text of ['mets', 'METS', 'mEtS.']) expect((await names(t, q(text)))[0], text).toBe('Mets');
    for (const text of ['õde', 'ode', 'ÕDE', 'Ode!'])
      expect(await names(t, q(text)), text).toEqual(['Õde!', 'Metsik õde ja vend', 'Metsik õde']);
  });

  it('is every word of a title of several', async () => {
    for (const text of ['Metsik õde', 'metsik ode', 'METSIK  ÕDE'])
      expect(await names(t, q(text)), text).toEqual(['Metsik õde', 'Metsik õde ja vend']);
    // Not a title of this shop: the usual order (sales).
    expect(await names(t, q('Metsik õde ja'))).toEqual(['Metsik õde ja vend']);
    expect(await names(t, q('jõgi ja'))).toEqual(['Jõgi ja meri', 'Jõgi ja org']);
  });

  it('still sinks out of stock: it leads only its own availability class', async () => {
    // In stock first; of those out for now, the exact title before one that sells more; out for good last.
    expect(await ids(q('raba'))).toEqual([id.moor, id.bog, id.frog, id.oldBog]);
  });

  it('follows a product renamed, once its change is folded (a search folds it before answering)', async () => {
    expect(await ids(q('jõgi'))).toEqual([id.river, id.riverSea, id.valley]);
    const db = t.database.db;
    await sql`update product set name = 'Jõgi ja kallas' where id = ${id.river}`.execute(db);
    await sql`update product set name = 'Jõgi' where id = ${id.valley}`.execute(db);
    expect(await ids(q('jõgi'))).toEqual([id.valley, id.riverSea, id.river]);
  });
});

describe('autocomplete', () => {
  interface Suggestions {
    products: Array<{ id: number; name: string }>;
  }
  const suggested = async (term: string) =>
    (await get<Suggestions>(t, `/autocomplete?term=${encodeURIComponent(term)}`)).body.products.map((card) => card.name);

  it('suggests the title typed exactly first, as search orders it', async () => {
    expect((await suggested('mets'))[0]).toBe('Mets');
    expect((await suggested('ÕDE'))[0]).toBe('Õde!');
    expect((await suggested('Metsik õde'))[0]).toBe('Metsik õde');
  });

  it('suggests it where a text rank keeps it out of the best few hundred matches', async () => {
    // Each "Kuusk kuusk kuusk <n>" repeats the word: both engines' text ranks put all of them above "Kuusk".
    expect((await suggested('kuusk'))[0]).toBe('Kuusk');
    expect((await names(t, q('kuusk')))[0]).toBe('Kuusk');
  });
});

describe('a broad text by relevance', () => {
  const CLASS: Record<string, number> = { TEMPORARILY_OUT_OF_STOCK: 1, PERMANENTLY_OUT_OF_STOCK: 2 };

  /** What "bulk book" finds for a guest in WEB in the rule's order, from the rows: every one has both words in the title. */
  async function expected(): Promise<number[]> {
    const rows = await t.database.db
      .selectFrom('product')
      .select(['id', 'name', 'availability', 'sales_count'])
      .where('name', 'like', 'Bulk%book%')
      .where('hidden_web', '=', false)
      .execute();
    const key = (row: (typeof rows)[number]) => [
      CLASS[row.availability] ?? 0,
      ['Bulk book', 'Bulk, book'].includes(row.name) ? 0 : 1,
      -row.sales_count,
      -row.id,
    ];
    return rows
      .sort((a, b) => {
        const [x, y] = [key(a), key(b)];
        const index = x.findIndex((value, i) => value !== y[i]);
        return index < 0 ? 0 : x[index]! - y[index]!;
      })
      .map((row) => row.id);
  }

  it('pages with the exact titles first in their class, no product twice or missing, walked or ranked', async () => {
    if (engine === 'sqlite') {
      // So the first 100 results are walked (relevance-walk.repository.ts).
      const counted = await createEngine(t.database)
        .countVisibleMatches({ terms: ['bulk', 'book'], prefix: true }, 'WEB', 'R', undefined, WALK_MIN_TITLED)!
        .execute(t.database.db);
      expect(walkPays(counted.rows[0]!.titled)).toBe(true);
    }
    const order = await expected();
    // One bulk book in 40 is in stock: the exact title out for now opens the next class within the walked pages.
    expect(order.indexOf(id.bulk!)).toBe(0);
    expect(order.indexOf(id.bulkLater!)).toBeGreaterThan(20);
    expect(order.indexOf(id.bulkLater!)).toBeLessThan(100);
    const bySmallPages: number[] = [];
    for (let page = 1; page <= 7; page++) {
      const { body, total } = await get<Array<{ id: number }>>(t, `/product/search?q=bulk+book&per-page=20&page=${page}`);
      expect(total, `page ${page}`).toBe(order.length);
      bySmallPages.push(...body.map((card) => card.id));
    }
    expect(bySmallPages).toEqual(order.slice(0, 140));
    // Page 1 of 100 is walked, page 2 ranked: together the same order.
    const byLargePages = [
      ...(await ids('/product/search?q=bulk+book&per-page=100&page=1')),
      ...(await ids('/product/search?q=bulk+book&per-page=100&page=2')),
    ];
    expect(byLargePages).toEqual(order.slice(0, 200));
  }, 30_000);
});

describe('the cost of an exact title', () => {
  /** The statements a request runs, and each one's plan. */
  async function statementsOf(url: string) {
    recorder.start();
    await get(t, url);
    const statements = recorder.stop();
    return Promise.all(
      statements.map(async (statement) => ({ sql: statement.sql, plan: await planOfStatement(t.database.db, statement) })),
    );
  }

  it('reads the exact titles by their index, in the statements a search and autocomplete run anyway', async () => {
    const exact = await statementsOf('/product/search?q=bulk+book');
    // "bulk boo" finds the same products but is no title.
    expect(exact).toHaveLength((await statementsOf('/product/search?q=bulk+boo')).length);
    if (engine === 'sqlite') {
      // The walk's title tier reads them beside its walk of the relevance index, in one statement.
      const walks = exact.filter((statement) => statement.sql.includes('where sp.title_key ='));
      expect(walks.length).toBeGreaterThan(0);
      for (const walk of walks) expect(walk.plan).toMatch(/search_product_title_key_idx[^]*search_product_relevance_idx/);
    }
    const suggested = await statementsOf('/autocomplete?term=kuusk');
    const shortlist = suggested.filter((statement) => statement.sql.includes('where t.title_key ='));
    expect(shortlist).toHaveLength(1);
    expect(shortlist[0]!.plan).toContain('search_product_title_key_idx');
  });
});

describe('the title keys', () => {
  const keys = async () =>
    (await sql<{ id: number; title_key: string }>`select id, title_key from search_product order by id`.execute(t.database.db)).rows.map(
      (row) => ({ id: Number(row.id), title_key: row.title_key }),
    );

  it('are the folded titles, written again by a rebuild and, for products before it, by the migration', async () => {
    await foldAllQueued(t.database, createEngine(t.database));
    const folded = await keys();
    expect(folded.find((row) => row.id === id.wildFamily)?.title_key).toBe('metsik ode ja vend');
    expect(folded.find((row) => row.id === id.sister)?.title_key).toBe('ode');
    expect(folded.filter((row) => row.title_key === '')).toEqual([]);
    await startRebuild(t.database, createEngine(t.database), Date.now());
    await foldAllQueued(t.database, createEngine(t.database));
    expect(await keys()).toEqual(folded);
    await titleKeyMigration.down(t.database.db);
    await titleKeyMigration.up(t.database.db);
    expect(await keys()).toEqual(folded);
  }, 30_000);
});
