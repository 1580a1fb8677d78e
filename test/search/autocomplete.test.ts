import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createPerson } from '../helpers/catalogue.js';
import { createSearchCatalogue, get, TRUTH_EAN, type SearchCatalogue } from './fixtures.js';

let t: TestApp;
let c: SearchCatalogue;
beforeAll(async () => {
  t = await createTestApp();
  c = await createSearchCatalogue(t);
});
afterAll(() => t.close());

interface Suggestions {
  products: Array<{ id: number; name: string; price: number }>;
  persons: Array<{ id: number; code: string; name: string }>;
  publishers: Array<{ name: string }>;
  series: Array<{ name: string }>;
  categories: Array<{ id: number; name: string; level: number; parentId: number | null }>;
}
const suggest = async (params: string, language = 'et') => {
  const response = await t.app.inject({ url: `/autocomplete?${params}`, headers: { 'x-app-language': language } });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['x-search-available']).toBe('1');
  return response.json() as Suggestions;
};
const namesOf = (list: Array<{ name: string }>) => list.map((item) => item.name);

describe('autocomplete', () => {
  it('suggests products, persons, publishers, series and categories for a partly typed word', async () => {
    const found = await suggest('term=tamm');
    expect(namesOf(found.products)[0]).toBe('Tammsaare elu ja looming');
    expect(namesOf(found.products)).toEqual(expect.arrayContaining(['Tõde ja õigus I', 'Wahrheit und Recht']));
    expect(namesOf(found.persons)).toEqual(['Anton Hansen Tammsaare']);
    expect(await suggest('term=tänap')).toMatchObject({ publishers: [{ name: 'Tänapäev' }] });
    expect(namesOf((await suggest('term=penguin cl')).series)).toEqual(['Penguin Classics']);
    const categories = (await suggest('term=ilukirj')).categories;
    expect(categories.map((cat) => [cat.name, cat.level])).toEqual([
      ['Ilukirjandus', 1],
      ['Eesti ilukirjandus', 2],
    ]);
    expect(namesOf((await suggest('term=ilukirj', 'en')).categories)).toEqual([]);
    expect(namesOf((await suggest('term=fict', 'en')).categories)).toEqual(['Fiction', 'Estonian fiction', 'Translated fiction']);
  });

  it('honours the limits, 0 included, and caps them', async () => {
    const found = await suggest('term=tõde&productLimit=2&personLimit=0');
    expect(found.products).toHaveLength(2);
    expect(found.persons).toEqual([]);
    expect((await suggest('term=tõde')).products).toHaveLength(6);
    expect((await t.app.inject({ url: '/autocomplete?term=x&productLimit=21' })).statusCode).toBe(400);
    expect((await t.app.inject({ url: '/autocomplete?term=x&categoryLimit=-1' })).statusCode).toBe(400);
  });

  it('answers an ISBN-looking term with that product only', async () => {
    const found = await suggest(`term=${TRUTH_EAN.slice(0, 3)}-${TRUTH_EAN.slice(3)}`);
    expect(found).toEqual({
      products: [expect.objectContaining({ id: c.product.truth })],
      persons: [],
      publishers: [],
      series: [],
      categories: [],
    });
    expect((await suggest('term=9780000000002')).products).toEqual([]);
  });

  it('waits for two letters and ignores a blank term, but needs the parameter', async () => {
    const none = { products: [], persons: [], publishers: [], series: [], categories: [] };
    expect(await suggest('term=t')).toEqual(none);
    expect(await suggest('term=')).toEqual(none);
    expect(await suggest('term=%20%20')).toEqual(none);
    expect((await t.app.inject({ url: '/autocomplete' })).statusCode).toBe(400);
  });

  it('suggests only what the caller can see, priced for them', async () => {
    expect(namesOf((await suggest('term=salajane')).products)).toEqual([]);
    const business = await get<Suggestions>(t, '/autocomplete?term=salajane', c.customers.business);
    expect(namesOf(business.body.products)).toEqual(['Tõde salajane']);
    expect(business.response.headers['cache-control']).toBe('no-store');
    const guest = (await suggest('term=suvi')).products[0]!;
    const wholesale = (await get<Suggestions>(t, '/autocomplete?term=suvi', c.customers.wholesale)).body.products[0]!;
    expect([guest.price, wholesale.price]).toEqual([14.99, 20]);
    // A person whose only product is hidden from the caller is not suggested to them.
    const db = t.database.db;
    const secret = await createPerson(db, 'Salme Saladus');
    await db
      .insertInto('product_person')
      .values({ product_id: c.product.hidden!, person_id: secret, role: 'AUTHOR', position: 0 })
      .execute();
    expect((await suggest('term=saladus')).persons).toEqual([]);
    const seen = await get<Suggestions>(t, '/autocomplete?term=saladus', c.customers.business);
    expect(seen.body.persons.map((p) => p.id)).toEqual([secret]);
  });

  it('lets a guest answer be cached with an ETag', async () => {
    const first = await t.app.inject({ url: '/autocomplete?term=kev' });
    expect(first.headers['cache-control']).toMatch(/^public/);
    const again = await t.app.inject({ url: '/autocomplete?term=kev', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });
});

describe('documentation', () => {
  it('lists the search routes in the OpenAPI document', async () => {
    const paths = Object.keys((await t.app.inject({ url: '/openapi.json' })).json().paths);
    for (const path of [
      '/product/search',
      '/autocomplete',
      '/product-dynamic-filter/filters',
      '/product-dynamic-filter/search-author',
      '/product-dynamic-filter/search-series',
      '/product-dynamic-filter/search-publisher',
    ]) {
      expect(paths).toContain(path);
    }
  });
});
