import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createSearchCatalogue, get, type SearchCatalogue } from './fixtures.js';

// Dynamic filters: every facet value's count is the total the search gives with that value added,
// for text searches, filtered searches and category pages; and the searches within one facet.

let t: TestApp;
let c: SearchCatalogue;
beforeAll(async () => {
  t = await createTestApp();
  c = await createSearchCatalogue(t);
});
afterAll(() => t.close());

interface Named {
  id: number;
  code: string;
  name: string;
  count: number;
}
interface Facets {
  total: number;
  capped: boolean;
  categories: Array<Named & { level: number; parentId: number | null }>;
  persons: Named[];
  bindings: Array<{ code: string; name: string; count: number }>;
  publishers: Named[];
  series: Named[];
  languages: Array<{ code: string; count: number }>;
  types: Array<{ code: string; count: number }>;
  price: { min: number; max: number } | null;
}

const facets = (params: string, language = 'et') =>
  t.app.inject({ url: `/product-dynamic-filter/filters?${params}`, headers: { 'x-app-language': language } }).then((r) => {
    expect(r.statusCode, r.body).toBe(200);
    return r.json() as Facets;
  });
const total = async (params: string) => (await get(t, `/product/search?${params}`)).total;

/** Every count of the facets equals the search's total with that value as a filter. */
async function expectCountsMatchSearch(params: string): Promise<Facets> {
  const answer = await facets(params);
  // The value replaces a filter of the same name (a facet of a filtered parameter shows its subvalues or itself).
  const withValue = (name: string, value: string | number) => {
    const search = new URLSearchParams(params);
    search.set(name, String(value));
    return search.toString();
  };
  expect(answer.total).toBe(await total(params));
  expect(answer.capped).toBe(false);
  const checks: Array<[string, string | number, number]> = [
    ...answer.categories.map((v): [string, number, number] => ['categoryId', v.id, v.count]),
    ...answer.persons.map((v): [string, number, number] => ['personId', v.id, v.count]),
    ...answer.publishers.map((v): [string, number, number] => ['publisherId', v.id, v.count]),
    ...answer.series.map((v): [string, number, number] => ['seriesId', v.id, v.count]),
    ...answer.bindings.map((v): [string, string, number] => ['binding', v.code, v.count]),
    ...answer.languages.map((v): [string, string, number] => ['language', v.code, v.count]),
    ...answer.types.map((v): [string, string, number] => ['type', v.code, v.count]),
  ];
  expect(checks.length).toBeGreaterThan(0);
  for (const [name, value, count] of checks) {
    expect(await total(withValue(name, value)), `${params} + ${name}=${value}`).toBe(count);
    expect(count).toBeGreaterThan(0);
  }
  return answer;
}

