import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { call, type Who } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { dateIn } from '../gift-cards/helpers.js';
import { checkoutByCard, createForm, startEveryPayShop, type EveryPayShop } from './everypay-helpers.js';
import { fill, stockedBook } from './helpers.js';

// Shared by the refund tests: an app wired to the local EveryPay server both ways (callbacks come
// back unless held) and to a local SMTP server (the bought gift card's code comes in its mail), an
// operator's key, and orders paid by card at EveryPay through checkout, create-form and its page.

export const REFUND_PATH = '/api/v4/payments/refund';

export interface RefundShop extends EveryPayShop {
  smtp: SmtpCatcher;
  voucher: number;
  refund(code: string, payload: Record<string, unknown>, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export async function startRefundShop(): Promise<RefundShop> {
  const smtp = await startSmtpCatcher();
  const s = await startEveryPayShop({ SMTP_URL: smtp.url, PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000/1m' });
  const voucher = await createProduct(s.t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
  const key = await createApiKey(s.t.database.db, 'back-office', Date.now());
  return {
    ...s,
    smtp,
    voucher,
    refund: (code, payload, headers = {}) =>
      s.t.app.inject({
        method: 'POST',
        url: `/admin/orders/${code}/refund`,
        headers: { authorization: `Bearer ${key}`, ...headers },
        payload,
      }),
    async close() {
      await s.close();
      await smtp.close();
    },
  };
}

let nextIp = 10;
const guest = (): Who => ({ ip: `10.0.9.${nextIp++}` });

/** Checks out `who`'s basket by card and pays it on EveryPay's page; the callback makes the order paid. */
async function payByCard(s: RefundShop, who: Who) {
  const placed = await checkoutByCard(s, who);
  const { reference } = await createForm(s, { ...placed, productId: 0 });
  await s.everypay.shopper(reference, 'pay');
  await s.everypay.callbacksIdle();
  const paid = await s.t.database.db
    .selectFrom('customer_order')
    .select('status')
    .where('id', '=', placed.orderId)
    .executeTakeFirstOrThrow();
  expect(paid.status).toBe('PENDING_PROCESSING');
  return { orderId: placed.orderId, code: placed.code, reference, totalCents: placed.totalCents };
}

/** Checks out `who`'s basket paid in full by the gift card `code`: nothing is left to pay online, so opening the payment link marks it paid. */
async function payByGiftCard(s: RefundShop, who: Who, code: string) {
  const added = await call(s.t, 'POST', '/basket/add-gift-card', who, { code });
  expect(added.statusCode, added.body).toBe(200);
  const placed = await checkoutByCard(s, who);
  expect((await s.t.app.inject({ method: 'GET', url: placed.path })).statusCode).toBe(200);
  return {
    orderId: placed.orderId,
    code: placed.code,
    reference: '',
    totalCents: placed.totalCents,
    paidBy: added.json() as { giftCardAmount: number },
  };
}

/** A book of `price` euros bought by a guest and paid by card at EveryPay. */
export async function paidBook(s: RefundShop, price = 20) {
  const book = await stockedBook(s.t, s.shop, 5, price);
  return payByCard(s, await fill(s.t, guest(), [[book, 1]]));
}

/**
 * A virtual gift card of `euros` bought by a guest with a book of 20.00 (and the 5.90 courier) and
 * paid by card at EveryPay (or in full by the gift card `payingCard`); the worker issues it and, on its delivery date, mails its code to the
 * recipient: `cardCode`.
 */
export async function paidVirtualCard(s: RefundShop, euros: number, payingCard?: string) {
  const book = await stockedBook(s.t, s.shop, 5, 20);
  const who = await fill(s.t, guest(), [[book, 1]]);
  const recipientEmail = `gift-${nextIp}@example.ee`;
  const giftCard = { amount: euros, recipientName: 'Jaan Tamm', recipientEmail, message: 'Palju õnne!', deliveryDate: dateIn(1) };
  const added = await call(s.t, 'POST', '/basket/add-product', who, { productId: s.voucher, quantity: 1, giftCard });
  expect(added.statusCode, added.body).toBe(200);
  const basket = { ...who, token: added.headers['basket-token'] as string };
  const order = payingCard === undefined ? await payByCard(s, basket) : await payByGiftCard(s, basket, payingCard);
  await s.t.drainJobs();
  // The delivery date comes.
  await s.t.database.db
    .updateTable('job')
    .set({ run_at: Date.now() - 1 })
    .where('type', '=', 'gift-card.mail')
    .execute();
  await s.t.drainJobs();
  const mail = await s.smtp.waitFor((m) => JSON.stringify(m.to).includes(recipientEmail));
  const cardCode = /([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z])/.exec(mail.text ?? '')![1]!;
  return { ...order, cardCode };
}

/** Spends `euros` of a gift card: a guest's order of a book the card pays in full (with the 5.90 courier). */
export async function spendCard(s: RefundShop, cardCode: string, euros: number) {
  const book = await stockedBook(s.t, s.shop, 5, Math.round((euros - 5.9) * 100) / 100);
  const who = await fill(s.t, guest(), [[book, 1]]);
  expect((await call(s.t, 'PUT', '/basket/delivery', who, { deliveryMethodId: s.shop.methods.COURIER })).statusCode).toBe(200);
  const paid = await payByGiftCard(s, who, cardCode);
  expect(paid.paidBy).toMatchObject({ giftCardAmount: euros });
}

/** The refunds EveryPay was asked for of one payment: their sums in cents. */
export const refundsAsked = (s: RefundShop, reference: string) =>
  s.everypay.requests
    .filter((request) => request.path === REFUND_PATH && (request.body as { payment_reference: string }).payment_reference === reference)
    .map((request) => Math.round((request.body as { amount: number }).amount * 100));

/** Euros as the Estonian mail writes them: "5,00 €" (a space, perhaps a no-break one, before the sign). */
export const mailEuros = (cents: number) => new RegExp(`${(cents / 100).toFixed(2).replace('.', ',')}\\s?€`);

/** The mails to the buyer of an order whose subject starts so (and names the order), in the order sent. */
export const orderMails = (s: RefundShop, code: string, subjectStart: string) =>
  s.smtp.mails.filter((mail) => mail.subject?.startsWith(subjectStart) === true && mail.subject.includes(code));
