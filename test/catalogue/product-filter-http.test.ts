import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCT_TYPES } from '../../src/db/product-types.js';
import { createCampaign, createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { generateCatalogue, type GeneratedCatalogue } from '../helpers/generated-catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// GET /product and GET /product/search take the same filters and must find the same products
// for them: checked over HTTP for every filter both offer, on a generated catalogue, for the four
// kinds of caller. They once disagreed on an expired campaign (the list showed nothing, search
// its products); the last test pins that down by hand.

const SEED = Number(process.env.FILTER_SEED ?? 11_2026);
const DAY = 86_400_000;

let t: TestApp;
let c: GeneratedCatalogue;
let callers: Array<[string, TestCustomer | undefined]>;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  callers = [
    ['guest', undefined],
    ['retail', await createCustomer(db)],
    ['business', await createCustomer(db, { kind: 'BUSINESS' })],
    ['wholesale', await createCustomer(db, { kind: 'WHOLESALE' })],
  ];
  c = await generateCatalogue(db, { seed: SEED, products: 150, now: Date.now() });
}, 120_000);
afterAll(() => t.close());

/** Every id the path lists for the caller, page by page, checked against the total it announces. */
async function all(path: string, customer: TestCustomer | undefined): Promise<number[]> {
  const found: number[] = [];
  for (let page = 1; ; page += 1) {
    const url = `${path}${path.includes('?') ? '&' : '?'}per-page=100&page=${page}`;
    const response = await t.app.inject({ url, headers: customer ? { authorization: `Bearer ${customer.token}` } : {} });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    const cards = response.json() as Array<{ id: number }>;
    found.push(...cards.map((card) => card.id));
    const total = Number(response.headers['x-pagination-total-count']);
    if (cards.length < 100) {
      expect(found.length, `${url}: total ${total}`).toBe(total);
      return found.sort((a, b) => a - b);
    }
  }
}

function wireFilters(): string[] {
  return [
    '',
    ...c.categoryIds.map((id) => `categoryId=${id}`),
    ...c.personIds.map((id) => `personId=${id}`),
    ...c.publisherIds.map((id) => `publisherId=${id}`),
    ...c.seriesIds.map((id) => `seriesId=${id}`),
    ...Object.values(c.lists).map((id) => `productListId=${id}`),
    ...Object.values(c.campaigns).map((id) => `campaignId=${id}`),
    ...PRODUCT_TYPES.map((type) => `type=${type}`),
    `categoryId=${c.categoryIds[0]}&type=BOOK`,
    `personId=${c.personIds[0]}&publisherId=${c.publisherIds[0]}`,
    `campaignId=${c.campaigns.running}&categoryId=${c.categoryIds[1]}`,
    `productListId=${c.lists.active}&type=EBOOK`,
  ];
}

describe(`GET /product and GET /product/search find the same products (seed ${SEED})`, () => {
  it('for every filter both take, for guests, retail, business and wholesale customers', async () => {
    let nonEmpty = 0;
    // Some 380 reads that change nothing: a filter's (two paths, four callers) are sent at once, which
    // on PostgreSQL overlaps their round trips; one after another they took up to 11 s alone there, and
    // past 20 s on a loaded machine. The comparison is the same, pair by pair.
    for (const filter of wireFilters()) {
      const found = await Promise.all(
        callers.map(async ([who, customer]) => {
          const [listed, searched] = await Promise.all([all(`/product?${filter}`, customer), all(`/product/search?${filter}`, customer)]);
          return { who, listed, searched };
        }),
      );
      for (const { who, listed, searched } of found) {
        expect(searched, `${who} ${filter}`).toEqual(listed);
        if (listed.length > 0) nonEmpty += 1;
      }
    }
    expect(nonEmpty).toBeGreaterThan(wireFilters().length);
  });
});

describe('a campaign that is not running', () => {
  it('lists no products, in the list and in search alike; a running one lists its products in both', async () => {
    const db = t.database.db;
    const product = await createProduct(db, { name: 'Kampaaniaraamat', price: 20 });
    const now = Date.now();
    const expired = await createCampaign(db, { validFrom: now - 3 * DAY, validTo: now - DAY, prices: [{ productId: product, price: 10 }] });
    const running = await createCampaign(db, { validFrom: now - DAY, validTo: now + DAY, prices: [{ productId: product, price: 12 }] });
    for (const [who, customer] of callers) {
      expect(await all(`/product?campaignId=${expired}`, customer), who).toEqual([]);
      expect(await all(`/product/search?campaignId=${expired}`, customer), who).toEqual([]);
      expect(await all(`/product?campaignId=${running}`, customer), who).toEqual([product]);
      expect(await all(`/product/search?campaignId=${running}`, customer), who).toEqual([product]);
    }
  });
});
