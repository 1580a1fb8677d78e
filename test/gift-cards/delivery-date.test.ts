import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { call } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A virtual card's delivery date is a day in Tallinn, where the shop and its buyers are: from today
// there to a year ahead. Read in UTC, for two or three hours after midnight in Tallinn "today" was
// still yesterday: a card could be bought for delivery yesterday (mailed at once, the buyer told it
// goes out on a past day), and the day a year ahead was refused.

const clock = fixedClock(Date.parse('2026-12-05T00:30:00+02:00'));
let t: TestApp;
let voucher: number;
beforeAll(async () => {
  t = await createTestApp({ clock });
  voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
});
afterAll(async () => {
  await t?.close();
});

const addVoucher = (deliveryDate: string) =>
  call(
    t,
    'POST',
    '/basket/add-product',
    {},
    {
      productId: voucher,
      quantity: 1,
      giftCard: { amount: 30, recipientName: 'Jaan Tamm', recipientEmail: 'jaan@example.ee', deliveryDate },
    },
  );

describe('the delivery date of a virtual card, at 00:30 in Tallinn (22:30 UTC the day before)', () => {
  it('is from today in Tallinn to a year ahead of it', async () => {
    const yesterday = await addVoucher('2026-12-04');
    expect(yesterday.statusCode, yesterday.body).toBe(422);
    expect(yesterday.json()).toEqual([
      { field: 'giftCard.deliveryDate', message: expect.stringContaining('2026-12-05') as unknown as string },
    ]);
    expect((await addVoucher('2026-12-05')).statusCode).toBe(200);
    expect((await addVoucher('2027-12-05')).statusCode).toBe(200);
    expect((await addVoucher('2027-12-06')).statusCode).toBe(422);
  });
});
