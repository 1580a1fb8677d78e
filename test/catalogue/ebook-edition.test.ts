import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A physical book with several e-book editions (one per store, one for the business catalogue only):
// its page links the edition the caller can see, not none because the first one is another store's.

let t: TestApp;
let book = 0;
const ebook = { outlet: 0, web: 0, business: 0 };
let business: TestCustomer;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  book = await createProduct(db, { name: 'Paberraamat', stores: ['WEB', 'WEB2'] });
  const edition = { type: 'EBOOK' as const, physicalBookId: book };
  ebook.outlet = await createProduct(db, { ...edition, name: 'E-raamat (outlet)', stores: ['WEB2'] });
  ebook.business = await createProduct(db, { ...edition, name: 'E-raamat (ettevõtetele)', hiddenWeb: true });
  ebook.web = await createProduct(db, { ...edition, name: 'E-raamat' });
  business = await createCustomer(db, { kind: 'BUSINESS' });
});
afterAll(() => t.close());

const ebookOf = async (store: string, customer?: TestCustomer) => {
  const headers: Record<string, string> = { store, ...(customer ? { authorization: `Bearer ${customer.token}` } : {}) };
  const response = await t.app.inject({ url: `/product/${book}`, headers });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { ebook: { id: number } | null }).ebook?.id ?? null;
};

describe('the e-book edition on a physical book', () => {
  it('is the one the store sells and the caller sees', async () => {
    expect(await ebookOf('WEB2')).toBe(ebook.outlet);
    expect(await ebookOf('WEB')).toBe(ebook.web);
    expect(await ebookOf('WEB', business)).toBe(ebook.business);
  });
});
