import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson, createProduct } from '../helpers/catalogue.js';
import { recordingDatabase, type StatementRecorder } from '../helpers/recording-database.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { get, names, q } from './fixtures.js';

// Autocomplete's suggestions are the first results the search page shows for the same text: relevance (out of stock
// sinks, a title typed exactly first, title matches above persons' above tags', then sales), applied to its
// shortlist of the best text matches. Each text here has products that the engines' text ranks (bm25, ts_rank)
// order otherwise: a word repeated in a title or a tag, a short title, a match in a long document.

let t: TestApp;
let recorder: StatementRecorder;

/** Words that lengthen a document without matching any text asked here. */
const FILLER = Array.from({ length: 40 }, (_, i) => `sõna${i}`).join(' ');

beforeAll(async () => {
  t = await createTestApp({ wrapDatabase: (database) => (recorder = recordingDatabase(database)).handle });
  const db = t.database.db;
  const ships = [
    { name: 'Laev laev laev', salesCount: 1 },
    { name: 'Laevad ja sadamad Eesti rannikul', salesCount: 300 },
    { name: 'Laevareis', salesCount: 100 },
    { name: 'Laevastik', salesCount: 900, availability: 'TEMPORARILY_OUT_OF_STOCK' as const },
    { name: 'Laev laev', salesCount: 0, availability: 'PERMANENTLY_OUT_OF_STOCK' as const },
    { name: 'Meresõit', altNames: ['laev laev laev laev laev laev'], salesCount: 2_000 },
    { name: 'Laev laev laev laev', salesCount: 5_000, hiddenWeb: true },
  ];
  const wind = await createPerson(db, 'Tuuli Kask');
  const winds = [
    { name: 'Tuulte raamat', altNames: [FILLER], salesCount: 1 },
    { name: 'Mägi', persons: [{ id: wind }], salesCount: 2 },
    { name: 'Meri', altNames: [Array.from({ length: 20 }, () => 'tuul').join(' ')], salesCount: 500 },
  ];
  const rivers = [
    { name: 'Jõgi', salesCount: 0 },
    { name: 'Jõgi jõgi jõgi', salesCount: 50 },
    { name: 'Jõgikallas', salesCount: 900 },
    { name: 'Jõgi', salesCount: 10_000, hiddenWeb: true },
  ];
  for (const spec of [...ships, ...winds, ...rivers]) await createProduct(db, spec);
}, 60_000);
afterAll(() => t.close());

const suggested = async (term: string, limit = 6) =>
  (
    await get<{ products: Array<{ name: string }> }>(t, `/autocomplete?term=${encodeURIComponent(term)}&productLimit=${limit}`)
  ).body.products.map((card) => card.name);

/** The suggestions, after asserting that they are the search page's first results for the same text. */
async function suggestedAsSearched(term: string): Promise<string[]> {
  const suggestions = await suggested(term);
  expect(suggestions, term).toEqual((await names(t, q(term))).slice(0, 6));
  return suggestions;
}

describe("autocomplete's product order", () => {
  it('is relevance: what sells more before a word repeated, out of stock last, tags after titles', async () => {
    expect(await suggestedAsSearched('laev')).toEqual([
      'Laevad ja sadamad Eesti rannikul',
      'Laevareis',
      'Laev laev laev',
      'Meresõit',
      'Laevastik',
      'Laev laev',
    ]);
  });

  it('puts title matches above persons and persons above tags, whatever a text rank makes of length and repeats', async () => {
    expect(await suggestedAsSearched('tuul')).toEqual(['Tuulte raamat', 'Mägi', 'Meri']);
  });

  it('still puts a title typed exactly first and leaves hidden products out', async () => {
    expect(await suggestedAsSearched('jõgi')).toEqual(['Jõgi', 'Jõgikallas', 'Jõgi jõgi jõgi']);
    expect(await suggestedAsSearched('jõgi ')).toEqual(['Jõgi', 'Jõgi jõgi jõgi']);
  });
});

describe("the cost of the shortlist's order", () => {
  it('is worked out in the statement that reads the shortlist: one ranked read of the text index', async () => {
    recorder.start();
    // Another limit than above: not a cached answer.
    expect(await suggested('laev', 2)).toEqual(['Laevad ja sadamad Eesti rannikul', 'Laevareis']);
    // The products' text index ranked (the names have one of their own).
    const [index, rank] = engine === 'sqlite' ? ['search_product_fts', 'bm25('] : ['search_document', 'ts_rank('];
    const ranked = recorder.stop().filter((statement) => statement.sql.includes(index) && statement.sql.includes(rank));
    expect(ranked).toHaveLength(1);
    // Its tiers: every word in the title, in the title and persons.
    const tiers = engine === 'sqlite' ? ['title : ("laev"*)', '{title persons} : ("laev"*)'] : ["'laev':*A", "'laev':*AB"];
    expect(ranked[0]!.parameters).toEqual(expect.arrayContaining(tiers));
  });
});
