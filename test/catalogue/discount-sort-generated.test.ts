import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { setStoreDiscounts } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { generateCatalogue, type GeneratedCatalogue } from '../helpers/generated-catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// On a generated catalogue (every price shape, cheap prices of a few cents, e-books, gift cards and
// campaigns in every state), a retail caller's list sorted by discount is, page after page, in the
// order of the discounts its own cards show, equal discounts by id (newest first), and the discounted
// block holds exactly the cards that show one, in that order: for guests and clients, with store
// discounts that round to one percent at every price and ones that round either way (2.5 %), at three
// moments around the campaigns' starts and ends. DISCOUNT_SORT_SEED replays another catalogue.

const SEED = Number(process.env.DISCOUNT_SORT_SEED ?? 2026_12_06);
const NOW = Date.UTC(2026, 5, 1, 12);
const DAY = 86_400_000;
const clock = fixedClock(NOW);

let t: TestApp;
let c: GeneratedCatalogue;
let callers: Array<[string, TestCustomer | undefined]>;

interface Shown {
  id: number;
  discountPercent: number;
}

beforeAll(async () => {
  t = await createTestApp({ clock });
  const db = t.database.db;
  callers = [
    ['guest', undefined],
    ['retail 15 %', await createCustomer(db, { discountPercent: 15 })],
    ['retail 2.3 %', await createCustomer(db, { discountPercent: 2.3 })],
  ];
  c = await generateCatalogue(db, { seed: SEED, products: 160, now: NOW });
}, 120_000);
afterAll(() => t.close());

/** Every card of the list, page by page (small pages, each read on its own). */
async function cards(path: string, customer: TestCustomer | undefined): Promise<Shown[]> {
  const found: Shown[] = [];
  for (let page = 1; ; page += 1) {
    const url = `${path}${path.includes('?') ? '&' : '?'}per-page=7&page=${page}`;
    const response = await t.app.inject({ url, headers: customer ? { authorization: `Bearer ${customer.token}` } : {} });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    const got = response.json() as Shown[];
    found.push(...got.map(({ id, discountPercent }) => ({ id, discountPercent })));
    if (got.length < 7) {
      expect(found.length, url).toBe(Number(response.headers['x-pagination-total-count']));
      return found;
    }
  }
}

describe(`lists by discount follow the cards' discounts (seed ${SEED})`, () => {
  it('for guests and clients, store discounts and moments', async () => {
    let compared = 0;
    for (const [guest, loggedIn] of [
      [0, 0],
      [2, 12.5],
      [2.5, 7.4],
    ] as const) {
      await setStoreDiscounts(t.database.db, 'WEB', guest, loggedIn);
      for (const at of [NOW, NOW + DAY, NOW - 2 * DAY]) {
        clock.set(at);
        for (const filter of ['', `categoryId=${c.categoryIds[0]}`]) {
          for (const [who, customer] of callers) {
            const [byNewest, byDiscount, block] = await Promise.all([
              cards(`/product?${filter}`, customer),
              cards(`/product?sort=discount&${filter}`, customer),
              cards(`/product-component/discounted?${filter}`, customer),
            ]);
            const expected = [...byNewest].sort((a, b) => b.discountPercent - a.discountPercent || b.id - a.id);
            const label = `${who}, discounts ${guest}/${loggedIn}, at ${new Date(at).toISOString()}, ${filter || 'all'}`;
            expect(byDiscount, `sort=discount: ${label}`).toEqual(expected);
            expect(block, `discounted: ${label}`).toEqual(expected.filter((card) => card.discountPercent > 0));
            compared += expected.length;
          }
        }
      }
    }
    await setStoreDiscounts(t.database.db, 'WEB', 0, 0);
    expect(compared).toBeGreaterThan(500);
  }, 240_000);
});
