import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { importLines } from '../basket/import-helpers.js';
import { card } from '../gift-cards/helpers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { orderRow } from './purchase-helpers.js';

// The order-confirmation mail lists what the order costs: the items, the code's discount, the
// delivery, and what gift cards paid, so that its lines add up to the total it asks for. Without
// the cards' line a shopper who paid 10 € by card read "Items 20,00 €, Delivery 5,90 €, Total
// 15,90 €" and could not tell where the 10 € went.

let t: TestApp;
let shop: Shop;
let smtp: SmtpCatcher;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url } });
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** Places `who`'s basket cash on delivery in `language`, lets the worker mail it, and answers the order's row and mail lines. */
async function mailedCashOrder(who: { token?: string }, language: 'et' | 'en' | 'ru' = 'et') {
  const placed = await t.app.inject({
    method: 'POST',
    url: '/checkout',
    headers: { 'basket-token': who.token!, 'x-app-language': language },
    payload: checkoutForm(shop, { paymentMethodId: 'CASH_ON_DELIVERY' }),
  });
  expect(placed.statusCode, placed.body).toBe(200);
  const { orderId, path } = orderLink(placed.json().location);
  expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
  await t.drainJobs();
  const order = await orderRow(t.database.db, orderId);
  const mail = await smtp.waitFor((message) => message.subject?.includes(order.code!) === true);
  return { order, lines: (mail.text ?? '').split('\n') };
}

const EXPECTED = {
  et: ['Tooted: 20,00 €', 'Tarne (Kuller): 5,90 €', 'Kinkekaardid: −10,00 €', 'Kokku: 15,90 €'],
  en: ['Items: €20.00', 'Delivery (Courier): €5.90', 'Gift cards: −€10.00', 'Total: €15.90'],
  ru: ['Товары: 20,00 €', 'Подарочные карты: −10,00 €', 'Итого: 15,90 €'],
};

describe('the confirmation mail of an order gift cards paid part of', () => {
  for (const language of ['et', 'en', 'ru'] as const) {
    it(`names what the cards paid, in ${language}`, async () => {
      const book = await stockedBook(t, shop, 5, 20);
      const who = await fill(t, {}, [[book, 1]]);
      const code = await card(t, 10);
      expect((await call(t, 'POST', '/basket/add-gift-card', who, { code })).statusCode).toBe(200);
      const { order, lines } = await mailedCashOrder(who, language);
      expect(Number(order.gift_card_cents)).toBe(1000);
      expect(Number(order.total_cents)).toBe(1590);
      // Items 20,00 + delivery 5,90 − cards 10,00 = the 15,90 asked for.
      expect(lines).toEqual(expect.arrayContaining(EXPECTED[language]));
    });
  }
});

describe('the confirmation mail of an order a code took something off', () => {
  // The items are listed at their price and the code's discount once, below them: a line listed
  // after the discount as well (18,00 € under "Items: 20,00 €, Discount: −2,00 €") took it off twice
  // for whoever added the lines up.
  it('lists each item before the discount, so the items add up to the sum the discount is taken from', async () => {
    expect((await importLines(t, 'discount-codes', [{ code: 'MAIL10', percent: 10 }])).statusCode).toBe(200);
    const book = await stockedBook(t, shop, 5, 20);
    const title = (await t.database.db.selectFrom('product').select('name').where('id', '=', book).executeTakeFirstOrThrow()).name;
    const who = await fill(t, {}, [[book, 1]]);
    expect((await call(t, 'POST', '/basket/add-discount', who, { code: 'MAIL10' })).json()).toMatchObject({ discountAmount: 2 });
    const { lines } = await mailedCashOrder(who);
    expect(lines).toEqual(
      expect.arrayContaining([
        `${title} × 1: 20,00 €`,
        'Tooted: 20,00 €',
        'Allahindlus: −2,00 €',
        'Tarne (Kuller): 5,90 €',
        'Kokku: 23,90 €',
      ]),
    );
  });
});