describe('facet counts', () => {
  it('equal the filtered search counts for a text search', async () => {
    const answer = await expectCountsMatchSearch('q=tõde');
    expect(answer.persons.map((p) => p.name)).toContain('Anton Hansen Tammsaare');
    expect(answer.bindings).toContainEqual({ code: 'PAPERBACK', name: 'Pehmekaaneline', count: 2 });
    expect(answer.types).toContainEqual({ code: 'BOOK', count: answer.total });
  });

  it('equal the filtered search counts for the whole store and for filtered searches', async () => {
    await expectCountsMatchSearch('');
    await expectCountsMatchSearch(`publisherId=${c.publisher.penguin}`);
    await expectCountsMatchSearch('q=tammsaare&language=ET');
    await expectCountsMatchSearch('priceMax=15&sort=price');
  });

  it('count categories one level below the category filter, each with its subcategories, translated', async () => {
    const top = await expectCountsMatchSearch('');
    expect(top.categories.map((cat) => cat.name)).toEqual(['Ilukirjandus', 'Lasteraamatud', 'Hobid ja vaba aeg']);
    const fiction = await expectCountsMatchSearch(`categoryId=${c.category.fiction}`);
    expect(fiction.categories.map((cat) => [cat.name, cat.level, cat.parentId])).toEqual([
      ['Eesti ilukirjandus', 2, c.category.fiction],
      ['Tõlkeilukirjandus', 2, c.category.fiction],
    ]);
    // Kevade is in two categories under Ilukirjandus... and one under Lasteraamatud: counted once per value.
    expect(top.categories.find((cat) => cat.id === c.category.fiction)!.count).toBe(await total(`categoryId=${c.category.fiction}`));
    const english = await facets(`categoryId=${c.category.fiction}`, 'en');
    expect(english.categories.map((cat) => cat.name)).toEqual(['Estonian fiction', 'Translated fiction']);
    expect((await facets(`categoryId=${c.category.hobbies}`)).categories).toEqual([]);
  });

  it('gives the price range for the caller and language groups', async () => {
    const answer = await facets('q=Достоевский');
    // Crime and Punishment at its campaign price, 9 €; the Russian edition at 13 € less the guest discount of 5 %.
    expect(answer.price).toEqual({ min: 9, max: 12.35 });
    expect(answer.languages.map((l) => l.code).sort()).toEqual(['EN', 'RU']);
    const german = await facets('q=wahrheit');
    expect(german.languages).toEqual([{ code: 'OTHER', count: 1 }]);
  });

  it('are empty, not an error, when nothing is found', async () => {
    expect(await facets('q=qwertyuiop')).toMatchObject({ total: 0, capped: false, categories: [], persons: [], types: [], price: null });
    expect(await facets('q=%21%21%21')).toMatchObject({ total: 0, price: null });
  });

  it('limit the long facets to facetLimit values, most frequent first', async () => {
    const answer = await facets('facetLimit=1');
    expect(answer.persons).toHaveLength(1);
    expect(answer.publishers).toHaveLength(1);
    expect(answer.persons[0]!.name).toBe('Anton Hansen Tammsaare');
    expect((await t.app.inject({ url: '/product-dynamic-filter/filters?facetLimit=0' })).statusCode).toBe(400);
  });
});

describe('search within a facet', () => {
  it('finds persons, series and publishers by part of the name, counted over the search', async () => {
    const authors = (await get<Named[]>(t, '/product-dynamic-filter/search-author?term=tamm')).body;
    expect(authors).toEqual([
      {
        id: c.person.tammsaare,
        code: expect.any(String),
        name: 'Anton Hansen Tammsaare',
        count: await total(`personId=${c.person.tammsaare}`),
      },
    ]);
    const withText = (await get<Named[]>(t, '/product-dynamic-filter/search-author?term=tamm&q=õigus')).body;
    expect(withText[0]!.count).toBe(2);
    expect((await get<Named[]>(t, '/product-dynamic-filter/search-author?term=fjodor')).body).toEqual([]);
    expect((await get<Named[]>(t, '/product-dynamic-filter/search-author?term=Фёдор')).body.map((p) => p.name)).toEqual([
      'Фёдор Достоевский',
    ]);
    const series = (await get<Named[]>(t, '/product-dynamic-filter/search-series?term=eesti')).body;
    expect(series.map((s) => [s.name, s.count])).toEqual([['Eesti romaan', 2]]);
    const publishers = (await get<Named[]>(t, '/product-dynamic-filter/search-publisher?term=tana&type=BOOK')).body;
    expect(publishers.map((p) => [p.name, p.count])).toEqual([['Tänapäev', 3]]);
    expect((await get<Named[]>(t, '/product-dynamic-filter/search-publisher?term=avita&language=EN')).body).toEqual([]);
    // Price filters narrow the counted products too (on the caller's price).
    const cheap = (await get<Named[]>(t, '/product-dynamic-filter/search-publisher?term=tana&priceMax=16')).body;
    expect(cheap.map((p) => p.count)).toEqual([await total(`publisherId=${c.publisher.tanapaev}&priceMax=16`)]);
    expect(cheap[0]!.count).toBe(1);
  });

  it('needs a term', async () => {
    expect((await t.app.inject({ url: '/product-dynamic-filter/search-author' })).statusCode).toBe(400);
    expect((await get<Named[]>(t, '/product-dynamic-filter/search-author?term=%20')).body).toEqual([]);
  });
});
