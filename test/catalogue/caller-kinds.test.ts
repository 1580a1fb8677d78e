import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createCategory, createProduct, setStoreDiscounts } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// What each of the four kinds of caller sees and pays, over HTTP, in the list, in search, on the
// product page and its prices. Business and wholesale customers share the business catalogue
// (products hidden from the web are theirs; products hidden from business are not); guests and
// retail customers share the public one. Prices are worked out by hand from the domain notes.

type Kind = 'guest' | 'retail' | 'business' | 'wholesale';
const KINDS: Kind[] = ['guest', 'retail', 'business', 'wholesale'];
type Product = 'everyone' | 'businessOnly' | 'retailOnly' | 'ebook' | 'campaign' | 'giftCard';

let t: TestApp;
let category: number;
const ids = {} as Record<Product, number>;
const customers = {} as Record<Exclude<Kind, 'guest'>, TestCustomer>;
const DAY = 86_400_000;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  await setStoreDiscounts(db, 'WEB', 5, 10);
  category = await createCategory(db, { et: 'Kõik' });
  const inCategory = { categoryIds: [category] };
  ids.everyone = await createProduct(db, { ...inCategory, name: 'Everyone', price: 20, originalPrice: 25, wholesalePrice: 12 });
  ids.businessOnly = await createProduct(db, { ...inCategory, name: 'Business only', price: 30, hiddenWeb: true });
  ids.retailOnly = await createProduct(db, { ...inCategory, name: 'Retail only', price: 10, hiddenBusiness: true });
  ids.ebook = await createProduct(db, { ...inCategory, name: 'E-book', type: 'EBOOK', binding: 'EPUB', price: 10 });
  ids.campaign = await createProduct(db, { ...inCategory, name: 'Campaign', price: 30 });
  ids.giftCard = await createProduct(db, { ...inCategory, name: 'Gift card', type: 'GIFT_CARD', price: 25, vatRate: 0 });
  const now = Date.now();
  await createCampaign(db, {
    validFrom: now - DAY,
    validTo: now + DAY,
    prices: [
      { productId: ids.campaign, price: 15 },
      { productId: ids.campaign, price: 16, kind: 'BUSINESS' },
    ],
  });
  customers.retail = await createCustomer(db);
  customers.business = await createCustomer(db, { kind: 'BUSINESS', companyDiscountPercent: 30 });
  customers.wholesale = await createCustomer(db, { kind: 'WHOLESALE' });
  await db
    .insertInto('company_product_price')
    .values({ company_id: customers.wholesale.companyId!, product_id: ids.everyone, price_cents: 1100 })
    .execute();
});
afterAll(() => t.close());

/** The price each kind pays for each product it sees (euros); a product missing from a row is hidden from that kind. */
const EXPECTED: Record<Kind, Partial<Record<Product, number>>> = {
  // Store guest discount 5 % (not on e-books); a lower running campaign price wins.
  guest: { everyone: 19, retailOnly: 9.5, ebook: 10, campaign: 15, giftCard: 25 },
  // Store logged-in discount 10 %.
  retail: { everyone: 18, retailOnly: 9, ebook: 10, campaign: 15, giftCard: 25 },
  // Company discount 30 % off the list price (25 € for "everyone"), or the business campaign price.
  business: { everyone: 17.5, businessOnly: 21, ebook: 7, campaign: 16, giftCard: 25 },
  // Without VAT (9 %): the company's own price, the wholesale price, or the shop price less VAT.
  wholesale: { everyone: 11, businessOnly: 27.52, ebook: 9.17, campaign: 27.52, giftCard: 25 },
};

const headers = (kind: Kind) => (kind === 'guest' ? {} : { authorization: `Bearer ${customers[kind].token}` });
const nameOf = (id: number) => (Object.keys(ids) as Product[]).find((product) => ids[product] === id)!;

async function cards(kind: Kind, url: string): Promise<Partial<Record<Product, number>>> {
  const response = await t.app.inject({ url, headers: headers(kind) });
  expect(response.statusCode, `${kind} ${url}: ${response.body}`).toBe(200);
  const body = response.json() as Array<{ id: number; price: number; vatIncluded: boolean }>;
  expect(Number(response.headers['x-pagination-total-count']), `${kind} ${url}`).toBe(body.length);
  for (const card of body) expect(card.vatIncluded, `${kind} ${nameOf(card.id)}`).toBe(kind !== 'wholesale');
  return Object.fromEntries(body.map((card) => [nameOf(card.id), card.price]));
}

describe.each(KINDS)('a %s caller', (kind) => {
  it('sees its catalogue at its prices in the product list', async () => {
    expect(await cards(kind, `/product?categoryId=${category}&per-page=100`)).toEqual(EXPECTED[kind]);
  });

  it('sees the same in search, unfiltered and filtered and sorted by its price', async () => {
    expect(await cards(kind, `/product/search?categoryId=${category}&per-page=100`)).toEqual(EXPECTED[kind]);
    // The price filter and sort run in SQL: they must see the same catalogue and prices as the cards.
    const cheap = Object.fromEntries(Object.entries(EXPECTED[kind]).filter(([, price]) => price <= 17.5));
    expect(await cards(kind, `/product/search?categoryId=${category}&per-page=100&priceMax=17.5`)).toEqual(cheap);
    const byPrice = await t.app.inject({ url: `/product/search?categoryId=${category}&per-page=100&sort=price`, headers: headers(kind) });
    const prices = (byPrice.json() as Array<{ price: number }>).map((card) => card.price);
    expect(prices).toEqual(Object.values(EXPECTED[kind]).sort((a, b) => a - b));
  });

  it('opens the product pages and prices it sees, and gets 404 for the others', async () => {
    for (const product of Object.keys(ids) as Product[]) {
      const expected = EXPECTED[kind][product];
      const details = await t.app.inject({ url: `/product/${ids[product]}`, headers: headers(kind) });
      const prices = await t.app.inject({ url: `/product/${ids[product]}/prices`, headers: headers(kind) });
      if (expected === undefined) {
        expect([details.statusCode, prices.statusCode], `${kind} ${product}`).toEqual([404, 404]);
      } else {
        expect([details.statusCode, prices.statusCode], `${kind} ${product}`).toEqual([200, 200]);
        expect([details.json().price, prices.json().price], `${kind} ${product}`).toEqual([expected, expected]);
      }
    }
  });
});

it('shows business-only products to business and wholesale customers alone', async () => {
  // The same fact as above, stated once: both business kinds see the business catalogue.
  for (const kind of KINDS) {
    const seen = await cards(kind, `/product?categoryId=${category}&per-page=100`);
    const business = kind === 'business' || kind === 'wholesale';
    expect([seen.businessOnly !== undefined, seen.retailOnly !== undefined], kind).toEqual([business, !business]);
  }
});
