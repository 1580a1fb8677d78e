import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// With the caches on, a list's cards are written from texts kept with their bases, priced texts
// included (product-card.text.ts). Callers who pay differently must never get each other's
// texts, and a kept answer must be the one written fresh: the same list read by an app with the
// caches off.

let kept: TestApp;
let fresh: TestApp;
type People = Record<'guest' | 'five' | 'ten' | 'wholesale', TestCustomer | undefined>;
let keptPeople: People;
let freshPeople: People;

async function seed(t: TestApp) {
  const db = t.database.db;
  for (let i = 0; i < 6; i += 1) {
    await createProduct(db, { name: `Kirjutatud ${i}`, price: 10 + i, originalPrice: 20 + i, wholesalePrice: 5 + i });
  }
  return {
    guest: undefined,
    five: await createCustomer(db, { discountPercent: 5 }),
    ten: await createCustomer(db, { discountPercent: 10 }),
    wholesale: await createCustomer(db, { kind: 'WHOLESALE', companyDiscountPercent: 7 }),
  };
}

beforeAll(async () => {
  kept = await createTestApp({ env: { CATALOGUE_CACHE_TTL_MS: '60000' } });
  fresh = await createTestApp();
  keptPeople = await seed(kept);
  freshPeople = await seed(fresh);
});
afterAll(async () => {
  await kept?.close();
  await fresh?.close();
});

const list = (t: TestApp, who: TestCustomer | undefined) =>
  t.app.inject({ url: '/product?per-page=100&sort=name', headers: who ? { authorization: `Bearer ${who.token}` } : {} });
const prices = (body: string) => (JSON.parse(body) as Array<{ name: string; price: number }>).map((card) => `${card.name}=${card.price}`);
/** The cards less their codes (the helper numbers codes per process, so the two apps' differ). */
const withoutCodes = (body: string) => (JSON.parse(body) as Array<Record<string, unknown>>).map(({ code: _code, ...card }) => card);

describe('cards written from kept texts', () => {
  it('give every caller what an app with the caches off gives the same caller, read after read', async () => {
    const answers = new Map<string, string>();
    for (let round = 0; round < 3; round += 1) {
      for (const name of ['guest', 'five', 'ten', 'wholesale', 'five', 'guest'] as const) {
        const response = await list(kept, keptPeople[name]);
        expect(response.statusCode).toBe(200);
        if (!answers.has(name)) answers.set(name, response.body);
        expect(response.body, `${name}, round ${round}`).toBe(answers.get(name));
      }
    }
    // Each caller's prices differ from every other's: nobody got a text kept for someone else.
    const seen = new Set([...answers.values()].map((body) => prices(body).join(',')));
    expect(seen.size).toBe(4);
    // And each is the answer written fresh for the same caller (the same catalogue and callers in the other app).
    // The guest's repeats above are the guest answer cache's replays; the logged-in callers' are written anew.
    for (const [name, body] of answers) {
      const written = await list(fresh, freshPeople[name as keyof People]);
      expect(withoutCodes(written.body), name).toEqual(withoutCodes(body));
    }
  });

  it("give a wishlist the cards the caller's product list shows, from the same kept texts", async () => {
    const client = keptPeople.ten!;
    const products = JSON.parse((await list(kept, client)).body) as Array<{ id: number }>;
    for (const product of products.slice(0, 4)) {
      const added = await kept.app.inject({
        method: 'POST',
        url: '/wishlist',
        headers: { authorization: `Bearer ${client.token}` },
        payload: { productId: product.id },
      });
      expect(added.statusCode).toBe(201);
    }
    for (let round = 0; round < 2; round += 1) {
      const wishlist = await kept.app.inject({ url: '/wishlist', headers: { authorization: `Bearer ${client.token}` } });
      expect(wishlist.statusCode).toBe(200);
      const items = JSON.parse(wishlist.body) as Array<{ product: { id: number } }>;
      expect(items.map((item) => item.product).reverse()).toEqual(products.slice(0, 4));
    }
  });
});
