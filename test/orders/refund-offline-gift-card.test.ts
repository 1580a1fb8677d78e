import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { createCustomer } from '../helpers/customers.js';
import { card, ledger } from '../gift-cards/helpers.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook } from './helpers.js';
import { mailEuros, orderMails, startRefundShop, type RefundShop } from './refund-helpers.js';

// A business client's order of 25.90 (a book of 20.00 and the 5.90 courier), 10.00 of it paid by a gift
// card and 15.90 by invoice (a bank transfer, outside any gateway). The operator's refund of everything
// gives the card its share back and cancels the order; the shop cannot return the invoice's part. It was
// taken for an order paid by gift cards alone: the buyer was told that what they paid had been returned,
// while only the card's 10.00 had.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

it("a refund of an invoice order partly paid by gift card gives the card its share and does not tell the buyer the invoice's part was returned", async () => {
  const customer = await createCustomer(db(), { kind: 'BUSINESS' });
  const book = await stockedBook(s.t, s.shop, 5, 20);
  const who = await fill(s.t, { bearer: customer.token }, [[book, 1]]);
  const giftCard = await card(s.t, 10);
  const added = await call(s.t, 'POST', '/basket/add-gift-card', who, { code: giftCard });
  expect(added.statusCode, added.body).toBe(200);
  const placed = await checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'INVOICE', billingEmail: 'firma@example.ee' }));
  expect(placed.statusCode, placed.body).toBe(200);
  const link = orderLink(placed.json().location);
  expect((await s.t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
  const order = await db()
    .selectFrom('customer_order')
    .select(['code', 'status', 'total_cents', 'gift_card_cents'])
    .where('id', '=', link.orderId)
    .executeTakeFirstOrThrow();
  expect(order).toMatchObject({ status: 'PENDING_PROCESSING' });
  expect([Number(order.total_cents), Number(order.gift_card_cents)]).toEqual([1590, 1000]);

  const refund = await s.refund(order.code!, {});
  expect(refund.statusCode, refund.body).toBe(200);
  expect(refund.json()).toMatchObject({ status: 'CANCELLED' });
  expect(await ledger(db(), giftCard)).toMatchObject({ balanceCents: 1000, heldCents: 0 });

  await s.t.drainJobs();
  const mail = await s.smtp.waitFor((m) => m.subject?.includes(order.code!) === true && m.subject.includes('on tühistatud'));
  expect(orderMails(s, order.code!, 'Teie tellimus')).toHaveLength(1);
  expect(mail.text).toMatch(mailEuros(1000));
  expect(mail.text).toContain('kinkekaartidel');
  // Not "what you paid has been returned": the invoice's 15.90 is named, as not returned by the shop's refund.
  expect(mail.text).not.toContain('selle eest makstu on tagastatud');
  expect(mail.text).toMatch(mailEuros(1590));
});
