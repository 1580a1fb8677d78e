import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createCategory, createProduct, setStoreDiscounts } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The pricing module has its own exhaustive unit tests; these show that every product answer
// carries the price of the caller the token names, with the store's settings and campaigns.

let t: TestApp;
const ids = {} as Record<'book' | 'ebook' | 'campaign' | 'giftCard' | 'noWholesale', number>;
let category: number;
let retail: TestCustomer;
let loyal: TestCustomer;
let business: TestCustomer;
let wholesale: TestCustomer;
const DAY = 86_400_000;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  await setStoreDiscounts(db, 'WEB', 5, 10);
  category = await createCategory(db, { et: 'Kõik' });
  ids.book = await createProduct(db, { code: 'BOOK', price: 20, originalPrice: 25, wholesalePrice: 12, categoryIds: [category] });
  ids.ebook = await createProduct(db, { code: 'EBOOK', type: 'EBOOK', binding: 'EPUB', price: 10, categoryIds: [category] });
  ids.campaign = await createProduct(db, { code: 'CAMP', price: 30, categoryIds: [category] });
  ids.giftCard = await createProduct(db, { code: 'GIFT', type: 'GIFT_CARD', price: 50, vatRate: 0, categoryIds: [category] });
  ids.noWholesale = await createProduct(db, { code: 'NOWS', price: 10.9, wholesalePrice: 0, categoryIds: [category] });
  const now = Date.now();
  await createCampaign(db, {
    code: 'XMAS',
    names: { et: 'Jõulud', en: 'Christmas' },
    validFrom: now - DAY,
    validTo: now + DAY,
    prices: [
      { productId: ids.campaign, price: 19.99 },
      { productId: ids.campaign, price: 22, kind: 'BUSINESS' },
    ],
  });
  await createCampaign(db, { code: 'PAST', validFrom: now - 3 * DAY, validTo: now - DAY, prices: [{ productId: ids.book, price: 1 }] });
  await createCampaign(db, { code: 'FUTURE', validFrom: now + DAY, prices: [{ productId: ids.book, price: 2 }] });
  await createCampaign(db, { code: 'OFF', active: false, prices: [{ productId: ids.book, price: 3 }] });
  await createCampaign(db, { code: 'OUTLET', store: 'WEB2', prices: [{ productId: ids.book, price: 4 }] });
  retail = await createCustomer(db);
  loyal = await createCustomer(db, { discountPercent: 15 });
  business = await createCustomer(db, { kind: 'BUSINESS', companyDiscountPercent: 30 });
  wholesale = await createCustomer(db, { kind: 'WHOLESALE' });
  await db
    .insertInto('company_product_price')
    .values({ company_id: wholesale.companyId!, product_id: ids.book, price_cents: 1100 })
    .execute();
});
afterAll(() => t.close());

const auth = (customer?: TestCustomer) => (customer ? { authorization: `Bearer ${customer.token}` } : {});
const priceOf = async (id: number, customer?: TestCustomer) => {
  const res = await t.app.inject({ url: `/product/${id}/prices`, headers: auth(customer) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe('the price for the caller', () => {
  it('gives guests the store guest discount and the shop price struck through', async () => {
    expect(await priceOf(ids.book)).toMatchObject({
      price: 19,
      strikeThroughPrice: 20,
      discountPercent: 5,
      vatIncluded: true,
      campaign: null,
    });
  });

  it('gives e-books no store discount', async () => {
    expect(await priceOf(ids.ebook)).toMatchObject({ price: 10, strikeThroughPrice: null, discountPercent: 0 });
  });

  it('gives a logged-in retail customer the larger of the store and their own discount, never both', async () => {
    expect(await priceOf(ids.book, retail)).toMatchObject({ price: 18, strikeThroughPrice: 20, discountPercent: 10 });
    expect(await priceOf(ids.book, loyal)).toMatchObject({ price: 17, strikeThroughPrice: 20, discountPercent: 15 });
  });

  it('lets a lower current campaign price win and names the campaign', async () => {
    expect(await priceOf(ids.campaign)).toMatchObject({ price: 19.99, strikeThroughPrice: 30, campaign: { code: 'XMAS', name: 'Jõulud' } });
    const en = await t.app.inject({ url: `/product/${ids.campaign}/prices`, headers: { 'x-app-language': 'en' } });
    expect(en.json().campaign.name).toBe('Christmas');
    // Past, future, inactive and other-store campaigns do not apply.
    expect((await priceOf(ids.book)).price).toBe(19);
  });

  it("gives the campaign's end as the campaign itself does: RFC 3339 to the second", async () => {
    const { campaign } = await priceOf(ids.campaign);
    const listed = (await t.app.inject({ url: '/campaign/code/XMAS' })).json();
    expect(campaign.validTo).toBe(listed.validTo);
    expect(campaign.validTo).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('gives business customers the company discount off the list price, without strike-through', async () => {
    expect(await priceOf(ids.book, business)).toMatchObject({
      price: 17.5,
      strikeThroughPrice: null,
      discountPercent: 0,
      vatIncluded: true,
    });
    expect(await priceOf(ids.campaign, business)).toMatchObject({ price: 21, campaign: null });
  });

  it('gives wholesale customers prices without VAT: their own, the wholesale price, or the shop price less VAT', async () => {
    expect(await priceOf(ids.book, wholesale)).toMatchObject({ price: 11, vatIncluded: false, strikeThroughPrice: null });
    expect(await priceOf(ids.noWholesale, wholesale)).toMatchObject({ price: 10, vatIncluded: false });
    const other = await createCustomer(t.database.db, { kind: 'WHOLESALE' });
    expect((await priceOf(ids.book, other)).price).toBe(12);
  });

  it('sells gift cards at face value to everybody', async () => {
    expect(await priceOf(ids.giftCard)).toMatchObject({ price: 50, strikeThroughPrice: null });
    expect(await priceOf(ids.giftCard, loyal)).toMatchObject({ price: 50, strikeThroughPrice: null });
  });

  it('prices list cards and details exactly like the prices endpoint', async () => {
    for (const customer of [undefined, retail, loyal, business, wholesale]) {
      const list = await t.app.inject({ url: `/product?categoryId=${category}&per-page=100`, headers: auth(customer) });
      const cards = list.json() as Array<{ id: number; price: number; strikeThroughPrice: number | null; vatIncluded: boolean }>;
      // Every product of the category, so that the comparison below covers each of them.
      expect(cards.map((card) => card.id).sort((a, b) => a - b)).toEqual(Object.values(ids).sort((a, b) => a - b));
      for (const card of cards) {
        const prices = await priceOf(card.id, customer);
        expect([card.price, card.strikeThroughPrice, card.vatIncluded]).toEqual([
          prices.price,
          prices.strikeThroughPrice,
          prices.vatIncluded,
        ]);
        const details = await t.app.inject({ url: `/product/${card.id}`, headers: auth(customer) });
        expect(details.json().price).toBe(prices.price);
      }
    }
  });
});
