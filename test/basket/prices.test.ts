import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createProduct, createShop, setStock, setStoreDiscounts } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, read, type Who } from './helpers.js';

// Every kind of caller pays in the basket exactly what the catalogue shows them (the one pricing
// module): guests and retail clients with VAT and strike-through prices, business clients their
// company discount, wholesale clients without VAT, totals included.

type Kind = 'guest' | 'retail' | 'business' | 'wholesale';
const KINDS: Kind[] = ['guest', 'retail', 'business', 'wholesale'];

let t: TestApp;
const ids: number[] = [];
const customers = {} as Record<Exclude<Kind, 'guest'>, TestCustomer>;
const DAY = 86_400_000;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  await setStoreDiscounts(db, 'WEB', 5, 10);
  const shop = await createShop(db);
  const specs: Array<Parameters<typeof createProduct>[1]> = [
    { price: 20, originalPrice: 25, wholesalePrice: 12 },
    { price: 19.99, vatRate: 24, type: 'OFFICE_EQUIPMENT', binding: null },
    { price: 10, type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD' },
    { price: 30 },
    { price: 25, type: 'GIFT_CARD', vatRate: 0, binding: null },
    { price: 21.5, originalPrice: 21 },
  ];
  for (const spec of specs) {
    const id = await createProduct(db, spec);
    await setStock(db, id, shop, 100);
    ids.push(id);
  }
  const now = Date.now();
  await createCampaign(db, {
    validFrom: now - DAY,
    validTo: now + DAY,
    prices: [
      { productId: ids[3]!, price: 15 },
      { productId: ids[3]!, price: 16, kind: 'BUSINESS' },
    ],
  });
  customers.retail = await createCustomer(db, { discountPercent: 7 });
  customers.business = await createCustomer(db, { kind: 'BUSINESS', companyDiscountPercent: 30 });
  customers.wholesale = await createCustomer(db, { kind: 'WHOLESALE' });
  await db
    .insertInto('company_product_price')
    .values({ company_id: customers.wholesale.companyId!, product_id: ids[0]!, price_cents: 1100 })
    .execute();
});
afterAll(() => t.close());

const headersOf = (kind: Kind) => (kind === 'guest' ? {} : { authorization: `Bearer ${customers[kind].token}` });

describe.each(KINDS)('a %s', (kind) => {
  it("pays in the basket what the catalogue's product page shows, line by line and in total", async () => {
    let who: Who = kind === 'guest' ? {} : { bearer: customers[kind].token };
    let expectedTotal = 0;
    for (const [index, id] of ids.entries()) {
      // The e-book (index 2) may be in the basket once.
      const quantity = index === 2 ? 1 : 3;
      const page = await t.app.inject({ url: `/product/${id}`, headers: headersOf(kind) });
      expect(page.statusCode, page.body).toBe(200);
      const card = page.json() as { price: number; strikeThroughPrice: number | null; vatIncluded: boolean };
      const basket = await add(t, who, id, quantity);
      if (kind === 'guest') who = { token: basket.basketToken! };
      const line = basket.items.find((item) => item.productId === id)!;
      expect([line.unitPrice, line.strikeThroughPrice, line.quantity], `${kind} product ${id}`).toEqual([
        card.price,
        card.strikeThroughPrice,
        quantity,
      ]);
      expect(line.lineTotal).toBe(Math.round(card.price * 100 * quantity) / 100);
      expect(basket.vatIncluded).toBe(card.vatIncluded);
      expectedTotal += Math.round(card.price * 100) * quantity;
    }
    const basket = await read(t, who);
    expect(basket.subtotal).toBe(expectedTotal / 100);
    expect(basket.total).toBe(expectedTotal / 100);
    const vatSum = basket.vat.reduce(
      (sum, row) => sum + Math.round(row.net * 100) + (kind === 'wholesale' ? 0 : Math.round(row.vat * 100)),
      0,
    );
    // With VAT the rates' net and VAT add up to the total; without it (wholesale) their net does.
    expect(vatSum).toBe(expectedTotal);
    expect(basket.vat.map((row) => row.rate)).toEqual([0, 9, 24]);
  });
});

it('prices a wholesale basket without VAT and adds the VAT per rate on top', async () => {
  const basket = await read(t, { bearer: customers.wholesale.token });
  expect(basket.vatIncluded).toBe(false);
  const nine = basket.vat.find((row) => row.rate === 9)!;
  expect(nine.vat).toBe(Math.round(nine.net * 9) / 100);
});
