import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, FOLD_BATCH, foldBatch } from '../../src/modules/search/index.js';
import { createProduct, type ProductSpec } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { recordingDatabase, type StatementRecorder } from '../helpers/recording-database.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

// Autocomplete ranks a shortlist of everyone's best text matches (SUGGEST_CANDIDATES, search.service.ts); where
// products the caller does not see crowd it (hidden from the caller's audience, or another store's), it ranks every
// match the caller sees instead, as search ranks them. On SQLite those are told by the text index (its `hidden`
// words), so the others' matches are neither ranked nor looked up; the answers are the same on both engines.

/** More than autocomplete's shortlist (SUGGEST_CANDIDATES, 300) of better matches the caller does not see. */
const CROWD = 310;

/** Each case's text, whom its crowd is hidden from (public web shop, WEB2's guest, business catalogue) and how. */
const CASES: Array<{ word: string; store: string; business: boolean; crowd: ProductSpec }> = [
  { word: 'pilv', store: 'WEB', business: false, crowd: { hiddenWeb: true } },
  { word: 'vihm', store: 'WEB2', business: false, crowd: { stores: ['WEB'] } },
  { word: 'udu', store: 'WEB', business: true, crowd: { hiddenBusiness: true } },
];

let t: TestApp;
let recorder: StatementRecorder;
let business: TestCustomer;

/** The products the caller sees: titles and tags of the text, one title out of stock, by sales. */
async function visibleProducts(word: string, spec: ProductSpec) {
  const db = t.database.db;
  for (let i = 1; i <= 3; i += 1) await createProduct(db, { ...spec, name: `${word} nähtav ${i}`, salesCount: i });
  await createProduct(db, { ...spec, name: `${word} otsas`, salesCount: 100, availability: 'TEMPORARILY_OUT_OF_STOCK' });
  for (let i = 1; i <= 4; i += 1)
    await createProduct(db, { ...spec, name: `Raamat x ${i}`, altNames: [`${word}ane ilm ${i}`], salesCount: i });
}

beforeAll(async () => {
  t = await createTestApp({ wrapDatabase: (database) => (recorder = recordingDatabase(database)).handle });
  business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
  for (const { word, store, crowd } of CASES) {
    // Title matches of two words: better than every match the caller sees (longer titles, or tags).
    for (let i = 0; i < CROWD; i += 1) await createProduct(t.database.db, { name: `${word} ${i}`, ...crowd });
    await visibleProducts(word, { stores: [store] });
  }
  // Folded here, as a process's background does within a second (a backlog this large answers 503 until then).
  const searchEngine = createEngine(t.database);
  while ((await foldBatch(t.database, searchEngine, FOLD_BATCH, Date.now())) > 0);
}, 120_000);
afterAll(() => t.close());

const headersOf = (store: string, asBusiness: boolean) => ({
  store,
  ...(asBusiness ? { authorization: `Bearer ${business.token}` } : {}),
});
const answer = async (url: string, store: string, asBusiness: boolean) => {
  const response = await t.app.inject({ url, headers: headersOf(store, asBusiness) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as unknown;
};
const suggested = async (term: string, store: string, asBusiness = false) =>
  ((await answer(`/autocomplete?term=${term}`, store, asBusiness)) as { products: Array<{ name: string }> }).products.map((p) => p.name);
const searched = async (term: string, store: string, asBusiness = false) =>
  ((await answer(`/product/search?q=${term}`, store, asBusiness)) as Array<{ name: string }>).map((p) => p.name);

describe('autocomplete behind products the caller does not see', () => {
  it.each(CASES)(
    'suggests what search ranks first for $word in $store (business: $business)',
    async ({ word, store, business: asBusiness }) => {
      const expected = [3, 2, 1].map((i) => `${word} nähtav ${i}`).concat([4, 3, 2].map((i) => `Raamat x ${i}`));
      expect(await suggested(word, store, asBusiness)).toEqual(expected);
      expect((await searched(word, store, asBusiness)).slice(0, 6)).toEqual(expected);
    },
  );
});

// PostgreSQL's documents hold no visibility: there every match is ranked and looked up, as before.
describe.runIf(engine === 'sqlite')('ranking the matches the caller sees by the text index (SQLite)', () => {
  it("ranks only the caller's matches where everyone's best are another store's", async () => {
    // Another limit: not the answer cached above.
    recorder.start();
    expect(await suggested('vihm&productLimit=5', 'WEB2')).toEqual([
      'vihm nähtav 3',
      'vihm nähtav 2',
      'vihm nähtav 1',
      'Raamat x 4',
      'Raamat x 3',
    ]);
    const reads = recorder.stop().filter((statement) => statement.sql.includes('search_product_fts'));
    // The shortlist, whether the text matches more than it held, then every match by tier: only those without WEB2's word.
    expect(reads).toHaveLength(3);
    expect(reads[2]!.parameters).toContain('{title tags persons publisher series} : ("vihm"*) NOT hidden : "0r57454232"');
  });

  it("suggests a product shown again before its document's words say so", async () => {
    await sql`update product set hidden_web = ${false} where name = 'pilv 0'`.execute(t.database.db);
    // Its words still say it is hidden from the web shop: every match is ranked, and the rows tell who sees it.
    expect(await suggested('pil', 'WEB')).toEqual([
      'pilv nähtav 3',
      'pilv nähtav 2',
      'pilv nähtav 1',
      'pilv 0',
      'Raamat x 4',
      'Raamat x 3',
    ]);
    await sql`update product set hidden_web = ${true} where name = 'pilv 0'`.execute(t.database.db);
  });
});
