import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { auth, createSearchCatalogue, get, type Card, type SearchCatalogue } from './fixtures.js';

// Every filter and sort of /product/search, checked against what the unfiltered search shows the
// same caller (an oracle from the cards themselves), for guests and every kind of customer.

let t: TestApp;
let c: SearchCatalogue;
let callers: Array<[string, TestCustomer | undefined]>;
beforeAll(async () => {
  t = await createTestApp();
  c = await createSearchCatalogue(t);
  callers = [
    ['guest', undefined],
    ['retail', c.customers.retail],
    ['loyal', c.customers.loyal],
    ['business', c.customers.business],
    ['wholesale', c.customers.wholesale],
  ];
});
afterAll(() => t.close());

const ALL = '/product/search?per-page=100';
const ids = (cards: Card[]) => cards.map((card) => card.id);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const search = async (params: string, customer?: TestCustomer) => (await get(t, `${ALL}&${params}`, customer)).body;
const nameSet = async (params: string, customer?: TestCustomer) => (await search(params, customer)).map((card) => card.name).sort();

describe('filters', () => {
  it('by category, with its subcategories', async () => {
    expect(await nameSet(`categoryId=${c.category.foreign}`)).toEqual([
      'Crime and Punishment',
      'The Truth',
      'Wahrheit und Recht',
      'Преступление и наказание',
    ]);
    const fiction = await nameSet(`categoryId=${c.category.fiction}`);
    expect(fiction).toEqual(expect.arrayContaining(['Crime and Punishment', 'Kevade', 'Tõde ja õigus I']));
    expect(fiction).not.toContain('Ёлка');
    expect(await nameSet('categoryId=999999')).toEqual([]);
  });

  it('by person, publisher, series, product list and campaign', async () => {
    expect(await nameSet(`personId=${c.person.tammsaare}`)).toEqual([
      'Tammsaare elu ja looming',
      'Tõde ja õigus I',
      'Tõde ja õigus II',
      'Wahrheit und Recht',
    ]);
    expect(await nameSet(`publisherId=${c.publisher.avita}`)).toEqual(['Kevade', 'Mälestused']);
    expect(await nameSet(`seriesId=${c.series.classics}`)).toEqual(['Crime and Punishment', 'The Truth']);
    expect(await nameSet(`productListId=${c.list}`)).toEqual(['Crime and Punishment', 'Kevade', 'Ёлка']);
    expect(await nameSet(`campaignId=${c.campaign}`)).toEqual(['Crime and Punishment', 'Suvi']);
  });

  it('by type and binding, one or several, repeated or comma-separated', async () => {
    expect(await nameSet('type=EBOOK')).toEqual(['The Truth']);
    expect(await nameSet('type=EBOOK&type=GIFT_CARD')).toEqual(['Kinkekaart 25 €', 'The Truth']);
    expect(await nameSet('type=EBOOK,GIFT_CARD')).toEqual(['Kinkekaart 25 €', 'The Truth']);
    expect(await nameSet('binding=SPIRAL')).toEqual(['Strikkimine algajale']);
    expect(await nameSet('binding=board,Epub')).toEqual(['The Truth', 'Ёлка'].sort());
  });

  it('by language: ET, EN, RU and OTHER', async () => {
    const all = await search('');
    expect(await nameSet('language=RU')).toEqual(['Преступление и наказание', 'Ёлка'].sort());
    expect(await nameSet('language=OTHER')).toEqual(['Wahrheit und Recht']);
    expect(await nameSet('language=EN,OTHER')).toEqual(['Crime and Punishment', 'The Truth', 'Wahrheit und Recht']);
    const estonian = await search('language=ET');
    expect(estonian.length).toBeGreaterThan(5);
    // Products without a language (a gift card) are in no language group.
    expect((await search('language=ET,EN,RU,OTHER')).length).toBe(all.length - 1);
  });

  it('by availability (web, shop, soon), given shops, preorder and new products', async () => {
    expect(await nameSet('availability=soon')).toEqual(['Tõe otsingul']);
    expect(await nameSet('availability=shop')).toEqual(['Crime and Punishment', 'Strikkimine algajale', 'Tõde ja õigus I']);
    expect(await nameSet('shop=TRT')).toEqual(['Crime and Punishment', 'Strikkimine algajale']);
    expect(await nameSet('shop=TLN,NOPE')).toEqual(['Tõde ja õigus I']);
    const web = await search('availability=web');
    expect(web.every((card) => card.availability === 'AVAILABLE')).toBe(true);
    expect(await nameSet('availability=soon,shop')).toEqual([
      'Crime and Punishment',
      'Strikkimine algajale',
      'Tõde ja õigus I',
      'Tõe otsingul',
    ]);
    expect(await nameSet('preorder=true')).toEqual(['Tõe otsingul']);
    expect(await nameSet('new=true')).toEqual(['Strikkimine algajale', 'Tammsaare elu ja looming', 'The Truth', 'Ёлка', 'Suvi'].sort());
  });

  it('combines filters with text', async () => {
    expect(await nameSet(`q=tõde&personId=${c.person.tammsaare}&binding=PAPERBACK`)).toEqual(['Tõde ja õigus II']);
    expect(await nameSet(`q=tammsaare&language=OTHER`)).toEqual(['Wahrheit und Recht']);
  });
});

