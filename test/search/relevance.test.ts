import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { createSearchCatalogue, get, names, q, TRUTH_EAN, TRUTH_ISBN10, type SearchCatalogue } from './fixtures.js';

// What a shopper types and what comes back first: diacritics and case, prefixes, EAN/ISBN, typos
// (PostgreSQL), and the relevance order (title above tags and persons, out of stock last).

let t: TestApp;
let c: SearchCatalogue;
beforeAll(async () => {
  t = await createTestApp();
  c = await createSearchCatalogue(t);
});
afterAll(() => t.close());

describe('text matching', () => {
  it('ignores case and diacritics in both directions', async () => {
    for (const text of ['Tammsaare', 'tammsaare', 'TAMMSAARE']) expect(await names(t, q(text))).toContain('Tõde ja õigus I');
    for (const text of ['tõde', 'tode', 'TÕDE', 'Tode'])
      expect(await names(t, q(text))).toEqual(expect.arrayContaining(['Tõde ja õigus I', 'Tõde ja õigus II']));
    expect(await names(t, q('oigus'))).toEqual(['Tõde ja õigus I', 'Tõde ja õigus II']);
    expect(await names(t, q('tanapaev romaan'))).toEqual(expect.arrayContaining(['Tõde ja õigus I', 'Tõde ja õigus II']));
  });

  it('folds the other Estonian letters, Cyrillic ё and й, and finds Russian text', async () => {
    expect(await names(t, q('malestused'))).toEqual(['Mälestused']);
    expect(await names(t, q('strikkimine'))).toEqual(['Strikkimine algajale']);
    expect(await names(t, q('елка'))).toEqual(['Ёлка']);
    expect(await names(t, q('Достоевский'))).toEqual(expect.arrayContaining(['Crime and Punishment', 'Преступление и наказание']));
    expect(await names(t, q('наказание'))).toEqual(['Преступление и наказание']);
  });

  it('needs every word, and matches the last one as a prefix while it is being typed', async () => {
    expect(await names(t, q('tõde õigus'))).toEqual(['Tõde ja õigus I', 'Tõde ja õigus II']);
    expect(await names(t, q('tõde vale'))).toEqual(['Tõde ja vale']);
    expect(await names(t, q('tammsa'))).toEqual(expect.arrayContaining(['Tõde ja õigus I', 'Tammsaare elu ja looming']));
    expect(await names(t, q('õigu'))).toEqual(['Tõde ja õigus I', 'Tõde ja õigus II']);
    // A finished word (followed by a space) is a whole word (PostgreSQL then tries it as a typo).
    if (engine === 'sqlite') expect(await names(t, q('õigu '))).toEqual([]);
    // A one-letter word being typed is no prefix (it would expand to much of the vocabulary): "tõde ja õ" is "tõde ja".
    expect(await names(t, q('tõde ja õ'))).toEqual(await names(t, q('tõde ja ')));
    expect(await names(t, q('tõde ja õi'))).toEqual(['Tõde ja õigus I', 'Tõde ja õigus II']);
  });

  it('finds by alternative names (tags), persons, publisher and series', async () => {
    expect(await names(t, q('Paunvere'))).toEqual(['Kevade']);
    expect(await names(t, q('Oskar Luts'))).toEqual(expect.arrayContaining(['Kevade', 'Suvi']));
    expect(await names(t, q('penguin classics'))).toEqual(expect.arrayContaining(['The Truth', 'Crime and Punishment']));
  });

  it('looks up an EAN or ISBN exactly, with or without hyphens and spaces, in either ISBN form', async () => {
    const hyphenated = `${TRUTH_EAN.slice(0, 3)}-${TRUTH_EAN.slice(3, 7)}-${TRUTH_EAN.slice(7, 12)}-${TRUTH_EAN.slice(12)}`;
    for (const text of [
      TRUTH_EAN,
      hyphenated,
      ` ${TRUTH_EAN.slice(0, 6)} ${TRUTH_EAN.slice(6)} `,
      `ISBN ${hyphenated}`,
      TRUTH_ISBN10,
      `${TRUTH_ISBN10.slice(0, 1)}-${TRUTH_ISBN10.slice(1)}`,
    ]) {
      const { body, total } = await get(t, q(text));
      expect(
        body.map((card) => card.id),
        text,
      ).toEqual([c.product.truth]);
      expect(total).toBe(1);
    }
    // A code no product has finds nothing, rather than text matches.
    expect(await names(t, q('978-0-00-000000-2'))).toEqual([]);
  });

  it('finds nothing for text without letters or digits', async () => {
    const { body, total } = await get(t, q('!!! ---'));
    expect(body).toEqual([]);
    expect(total).toBe(0);
  });
});

