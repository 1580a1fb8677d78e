import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { setStoreDiscounts } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { generateCatalogue, type GeneratedCatalogue } from '../helpers/generated-catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// On a generated catalogue (every price shape, product type and campaign state), a list sorted by
// price or -price is, page after page, in the order of the prices its own cards show, equal prices
// by id the same way, for every kind of caller, with and without store discounts, at three moments
// around the campaigns' starts and ends, pages merged from the streams and pages sorted in SQL
// (CATALOGUE_PRICE_SORT_SQL_FROM_OFFSET: 0 sorts every page in SQL, 33 the pages from the fourth on).
// PRICE_SORT_SEED replays another catalogue; PRICE_SORT_SQL_FROM picks the switch-over (default 33).

const SEED = Number(process.env.PRICE_SORT_SEED ?? 2026_12_05);
const NOW = Date.UTC(2026, 5, 1, 12);
const DAY = 86_400_000;
const clock = fixedClock(NOW);

let t: TestApp;
let c: GeneratedCatalogue;
let callers: Array<[string, TestCustomer | undefined]>;

const SQL_FROM = process.env.PRICE_SORT_SQL_FROM ?? '33';

beforeAll(async () => {
  t = await createTestApp({ clock, env: { CATALOGUE_PRICE_SORT_SQL_FROM_OFFSET: SQL_FROM } });
  const db = t.database.db;
  const wholesale = await createCustomer(db, { kind: 'WHOLESALE' });
  callers = [
    ['guest', undefined],
    ['retail 15 %', await createCustomer(db, { discountPercent: 15 })],
    ['business 12.3456 %', await createCustomer(db, { kind: 'BUSINESS', companyDiscountPercent: 12.3456 })],
    ['wholesale with own prices', wholesale],
  ];
  c = await generateCatalogue(db, { seed: SEED, products: 160, now: NOW, companyIds: [wholesale.companyId!] });
}, 120_000);
afterAll(() => t.close());

/** Every card of the list, page by page (small pages: each starts the merge again further on). */
async function cards(path: string, customer: TestCustomer | undefined): Promise<Array<{ id: number; price: number }>> {
  const found: Array<{ id: number; price: number }> = [];
  for (let page = 1; ; page += 1) {
    const url = `${path}&per-page=11&page=${page}`;
    const response = await t.app.inject({ url, headers: customer ? { authorization: `Bearer ${customer.token}` } : {} });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    const got = response.json() as Array<{ id: number; price: number }>;
    found.push(...got.map(({ id, price }) => ({ id, price })));
    if (got.length < 11) {
      expect(found.length, url).toBe(Number(response.headers['x-pagination-total-count']));
      return found;
    }
  }
}

describe(`lists sorted by price follow the cards' prices (seed ${SEED}, SQL from offset ${SQL_FROM})`, () => {
  it('for every kind of caller, store discounts, moment and sort', async () => {
    let compared = 0;
    for (const discounts of [
      [0, 0],
      [12.5, 7],
    ] as const) {
      await setStoreDiscounts(t.database.db, 'WEB', discounts[0], discounts[1]);
      for (const at of [NOW, NOW + DAY, NOW - 2 * DAY]) {
        clock.set(at);
        for (const filter of ['', `categoryId=${c.categoryIds[0]}`]) {
          for (const [who, customer] of callers) {
            const [byNewest, ascending, descending] = await Promise.all([
              cards(`/product?${filter}`, customer),
              cards(`/product?sort=price&${filter}`, customer),
              cards(`/product?sort=-price&${filter}`, customer),
            ]);
            const expected = [...byNewest].sort((a, b) => a.price - b.price || a.id - b.id);
            const label = `${who}, discounts ${discounts.join('/')}, at ${new Date(at).toISOString()}, ${filter || 'all'}`;
            expect(ascending, `price: ${label}`).toEqual(expected);
            expect(descending, `-price: ${label}`).toEqual([...expected].reverse());
            compared += expected.length;
          }
        }
      }
    }
    await setStoreDiscounts(t.database.db, 'WEB', 0, 0);
    expect(compared).toBeGreaterThan(500);
  }, 240_000);
});
