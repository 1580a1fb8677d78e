import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createSearchCatalogue, get, type Card, type SearchCatalogue } from './fixtures.js';

// A page is read with its total in one pass (SQLite as PostgreSQL), and a text search prices its
// matches by looking their campaign prices up: the totals must be what paging through finds, on
// every page and past the last one, with the caches off and on (a kept total is not counted
// again), and the prices those of the cards.

let off: TestApp;
let on: TestApp;
let c: SearchCatalogue;
let cOn: SearchCatalogue;
beforeAll(async () => {
  off = await createTestApp();
  c = await createSearchCatalogue(off);
  on = await createTestApp({ env: { CATALOGUE_CACHE_TTL_MS: '60000', CATALOGUE_LIST_CACHE_TTL_MS: '60000' } });
  cOn = await createSearchCatalogue(on);
});
afterAll(async () => {
  await off.close();
  await on.close();
});

const q = (text: string) => `/product/search?q=${encodeURIComponent(text)}`;

const SEARCHES = [
  q('tõde'),
  `${q('tõde ja')}&sort=sales`,
  '/product/search?sort=name',
  `${q('tõde')}&sort=-price`,
  `${q('tõde')}&priceMax=10&sort=discount`,
  '/product/search?priceMin=9&sort=price',
  `${q('tõde')}&type=BOOK&sort=newest`,
  q('qwertyuiop'),
];

/** Every page of two, and one past the last, each with its total. */
async function pages(t: TestApp, search: string, customer?: TestCustomer) {
  const found: Card[] = [];
  const totals: number[] = [];
  for (let page = 1; page <= 40; page += 1) {
    const { body, total } = await get(t, `${search}&per-page=2&page=${page}`, customer);
    totals.push(total);
    found.push(...body);
    if (body.length === 0) break;
  }
  return { found, totals };
}

describe('a page and its total', () => {
  it.each(SEARCHES)('agree with what paging through finds: %s', async (search) => {
    for (const [t, catalogue] of [
      [off, c],
      [on, cOn],
    ] as const) {
      for (const customer of [undefined, catalogue.customers.business]) {
        const { found, totals } = await pages(t, search, customer);
        expect(new Set(found.map((card) => card.id)).size, search).toBe(found.length);
        expect(
          totals.every((total) => total === found.length),
          `${search}: ${totals.join(',')}`,
        ).toBe(true);
        const all = await get(t, `${search}&per-page=100`, customer);
        expect(all.body.map((card) => card.id)).toEqual(found.map((card) => card.id));
        expect(all.total).toBe(found.length);
      }
    }
  });

  it('is right again with the caches on when the same search is sorted another way or paged', async () => {
    const first = await get(on, `${q('tõde')}&per-page=2&page=2&sort=name`);
    const second = await get(on, `${q('tõde')}&per-page=2&page=1&sort=sales`);
    const all = await get(off, `${q('tõde')}&per-page=100`);
    expect([first.total, second.total]).toEqual([all.total, all.total]);
  });
});

describe('the campaign price of a text search', () => {
  it('filters and sorts on the price the cards show, for guests and business customers', async () => {
    for (const customer of [undefined, c.customers.business]) {
      const cards = (await get(off, `${q('suvi')}&per-page=100`, customer)).body;
      const suvi = cards.find((card) => card.name === 'Suvi')!;
      // A guest pays the retail campaign's 14.99 (of 30); a business customer the lowest of its prices.
      if (!customer) expect(suvi.price).toBe(14.99);
      const at = (params: string) => get(off, `${q('suvi')}&per-page=100&${params}`, customer);
      expect((await at(`priceMax=${suvi.price}`)).body.map((card) => card.name)).toContain('Suvi');
      expect((await at(`priceMax=${suvi.price - 0.01}`)).body.map((card) => card.name)).not.toContain('Suvi');
      expect((await at(`priceMin=${suvi.price}&priceMax=${suvi.price}`)).total).toBe(
        cards.filter((card) => card.price === suvi.price).length,
      );
    }
    const crime = (await get(off, `${q('crime')}&priceMax=9`)).body.map((card) => card.name);
    expect(crime).toEqual(['Crime and Punishment']);
  });
});
