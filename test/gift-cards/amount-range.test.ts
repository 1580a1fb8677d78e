import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A virtual gift card's amount is the buyer's choice within the store's range, and the form that
// asks for it needs the range before the buyer types: the API said it only in the 422 of an amount
// out of it, so a front-end had to copy €10-€500 from a refusal. GET /app/config tells it, and the
// basket accepts exactly what it tells.

let t: TestApp;
let voucher: number;
beforeAll(async () => {
  t = await createTestApp();
  voucher = await createProduct(t.database.db, {
    type: 'VIRTUAL_GIFT_CARD',
    name: 'Kinkekaart',
    price: 10,
    vatRate: 0,
    stores: ['WEB', 'WEB2'],
  });
});
afterAll(() => t.close());

const config = async (store: string) => {
  const response = await t.app.inject({ method: 'GET', url: '/app/config', headers: { store } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { virtualGiftCardAmount: { min: number; max: number } };
};

// Two days ahead: a day ahead in Tallinn whatever the hour in UTC.
const IN_TWO_DAYS = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);

const addVoucher = (store: string, amount: number) =>
  call(
    t,
    'POST',
    '/basket/add-product',
    { store },
    {
      productId: voucher,
      quantity: 1,
      giftCard: {
        amount,
        recipientName: 'Jaan Tamm',
        recipientEmail: 'jaan@example.ee',
        deliveryDate: IN_TWO_DAYS,
      },
    },
  );

describe('the amounts of a virtual gift card', () => {
  it.each(['WEB', 'WEB2'])('are told by GET /app/config in %s, and the basket takes exactly those', async (store) => {
    const { virtualGiftCardAmount: range } = await config(store);
    expect(range).toEqual({ min: 10, max: 500 });
    expect((await addVoucher(store, range.min)).statusCode).toBe(200);
    expect((await addVoucher(store, range.max)).statusCode).toBe(200);
    const below = await addVoucher(store, range.min - 0.01);
    expect(below.statusCode, below.body).toBe(422);
    expect(below.json()).toEqual([{ field: 'giftCard.amount', message: expect.any(String) as unknown as string }]);
    expect((await addVoucher(store, range.max + 0.01)).statusCode).toBe(422);
  });
});
