import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import {
  createCampaign,
  createCategory,
  createPerson,
  createProduct,
  createProductList,
  createPublisher,
  createSeries,
  createShop,
  setStock,
  setStoreDiscounts,
  type ProductSpec,
} from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import type { TestApp } from '../helpers/test-app.js';

// A small hand-made bookstore for the search tests: Estonian, English, Russian and German titles,
// persons with diacritics, ISBNs, every availability, campaigns, hidden and foreign products.

const DAY = 86_400_000;

/** EAN-13 with its check digit from the first 12 digits. */
export function ean13(first12: string): string {
  const sum = [...first12].reduce((total, digit, index) => total + Number(digit) * (index % 2 === 0 ? 1 : 3), 0);
  return `${first12}${(10 - (sum % 10)) % 10}`;
}

export const TRUTH_EAN = ean13('978998530123');
/** TRUTH_EAN as an ISBN-10 (its alternate code): 998530123 plus the ISBN-10 check digit. */
export const TRUTH_ISBN10 = `998530123${isbn10Check('998530123')}`;

function isbn10Check(first9: string): string {
  const sum = [...first9].reduce((total, digit, index) => total + Number(digit) * (10 - index), 0);
  const check = (11 - (sum % 11)) % 11;
  return check === 10 ? 'X' : String(check);
}

export interface SearchCatalogue {
  product: Record<string, number>;
  person: Record<'tammsaare' | 'luts' | 'kask' | 'mihkelson' | 'dostoevsky' | 'king', number>;
  publisher: Record<'tanapaev' | 'avita' | 'penguin', number>;
  series: Record<'romaan' | 'classics', number>;
  category: Record<'fiction' | 'estonian' | 'foreign' | 'children' | 'hobbies', number>;
  shop: Record<'tallinn' | 'tartu', number>;
  campaign: number;
  list: number;
  customers: { retail: TestCustomer; loyal: TestCustomer; business: TestCustomer; wholesale: TestCustomer };
}

