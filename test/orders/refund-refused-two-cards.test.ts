import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { expectErrorBody } from '../helpers/http.js';
import { dateIn } from '../gift-cards/helpers.js';
import { checkoutByCard, createForm } from './everypay-helpers.js';
import { fill, stockedBook } from './helpers.js';
import { REFUND_PATH, refundsAsked, startRefundShop, type RefundShop } from './refund-helpers.js';

// A refund takes the value it gives back of the gift cards the order bought off those cards before
// EveryPay is asked; when EveryPay refuses the refund, each card gets back what was taken off it. An
// order may buy two cards, for two people: all of it went back to the first card, which then held
// more than it was bought for, and the second stayed empty.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

describe('a refused refund of an order that bought two gift cards', () => {
  it('gives each card back what was taken off it', async () => {
    const otherVoucher = await createProduct(db(), { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart 2', price: 10, vatRate: 0 });
    const book = await stockedBook(s.t, s.shop, 5, 20);
    let who = await fill(s.t, { ip: '10.0.6.1' }, [[book, 1]]);
    for (const [productId, recipientEmail] of [
      [s.voucher, 'jaan@example.ee'],
      [otherVoucher, 'juta@example.ee'],
    ] as const) {
      const giftCard = { amount: 10, recipientName: 'Saaja', recipientEmail, deliveryDate: dateIn(1) };
      const added = await call(s.t, 'POST', '/basket/add-product', who, { productId, quantity: 1, giftCard });
      expect(added.statusCode, added.body).toBe(200);
      who = { ...who, token: (added.headers['basket-token'] as string | undefined) ?? who.token };
    }
    const placed = await checkoutByCard(s, who);
    const { reference } = await createForm(s, { ...placed, productId: 0 });
    await s.everypay.shopper(reference, 'pay');
    await s.everypay.callbacksIdle();
    await s.t.drainJobs();
    const cards = () =>
      db()
        .selectFrom('gift_card')
        .select(['order_position', 'balance_cents'])
        .where('order_id', '=', placed.orderId)
        .orderBy('order_position')
        .execute()
        .then((rows) => rows.map((row) => Number(row.balance_cents)));
    expect(await cards()).toEqual([1000, 1000]);

    s.everypay.breakApi({ status: 422, body: '{"error":{"code":4999,"message":"Refunds are off"}}' }, 1, REFUND_PATH);
    expectErrorBody(await s.refund(placed.code, {}), 409, 'Conflict');
    expect(refundsAsked(s, reference)).toEqual([placed.totalCents]);
    expect(await cards()).toEqual([1000, 1000]);
  });
});
