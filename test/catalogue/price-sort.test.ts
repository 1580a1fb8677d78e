import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createCampaign, createCategory, createProduct, setStoreDiscounts } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A list sorted by price is in the order of the prices its cards show: a campaign price running
// now moves a product, one that has ended or not yet started does not, and equal prices go by id.

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 4, 12);
const clock = fixedClock(NOW);

let t: TestApp;
let business: TestCustomer;
let categoryId: number;

beforeAll(async () => {
  t = await createTestApp({ clock });
  const db = t.database.db;
  categoryId = await createCategory(db, { et: 'Romaanid' });
  const product = (code: string, price: number) => createProduct(db, { code, price, categoryIds: [categoryId] });
  const cheap = await product('CHEAP', 8);
  const ten = await product('TEN', 10);
  const onSale = await product('ON-SALE', 12);
  const ended = await product('ENDED', 9);
  const future = await product('FUTURE', 11);
  const ending = await product('ENDING', 13);
  const forBusiness = await product('FOR-BUSINESS', 14);
  await createCampaign(db, { validFrom: NOW - DAY, validTo: NOW + DAY, prices: [{ productId: onSale, price: 5 }] });
  await createCampaign(db, { validFrom: NOW - 3 * DAY, validTo: NOW - DAY, prices: [{ productId: ended, price: 3 }] });
  await createCampaign(db, { validFrom: NOW + DAY, validTo: null, prices: [{ productId: future, price: 2 }] });
  await createCampaign(db, { validFrom: null, validTo: NOW + 2 * DAY, prices: [{ productId: ending, price: 10 }] });
  await createCampaign(db, { prices: [{ productId: forBusiness, price: 1, kind: 'BUSINESS' }] });
  void cheap;
  void ten;
  business = await createCustomer(db, { kind: 'BUSINESS' });
});
afterAll(() => t.close());

const get = (url: string, customer?: TestCustomer) =>
  t.app.inject({ method: 'GET', url, headers: customer ? { authorization: `Bearer ${customer.token}` } : {} });

async function listed(url: string, customer?: TestCustomer): Promise<Array<[string, number]>> {
  const res = await get(url, customer);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as Array<{ code: string; price: number }>).map((card) => [card.code, card.price]);
}

describe('sort=price and sort=-price order by the price the cards show', () => {
  it('a running campaign price moves a product; an ended or future one does not', async () => {
    clock.set(NOW);
    const ascending: Array<[string, number]> = [
      ['ON-SALE', 5],
      ['CHEAP', 8],
      ['ENDED', 9],
      // ENDING's campaign price ties with TEN: the lower id first.
      ['TEN', 10],
      ['ENDING', 10],
      ['FUTURE', 11],
      ['FOR-BUSINESS', 14],
    ];
    expect(await listed('/product?sort=price')).toEqual(ascending);
    expect(await listed(`/category/${categoryId}/products?sort=price`)).toEqual(ascending);
    expect(await listed('/product?sort=-price')).toEqual([
      ['FOR-BUSINESS', 14],
      ['FUTURE', 11],
      ['ENDING', 10],
      ['TEN', 10],
      ['ENDED', 9],
      ['CHEAP', 8],
      ['ON-SALE', 5],
    ]);
    // Paged: the second page continues the same order.
    expect(await listed('/product?sort=price&per-page=3&page=2')).toEqual(ascending.slice(3, 6));
  });

  it('follows the clock: a campaign that ends (or starts) reorders the list at once', async () => {
    clock.set(NOW);
    expect((await listed('/product?sort=price'))[0]).toEqual(['ON-SALE', 5]);
    clock.set(NOW + DAY + 1);
    const later = await listed('/product?sort=price');
    expect(later.slice(0, 2)).toEqual([
      ['FUTURE', 2],
      ['CHEAP', 8],
    ]);
    expect(later.map(([, price]) => price)).toEqual([...later.map(([, price]) => price)].sort((a, b) => a - b));
    clock.set(NOW);
  });

  it("orders a business customer's list by the business campaign prices", async () => {
    clock.set(NOW);
    const prices = await listed('/product?sort=price', business);
    expect(prices[0]).toEqual(['FOR-BUSINESS', 1]);
    expect(prices.map(([, price]) => price)).toEqual([...prices.map(([, price]) => price)].sort((a, b) => a - b));
  });

  it('orders by the discounted price when the store gives a discount to all but e-books', async () => {
    clock.set(NOW);
    const db = t.database.db;
    await createProduct(db, { code: 'EBOOK', type: 'EBOOK', price: 9.5, categoryIds: [categoryId] });
    await setStoreDiscounts(db, 'WEB', 20, 0);
    try {
      // Books at 20 % off: TEN is 8.00 and so below the e-book at 9.50, which gets no store discount.
      const prices = await listed(`/category/${categoryId}/products?sort=price&per-page=100`);
      expect(prices.map(([, price]) => price)).toEqual([...prices.map(([, price]) => price)].sort((a, b) => a - b));
      const descending = await listed(`/category/${categoryId}/products?sort=-price&per-page=100`);
      expect(descending.map(([, price]) => price)).toEqual([...descending.map(([, price]) => price)].sort((a, b) => b - a));
    } finally {
      await setStoreDiscounts(db, 'WEB', 0, 0);
    }
  });
});