describe('price and discount follow the caller', () => {
  it('filters by price range on the price each caller is shown', async () => {
    for (const [who, customer] of callers) {
      const all = await search('', customer);
      const expected = all.filter((card) => card.price >= 10 && card.price <= 20);
      const found = await search('priceMin=10&priceMax=20', customer);
      expect(sorted(ids(found)), who).toEqual(sorted(ids(expected)));
      const cheap = await search('priceMax=9.99', customer);
      expect(sorted(ids(cheap)), who).toEqual(sorted(ids(all.filter((card) => card.price <= 9.99))));
    }
  });

  it("sorts by the caller's price both ways", async () => {
    for (const [who, customer] of callers) {
      const all = await search('', customer);
      const up = await search('sort=price', customer);
      const down = await search('sort=-price', customer);
      expect(sorted(ids(up)), who).toEqual(sorted(ids(all)));
      expect(
        up.map((card) => card.price),
        who,
      ).toEqual([...all.map((card) => card.price)].sort((a, b) => a - b));
      expect(
        down.map((card) => card.price),
        who,
      ).toEqual([...all.map((card) => card.price)].sort((a, b) => b - a));
    }
  });

  it('filters and sorts by the discount each guest or retail caller is shown', async () => {
    for (const [who, customer] of callers.slice(0, 3)) {
      const all = await search('', customer);
      const found = await search('minDiscount=10', customer);
      expect(sorted(ids(found)), who).toEqual(sorted(ids(all.filter((card) => card.discountPercent >= 10))));
      const byDiscount = await search('sort=discount', customer);
      expect(
        byDiscount.map((card) => card.discountPercent),
        who,
      ).toEqual(all.map((card) => card.discountPercent).sort((a, b) => b - a));
    }
    // The campaign price (14.99 of 30) is the guest's 50 % discount.
    expect((await search('minDiscount=50')).map((card) => card.name)).toEqual(['Suvi']);
  });

  it('filters and sorts business and wholesale customers, whose cards show no discount, by the list-price discount', async () => {
    const rows = await t.database.db.selectFrom('product').select(['id', 'discount_percent']).execute();
    const listDiscount = new Map(rows.map((row) => [Number(row.id), Number(row.discount_percent)]));
    const byListDiscount = (a: number, b: number) => listDiscount.get(b)! - listDiscount.get(a)! || b - a;
    for (const [who, customer] of callers.slice(3)) {
      const all = ids(await search('', customer));
      const found = ids(await search('minDiscount=10', customer));
      expect(found.length, who).toBeGreaterThan(0);
      expect(sorted(found), who).toEqual(sorted(all.filter((id) => listDiscount.get(id)! >= 10)));
      const byDiscount = ids(await search('sort=discount', customer));
      expect(byDiscount, who).toEqual([...all].sort(byListDiscount));
      // As their product list by discount orders them.
      expect(byDiscount, who).toEqual(ids((await get(t, '/product?per-page=100&sort=discount', customer)).body));
    }
  });
});

