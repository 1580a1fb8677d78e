import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, FOLD_BATCH, foldBatch } from '../../src/modules/search/index.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Autocomplete ranks a shortlist of the best text matches (search.service.ts). The shortlist is ranked over
// every store's and audience's products: where more of those than it holds outrank the products the caller
// sees, the caller's must still be suggested, as search finds them.

/** More than autocomplete's shortlist (SUGGEST_CANDIDATES, 300) of better matches the caller does not see. */
const CROWD = 320;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  for (let i = 0; i < CROWD; i += 1) {
    // Title matches (the shortlist's best) hidden from the web shop, and title matches of the web store only.
    await createProduct(db, { name: `Kevade ${i}`, hiddenWeb: true });
    await createProduct(db, { name: `Suvi ${i}`, stores: ['WEB'] });
  }
  // The visible ones match by a tag only, which ranks below every title match.
  await createProduct(db, { name: 'Suur raamat talvest', altNames: ['kevadine lugu'] });
  await createProduct(db, { name: 'Väike raamat sügisest', altNames: ['suvine lugu'], stores: ['WEB2'] });
  // Folded here, as a process's background does within a second (a backlog this large answers 503 until then).
  const engine = createEngine(t.database);
  while ((await foldBatch(t.database, engine, FOLD_BATCH, Date.now())) > 0);
}, 120_000);
afterAll(() => t.close());

const found = async (url: string, store: string) => {
  const response = await t.app.inject({ url, headers: { store } });
  expect(response.statusCode, response.body).toBe(200);
  return response;
};
const suggested = async (term: string, store: string) =>
  ((await found(`/autocomplete?term=${term}`, store)).json() as { products: Array<{ name: string }> }).products.map((p) => p.name);

describe('autocomplete behind a shortlist crowded by products the caller does not see', () => {
  it('suggests the visible product that search finds when hidden products crowd the shortlist', async () => {
    const search = await found('/product/search?q=kev', 'WEB');
    expect(search.headers['x-pagination-total-count']).toBe('1');
    expect(await suggested('kev', 'WEB')).toEqual(['Suur raamat talvest']);
  });

  it("suggests a small store's product when another store's products crowd the shortlist", async () => {
    const search = await found('/product/search?q=suv', 'WEB2');
    expect(search.headers['x-pagination-total-count']).toBe('1');
    expect(await suggested('suv', 'WEB2')).toEqual(['Väike raamat sügisest']);
    // Where the shortlist holds enough the caller sees, the suggestions are its best: the web store's title matches.
    const web = await suggested('suv', 'WEB');
    expect(web).toHaveLength(6);
    expect(web.every((name) => name.startsWith('Suvi '))).toBe(true);
  });
});
