import { expect } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import type { TestCustomer } from '../helpers/customers.js';
import { call, createCustomer, saveCard, subscribe, type SubscriptionShop } from './helpers.js';

// What subscriptions give: a catalogue of downloadable audiobooks and e-books (and products no
// plan gives), a subscriber of a plan, and the take calls.

export interface TakeCatalogue {
  audiobooks: number[];
  ebooks: number[];
  /** An audiobook on CD: an audiobook, but not a download. */
  cdAudiobook: number;
  paperBook: number;
  hiddenEbook: number;
  comingSoonEbook: number;
  otherStoreEbook: number;
}

export async function createTakeCatalogue(s: SubscriptionShop, count = 8): Promise<TakeCatalogue> {
  const db = s.t.database.db;
  const audiobook = (index: number) =>
    createProduct(db, { name: `Kuuldav ${index}`, type: 'AUDIOBOOK', binding: 'MP3', deliveryTime: 'INSTANT_DOWNLOAD', price: 12 });
  const ebook = (index: number, extra: Parameters<typeof createProduct>[1] = {}) =>
    createProduct(db, { name: `E-raamat ${index}`, type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD', price: 8, ...extra });
  const audiobooks: number[] = [];
  const ebooks: number[] = [];
  for (let index = 0; index < count; index += 1) {
    audiobooks.push(await audiobook(index));
    ebooks.push(await ebook(index));
  }
  return {
    audiobooks,
    ebooks,
    cdAudiobook: await createProduct(db, { type: 'AUDIOBOOK', binding: 'CD', deliveryTime: 'DAYS_1_7' }),
    paperBook: await createProduct(db, { type: 'BOOK' }),
    hiddenEbook: await ebook(100, { hiddenWeb: true }),
    comingSoonEbook: await ebook(101, { availability: 'COMING_SOON' }),
    otherStoreEbook: await ebook(102, { stores: ['WEB2'] }),
  };
}

export interface Subscriber {
  customer: TestCustomer;
  id: number;
}

/** A customer with a saved card and a subscription of the plan (TRIAL when the plan has trial days). */
export async function subscriber(s: SubscriptionShop, planCode: string): Promise<Subscriber> {
  const customer = await createCustomer(s.t.database.db);
  await saveCard(s, customer);
  const response = await subscribe(s, customer, planCode);
  expect(response.statusCode, response.body).toBe(201);
  return { customer, id: response.json().id };
}

/** Answers in English, so the tests can read the messages. */
const english = (customer: Pick<TestCustomer, 'token'>) => ({ authorization: `Bearer ${customer.token}`, 'x-app-language': 'en' });

export const take = (s: SubscriptionShop, who: Subscriber, productId: unknown, customer: Pick<TestCustomer, 'token'> = who.customer) =>
  s.t.app.inject({ method: 'POST', url: `/subscription/${who.id}/take`, headers: english(customer), payload: { productId } });

export const giveBack = (s: SubscriptionShop, who: Subscriber, productId: number, customer: Pick<TestCustomer, 'token'> = who.customer) =>
  s.t.app.inject({ method: 'DELETE', url: `/subscription/${who.id}/take?productId=${productId}`, headers: english(customer) });

export async function holding(s: SubscriptionShop, who: Subscriber) {
  const response = await call(s, who.customer, 'GET', `/subscription/${who.id}/take`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    items: Array<{ productId: number; kind: string; usedCredit: boolean }>;
    creditsLeft: number | null;
    shelfFree: number | null;
  };
}

/** Statuses of parallel answers, sorted. */
export const statuses = (responses: Array<{ statusCode: number }>) => responses.map((r) => r.statusCode).sort();