describe('sorts', () => {
  it('by name, newest and sales in the same order as the product list', async () => {
    for (const sort of ['name', 'newest', 'sales']) {
      const list = (await get(t, `/product?per-page=100&sort=${sort}`)).body;
      expect(ids(await search(`sort=${sort}`)), sort).toEqual(ids(list));
    }
    const newest = await search('sort=newest');
    expect(newest.at(-1)!.releaseDate).toBeNull();
  });

  it('rejects an unknown sort', async () => {
    const response = await t.app.inject({ url: '/product/search?sort=popularity' });
    expect(response.statusCode).toBe(400);
  });
});

describe('paging and visibility', () => {
  it('pages with the pagination headers; a page past the end is empty', async () => {
    const all = await search('q=tõde');
    const { body, response } = await get(t, '/product/search?q=tõde&per-page=2&page=2');
    expect(ids(body)).toEqual(ids(all).slice(2, 4));
    expect(response.headers['x-pagination-current-page']).toBe('2');
    expect(response.headers['x-pagination-per-page']).toBe('2');
    expect(response.headers['x-pagination-total-count']).toBe(String(all.length));
    expect(response.headers['x-pagination-page-count']).toBe(String(Math.ceil(all.length / 2)));
    expect(response.headers.link).toContain('q=t%C3%B5de');
    expect(response.headers.link).toContain('rel="next"');
    const past = await get(t, '/product/search?q=tõde&page=50');
    expect(past.body).toEqual([]);
    expect(past.total).toBe(all.length);
  });

  it('uses 20 per page by default and 100 at most', async () => {
    expect((await get(t, '/product/search')).response.headers['x-pagination-per-page']).toBe('20');
    expect((await get(t, '/product/search?per-page=1000')).response.headers['x-pagination-per-page']).toBe('100');
  });

  it('shows each audience its own catalogue, and each store its own assortment', async () => {
    const guest = await nameSet('q=tõde');
    const business = await nameSet('q=tõde', c.customers.business);
    expect(guest).toContain('Tõde kontoris');
    expect(guest).not.toContain('Tõde salajane');
    expect(business).toContain('Tõde salajane');
    expect(business).not.toContain('Tõde kontoris');
    expect([...guest, ...business]).not.toContain('Tõde aegunud');
    expect(guest).not.toContain('Tõde allahindlusel');
    const outlet = await get(t, `${ALL}&q=tõde`, undefined, 'WEB2');
    expect(outlet.body.map((card) => card.name)).toEqual(['Tõde allahindlusel']);
  });

  it('lets a guest answer be cached (ETag, 304) and never a business one', async () => {
    const first = await get(t, '/product/search?q=kevade');
    expect(first.response.headers['cache-control']).toMatch(/^public/);
    expect(first.response.headers['x-search-available']).toBe('1');
    const again = await t.app.inject({
      url: '/product/search?q=kevade',
      headers: { 'if-none-match': String(first.response.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const business = await t.app.inject({ url: '/product/search?q=kevade', headers: auth(c.customers.business) });
    expect(business.headers['cache-control']).toBe('no-store');
    expect(business.headers.etag).toBeUndefined();
  });

  it('answers a bad token with 401', async () => {
    const response = await t.app.inject({ url: '/product/search?q=kevade', headers: { authorization: 'Bearer nope' } });
    expect(response.statusCode).toBe(401);
  });

  it('is not taken for a product id: /product/search is its own route', async () => {
    const response = await t.app.inject({ url: '/product/search' });
    expect(response.statusCode).toBe(200);
    expect(Array.isArray(response.json())).toBe(true);
    expect((await t.app.inject({ url: `/product/${c.product.truth}` })).json().name).toBe('Tõde ja õigus I');
  });
});
