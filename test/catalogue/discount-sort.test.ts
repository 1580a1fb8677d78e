import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createCampaign, createCategory, createProduct, setStoreDiscounts } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// sort=discount and the discounted block go by the discount the cards show the caller (discountPercent):
// a running campaign price, the store's guest or logged-in discount (not on e-books), the client's own
// discount; not by the product's stored list-price discount, which a card shows only when none applies.

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 4, 12);
const clock = fixedClock(NOW);

let t: TestApp;
let client: TestCustomer;
let categoryId: number;

beforeAll(async () => {
  t = await createTestApp({ clock });
  const db = t.database.db;
  categoryId = await createCategory(db, { et: 'Allahindlus' });
  const product = (code: string, spec: Parameters<typeof createProduct>[1] = {}) =>
    createProduct(db, { code, categoryIds: [categoryId], ...spec });
  const onSale = await product('ON-SALE', { price: 20 });
  await product('OWN30', { price: 14, originalPrice: 20 });
  await product('EBOOK20', { type: 'EBOOK', binding: 'EPUB', price: 16, originalPrice: 20 });
  await product('PLAIN', { price: 20 });
  const ended = await product('ENDED', { price: 20 });
  // A gift card is sold at face value: a list price in the data is no discount its card shows.
  await product('GIFT', { type: 'GIFT_CARD', binding: null, price: 20, originalPrice: 25 });
  await createCampaign(db, { validFrom: NOW - DAY, validTo: NOW + DAY, prices: [{ productId: onSale, price: 10 }] });
  await createCampaign(db, { validFrom: NOW - 3 * DAY, validTo: NOW - DAY, prices: [{ productId: ended, price: 5 }] });
  client = await createCustomer(db, { discountPercent: 5 });
});
afterAll(() => t.close());

async function cards(url: string, customer?: TestCustomer): Promise<{ shown: Array<[string, number]>; total: string | undefined }> {
  const headers = customer ? { authorization: `Bearer ${customer.token}` } : {};
  const res = await t.app.inject({ method: 'GET', url, headers });
  expect(res.statusCode, res.body).toBe(200);
  const shown = (res.json() as Array<{ code: string; discountPercent: number }>).map((card): [string, number] => [
    card.code,
    card.discountPercent,
  ]);
  return { shown, total: res.headers['x-pagination-total-count'] as string | undefined };
}

const list = (customer?: TestCustomer) => cards(`/category/${categoryId}/products?sort=discount`, customer);
const block = (customer?: TestCustomer) => cards(`/product-component/discounted?categoryId=${categoryId}`, customer);

describe('sort=discount orders by the discount the cards show', () => {
  it("puts a running campaign's discount first, an ended campaign's nowhere", async () => {
    expect((await list()).shown).toEqual([
      ['ON-SALE', 50],
      ['OWN30', 30],
      ['EBOOK20', 20],
      ['GIFT', 0],
      ['ENDED', 0],
      ['PLAIN', 0],
    ]);
  });

  it("orders by the store's guest discount on books and the e-book's own discount", async () => {
    await setStoreDiscounts(t.database.db, 'WEB', 10, 0);
    try {
      expect((await list()).shown).toEqual([
        ['ON-SALE', 50],
        ['EBOOK20', 20],
        ['ENDED', 10],
        ['PLAIN', 10],
        ['OWN30', 10],
        ['GIFT', 0],
      ]);
    } finally {
      await setStoreDiscounts(t.database.db, 'WEB', 0, 0);
    }
  });

  it("orders a client's list by the client's own discount", async () => {
    expect((await list(client)).shown).toEqual([
      ['ON-SALE', 50],
      ['ENDED', 5],
      ['PLAIN', 5],
      ['EBOOK20', 5],
      ['OWN30', 5],
      ['GIFT', 0],
    ]);
  });
});

describe('the discounted block holds the products whose cards show a discount', () => {
  it('holds a campaign product and not a gift card with a list price', async () => {
    expect(await block()).toEqual({
      shown: [
        ['ON-SALE', 50],
        ['OWN30', 30],
        ['EBOOK20', 20],
      ],
      total: '3',
    });
  });

  it("holds what the store's discount lowers, and pages it", async () => {
    await setStoreDiscounts(t.database.db, 'WEB', 10, 10);
    try {
      expect(await block()).toEqual({
        shown: [
          ['ON-SALE', 50],
          ['EBOOK20', 20],
          ['ENDED', 10],
          ['PLAIN', 10],
          ['OWN30', 10],
        ],
        total: '5',
      });
      expect((await cards(`/product-component/discounted?categoryId=${categoryId}&per-page=2&page=2`)).shown).toEqual([
        ['ENDED', 10],
        ['PLAIN', 10],
      ]);
      // Books: the larger of the store's logged-in 10 % and the client's 5 %; the e-book only the client's
      // 5 %, which hides its own 20 % (the strike-through is then its shop price).
      expect((await block(client)).shown).toEqual([
        ['ON-SALE', 50],
        ['ENDED', 10],
        ['PLAIN', 10],
        ['OWN30', 10],
        ['EBOOK20', 5],
      ]);
    } finally {
      await setStoreDiscounts(t.database.db, 'WEB', 0, 0);
    }
  });
});