describe('relevance order', () => {
  it('puts title matches above tag and person matches', async () => {
    const found = await names(t, q('tõde'));
    // Kevade has "Tõde" as a tag, Mälestused is by Tõde Kask: both after every in-stock title match.
    const titles = ['Tõde ja õigus I', 'Tõde ja õigus II', 'Tõe otsingul'].filter((name) => found.includes(name));
    expect(found.indexOf('Kevade')).toBeGreaterThan(Math.max(...titles.map((name) => found.indexOf(name))));
    expect(found.indexOf('Mälestused')).toBeGreaterThan(found.indexOf('Tõde ja õigus I'));
    expect((await names(t, q('tammsaare')))[0]).toBe('Tammsaare elu ja looming');
  });

  it('orders each tier by sales: title, then persons, then tags, whatever sells more below', async () => {
    // Kevade (a tag "Tõde") outsells every product here, Mälestused (by Tõde Kask) sells 3: the tiers come first.
    const found = await names(t, q('tõde'));
    // Titles by sales (90, 40, 0), persons' (3, 0), the tag's, then out of stock.
    expect(found).toEqual([
      'Tõde ja õigus I',
      'Tõde ja õigus II',
      'Tõde kontoris',
      'Mälestused',
      'Tõe otsingul',
      'Kevade',
      'Tõde kohtusaalis',
      'Tõde ja vale',
    ]);
  });

  it('puts products that are out of stock last, whatever they match', async () => {
    const found = await names(t, q('tõde'));
    expect(found.slice(-2)).toEqual(['Tõde kohtusaalis', 'Tõde ja vale']);
    expect(found.indexOf('Kevade')).toBeLessThan(found.indexOf('Tõde kohtusaalis'));
  });

  it('is the default sort, and without text orders by availability and sales', async () => {
    expect(await names(t, q('tõde'))).toEqual(await names(t, `${q('tõde')}&sort=relevance`));
    const all = (await get(t, '/product/search?per-page=100')).body;
    expect(all[0]!.name).toBe('Kevade');
    expect(all.at(-1)!.availability).toBe('PERMANENTLY_OUT_OF_STOCK');
  });
});

describe.runIf(engine === 'postgres')('typos (PostgreSQL trigram similarity)', () => {
  it('finds a title or a person despite a typo when nothing matches exactly', async () => {
    expect(await names(t, q('Tamsaare'))).toEqual(expect.arrayContaining(['Tõde ja õigus I', 'Tammsaare elu ja looming']));
    expect(await names(t, q('Mälestsed'))).toContain('Mälestused');
    const auto = await get<{ persons: Array<{ name: string }> }>(t, '/autocomplete?term=Tamsaare');
    expect(auto.body.persons.map((p) => p.name)).toEqual(['Anton Hansen Tammsaare']);
  });

  it('does not mix similar products into exact matches', async () => {
    expect(await names(t, q('kevade'))).toEqual(['Kevade']);
  });

  it('matches by similarity a text whose only exact matches the caller cannot see', async () => {
    // "Tõde salajane" is hidden in WEB: its word must not keep a shopper there from what a typo finds.
    await createProduct(t.database.db, { code: 'S-SECRETS', name: 'Salajased lood', categoryIds: [c.category.estonian], price: 12 });
    expect(await names(t, q('salajane'))).toEqual(['Salajased lood']);
    expect(await names(t, q('salajased'))).toEqual(['Salajased lood']);
  });
});

describe.runIf(engine === 'sqlite')('typos (SQLite)', () => {
  it('has no typo tolerance: a misspelt word finds nothing', async () => {
    expect(await names(t, q('Tamsaare'))).toEqual([]);
  });
});
