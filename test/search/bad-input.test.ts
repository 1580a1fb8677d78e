import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createSearchCatalogue, get, names, q } from './fixtures.js';

// Bad parameters get a 400 in the documented shape; hostile text is just text: engine query
// syntax never reaches FTS5 or to_tsquery, and nothing a shopper types can cause a 500.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createSearchCatalogue(t);
});
afterAll(() => t.close());

describe('bad parameters', () => {
  const bad = [
    'page=0',
    'page=abc',
    'per-page=0',
    'per-page=x',
    'categoryId=abc',
    'categoryId=0',
    'categoryId=1e30',
    'personId=-1',
    'publisherId=1.5',
    'seriesId=',
    'productListId=x',
    'campaignId=0',
    'type=NOVEL',
    'type=BOOK,NOVEL',
    'language=FI',
    'binding=bad%20code!',
    'availability=everywhere',
    'priceMin=-1',
    'priceMax=abc',
    'priceMin=1e12',
    'minDiscount=101',
    'minDiscount=5.5',
    'preorder=maybe',
    'new=2',
    'sort=popularity',
    `shop=${Array.from({ length: 51 }, (_, i) => `S${i}`).join(',')}`,
    'shop=TLN%00',
    'shop=%27%3B--',
  ];
  it.each(bad)('/product/search?%s is a 400', async (params) => {
    expectErrorBody(await t.app.inject({ url: `/product/search?${params}` }), 400, 'Bad Request');
  });

  it.each(bad.filter((p) => !p.startsWith('page') && !p.startsWith('per-page') && !p.startsWith('sort')))(
    '/product-dynamic-filter/filters?%s is a 400',
    async (params) => {
      expectErrorBody(await t.app.inject({ url: `/product-dynamic-filter/filters?${params}` }), 400, 'Bad Request');
    },
  );

  it('answers an unknown store with 400 and ignores unknown parameters', async () => {
    expectErrorBody(await t.app.inject({ url: '/product/search?q=tõde', headers: { store: 'NOPE' } }), 400, 'Bad Request');
    expect((await get(t, '/product/search?q=kevade&colour=red')).body.map((card) => card.name)).toEqual(['Kevade']);
  });
});

describe('hostile and odd text', () => {
  const texts = [
    '"',
    "'",
    '*',
    '"tõde',
    "tõde'",
    'tõde*',
    'tõde:*',
    'NEAR(tõde õigus)',
    'tõde OR kevade',
    'tõde AND NOT kevade',
    'title: tõde',
    '{title}: tõde',
    '^tõde',
    '-kevade',
    '!tõde',
    'tõde & õigus | kevade',
    "'); drop table product; --",
    '\\',
    '%',
    '_',
    '()',
    '$$',
    'tõde <-> õigus',
    'tõde:A',
    "''tõde''",
    '😀 tõde',
    'ﬁnal',
    '١٢٣',
    '\u200b',
  ];
  /** The same text with only its words (letters and digits), still being typed if the text was: what the hostile text must mean. */
  const plainWords = (text: string) => {
    const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
    return words.length === 0 ? undefined : `${words.join(' ')}${/[\p{L}\p{N}]$/u.test(text) ? '' : ' '}`;
  };
  const answers = async (text: string) => {
    const term = encodeURIComponent(text);
    const responses = await Promise.all(
      [
        q(text),
        `/autocomplete?term=${term}`,
        `/product-dynamic-filter/filters?q=${term}`,
        `/product-dynamic-filter/search-author?term=${term}`,
      ].map(async (url) => {
        const response = await t.app.inject({ url });
        expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
        return response.json();
      }),
    );
    const [found, suggested, facets, authors] = responses as [
      Array<{ name: string }>,
      { products: Array<{ name: string }> },
      { total: number },
      unknown[],
    ];
    return { search: found.map((card) => card.name), suggested: suggested.products.map((card) => card.name), total: facets.total, authors };
  };
  it.each(texts)('%j is searched as plain words', async (text) => {
    const plain = plainWords(text);
    // Without a word nothing matches (not everything, as no text at all would).
    const expected = plain === undefined ? { search: [], suggested: [], total: 0, authors: [] } : await answers(plain);
    expect(await answers(text)).toEqual(expected);
  });

  it('finds the books a hostile text names by its words (so the comparison above says something)', async () => {
    const found = await answers('tõde <-> õigus');
    expect(found.search).toEqual(['Tõde ja õigus I', 'Tõde ja õigus II']);
    expect(found.total).toBe(2);
  });

  it('refuses a NUL character, as every parameter does', async () => {
    expectErrorBody(await t.app.inject({ url: q('tõde\u0000õigus') }), 400, 'Bad Request');
    expectErrorBody(await t.app.inject({ url: '/autocomplete?term=%00' }), 400, 'Bad Request');
  });

  it('treats operators as words and quotes as nothing', async () => {
    expect(await names(t, q('"tõde" "õigus"'))).toEqual(['Tõde ja õigus I', 'Tõde ja õigus II']);
    expect(await names(t, q('tõde:* õigus*'))).toEqual(['Tõde ja õigus I', 'Tõde ja õigus II']);
    expect(await names(t, q('tõde OR kevade'))).toEqual([]);
    expect(await names(t, q('{title}: kevade'))).toEqual([]);
    // And the index is still there.
    expect(await names(t, q('kevade'))).toEqual(['Kevade']);
  });

  // How fast a long query is answered is measured in bench/, not here.
  it('cuts a very long query to its first words', async () => {
    const long = `tõde ${'õigus '.repeat(3000)}`;
    expect(await names(t, q(long))).toEqual(['Tõde ja õigus I', 'Tõde ja õigus II']);
    const many = Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ');
    expect(await names(t, q(many))).toEqual([]);
  });

  it('answers pages past the first 10,000 results with an empty page and the total, without sorting that deep', async () => {
    const { body, total, response } = await get(t, '/product/search?per-page=100&page=101');
    expect(body).toEqual([]);
    expect(total).toBeGreaterThan(10);
    expect(response.headers['x-pagination-current-page']).toBe('101');
  });
});