export async function createSearchCatalogue(t: TestApp): Promise<SearchCatalogue> {
  const db = t.database.db;
  const now = Date.now();
  await setStoreDiscounts(db, 'WEB', 5, 10);
  const person = {
    tammsaare: await createPerson(db, 'Anton Hansen Tammsaare'),
    luts: await createPerson(db, 'Oskar Luts'),
    kask: await createPerson(db, 'Tõde Kask'),
    mihkelson: await createPerson(db, 'Karl Mihkelson'),
    dostoevsky: await createPerson(db, 'Фёдор Достоевский'),
    king: await createPerson(db, 'Stephen King'),
  };
  const publisher = {
    tanapaev: await createPublisher(db, 'Tänapäev'),
    avita: await createPublisher(db, 'Avita'),
    penguin: await createPublisher(db, 'Penguin Books'),
  };
  const series = {
    romaan: await createSeries(db, 'Eesti romaan', { publisherId: publisher.tanapaev }),
    classics: await createSeries(db, 'Penguin Classics', { publisherId: publisher.penguin }),
  };
  const fiction = await createCategory(db, { et: 'Ilukirjandus', en: 'Fiction' }, { position: 1 });
  const category = {
    fiction,
    estonian: await createCategory(db, { et: 'Eesti ilukirjandus', en: 'Estonian fiction' }, { parentId: fiction, position: 1 }),
    foreign: await createCategory(db, { et: 'Tõlkeilukirjandus', en: 'Translated fiction' }, { parentId: fiction, position: 2 }),
    children: await createCategory(db, { et: 'Lasteraamatud', en: "Children's books" }, { position: 2 }),
    hobbies: await createCategory(db, { et: 'Hobid ja vaba aeg', en: 'Hobbies' }, { position: 3 }),
  };
  const shop = {
    tallinn: await createShop(db, { code: 'TLN', city: 'Tallinn' }),
    tartu: await createShop(db, { code: 'TRT', city: 'Tartu', webStock: false }),
  };
  const specs: Record<string, ProductSpec> = {
    truth: {
      name: 'Tõde ja õigus I',
      ean: TRUTH_EAN,
      altCodes: [TRUTH_ISBN10],
      persons: [{ id: person.tammsaare }],
      publisherId: publisher.tanapaev,
      seriesId: series.romaan,
      categoryIds: [category.estonian],
      price: 19.9,
      originalPrice: 24.9,
      wholesalePrice: 12,
      salesCount: 90,
      releasedAt: now - 400 * DAY,
    },
    truth2: {
      name: 'Tõde ja õigus II',
      persons: [{ id: person.tammsaare }],
      publisherId: publisher.tanapaev,
      seriesId: series.romaan,
      categoryIds: [category.estonian],
      binding: 'PAPERBACK',
      price: 15,
      salesCount: 40,
      releasedAt: now - 300 * DAY,
    },
    lie: {
      name: 'Tõde ja vale',
      persons: [{ id: person.mihkelson }],
      categoryIds: [category.estonian],
      availability: 'PERMANENTLY_OUT_OF_STOCK',
      price: 9.5,
      salesCount: 5,
      releasedAt: now - 900 * DAY,
    },
    spring: {
      name: 'Kevade',
      altNames: ['Tõde', 'Paunvere lood'],
      persons: [{ id: person.luts }],
      publisherId: publisher.avita,
      categoryIds: [category.estonian, category.children],
      price: 12.5,
      originalPrice: 14,
      salesCount: 200,
      releasedAt: now - 1000 * DAY,
    },
    memoir: {
      name: 'Mälestused',
      persons: [{ id: person.kask }],
      publisherId: publisher.avita,
      categoryIds: [category.estonian],
      binding: 'PAPERBACK',
      price: 8,
      salesCount: 3,
      releasedAt: null,
    },
    about: {
      name: 'Tammsaare elu ja looming',
      persons: [{ id: person.mihkelson }, { id: person.tammsaare, role: 'EDITOR' }],
      publisherId: publisher.tanapaev,
      categoryIds: [category.estonian],
      price: 29,
      salesCount: 12,
      releasedAt: now - 10 * DAY,
    },
    truthEn: {
      name: 'The Truth',
      type: 'EBOOK',
      binding: 'EPUB',
      language: 'EN',
      persons: [{ id: person.king }],
      publisherId: publisher.penguin,
      seriesId: series.classics,
      categoryIds: [category.foreign],
      price: 7.99,
      salesCount: 60,
      releasedAt: now - 20 * DAY,
      deliveryTime: 'INSTANT_DOWNLOAD',
    },
    crime: {
      name: 'Crime and Punishment',
      language: 'EN',
      persons: [{ id: person.dostoevsky, role: 'AUTHOR' }],
      publisherId: publisher.penguin,
      seriesId: series.classics,
      categoryIds: [category.foreign],
      binding: 'PAPERBACK',
      price: 11,
      salesCount: 30,
      releasedAt: now - 700 * DAY,
    },
    crimeRu: {
      name: 'Преступление и наказание',
      language: 'RU',
      persons: [{ id: person.dostoevsky }],
      categoryIds: [category.foreign],
      price: 13,
      salesCount: 25,
      releasedAt: now - 800 * DAY,
    },
    tree: {
      name: 'Ёлка',
      language: 'RU',
      categoryIds: [category.children],
      binding: 'BOARD',
      price: 6.5,
      salesCount: 8,
      releasedAt: now - 50 * DAY,
    },
    german: {
      name: 'Wahrheit und Recht',
      language: 'DE',
      persons: [{ id: person.tammsaare }],
      categoryIds: [category.foreign],
      price: 21,
      salesCount: 2,
      releasedAt: now - 200 * DAY,
    },
    soon: {
      name: 'Tõe otsingul',
      persons: [{ id: person.kask }],
      categoryIds: [category.estonian],
      availability: 'COMING_SOON',
      deliveryTime: 'PREORDER',
      price: 18,
      releasedAt: now + 30 * DAY,
    },
    shopOnly: {
      name: 'Strikkimine algajale',
      categoryIds: [category.hobbies],
      availability: 'AVAILABLE_IN_SHOP',
      binding: 'SPIRAL',
      price: 16,
      salesCount: 7,
      releasedAt: now - 5 * DAY,
    },
    giftCard: { name: 'Kinkekaart 25 €', type: 'GIFT_CARD', language: null, binding: null, price: 25, vatRate: 0, salesCount: 50 },
    temporarily: {
      name: 'Tõde kohtusaalis',
      categoryIds: [category.estonian],
      availability: 'TEMPORARILY_OUT_OF_STOCK',
      price: 10,
      salesCount: 1,
    },
    hidden: { name: 'Tõde salajane', hiddenWeb: true, categoryIds: [category.estonian], price: 10 },
    business: { name: 'Tõde kontoris', hiddenBusiness: true, categoryIds: [category.estonian], price: 10 },
    inactive: { name: 'Tõde aegunud', active: false, categoryIds: [category.estonian], price: 10 },
    outlet: { name: 'Tõde allahindlusel', stores: ['WEB2'], categoryIds: [], price: 10 },
    campaign: {
      name: 'Suvi',
      persons: [{ id: person.luts }],
      categoryIds: [category.estonian],
      price: 30,
      wholesalePrice: 20,
      salesCount: 11,
      releasedAt: now - 60 * DAY,
    },
  };
  const product: Record<string, number> = {};
  for (const [key, spec] of Object.entries(specs)) product[key] = await createProduct(db, { code: `S-${key.toUpperCase()}`, ...spec });
  await setStock(db, product.truth!, shop.tallinn, 3);
  await setStock(db, product.shopOnly!, shop.tartu, 2);
  await setStock(db, product.crime!, shop.tartu, 1);
  const campaign = await createCampaign(db, {
    validFrom: now - DAY,
    validTo: now + DAY,
    prices: [
      { productId: product.campaign!, price: 14.99 },
      { productId: product.campaign!, price: 25, kind: 'BUSINESS' },
      { productId: product.crime!, price: 9 },
    ],
  });
  const list = await createProductList(db, [product.crime!, product.spring!, product.tree!]);
  const customers = {
    retail: await createCustomer(db),
    loyal: await createCustomer(db, { discountPercent: 15 }),
    business: await createCustomer(db, { kind: 'BUSINESS', companyDiscountPercent: 30 }),
    wholesale: await createCustomer(db, { kind: 'WHOLESALE' }),
  };
  await db
    .insertInto('company_product_price')
    .values({ company_id: customers.wholesale.companyId!, product_id: product.truth!, price_cents: 1100 })
    .execute();
  return { product, person, publisher, series, category, shop, campaign, list, customers };
}

export interface Card {
  id: number;
  name: string;
  price: number;
  discountPercent: number;
  availability: string;
  releaseDate: string | null;
}

export const auth = (customer?: TestCustomer): Record<string, string> => (customer ? { authorization: `Bearer ${customer.token}` } : {});

/** GET a search-backed path; asserts a 200 and returns the body and the total. */
export async function get<T = Card[]>(t: TestApp, url: string, customer?: TestCustomer, store = 'WEB') {
  const response = await t.app.inject({ url, headers: { ...auth(customer), store } });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return { body: response.json() as T, total: Number(response.headers['x-pagination-total-count'] ?? -1), response };
}

/** Names of a search answer, in order. */
export async function names(t: TestApp, url: string, customer?: TestCustomer): Promise<string[]> {
  return (await get(t, url, customer)).body.map((card) => card.name);
}

export const q = (text: string) => `/product/search?per-page=100&q=${encodeURIComponent(text)}`;

export function expectHeaders(response: LightMyRequestResponse): void {
  expect(response.headers['x-search-available']).toBe('1');
}
