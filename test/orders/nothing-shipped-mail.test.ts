import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { ebook, orderRow, payOnTestGateway, placeOrder } from './purchase-helpers.js';

// The buyer's confirmation of an order of e-books only (nothing shipped) said it was being prepared, and in
// Russian "готовим к отправке" (being prepared for shipment): a parcel that never comes. The Russian text said
// so of every order, a shop pickup too, where English and Estonian say only "we are preparing it". An order
// with nothing to ship now tells its buyer so in each language, and the Russian says what the others say.

let t: TestApp;
let shop: Shop;
let smtp: SmtpCatcher;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  ({ t } = await createListeningApp({ env: { SMTP_URL: smtp.url } }));
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const buyerMail = (code: string) =>
  smtp.waitFor((mail) => mail.subject?.includes(code) === true && JSON.stringify(mail.to).includes('mari@example.ee'));

/** A guest's paid order of one e-book for themselves, in `language`: its code. */
async function ebookOrder(language: string): Promise<string> {
  const who = await fill(t, {}, [[await ebook(t, 9), 1]]);
  const placed = await checkout(t, who, checkoutForm(shop, { deliveryMethodId: undefined }), { 'x-app-language': language });
  expect(placed.statusCode, placed.body).toBe(200);
  const link = orderLink(placed.json().location);
  await payOnTestGateway(t, link.path);
  await t.drainJobs();
  const row = await orderRow(t.database.db, link.orderId);
  expect(row).toMatchObject({ delivery_kind: 'NONE', language });
  return row.code!;
}

const SAYS = {
  en: { preparing: 'preparing it', nothingShipped: 'Its items are digital: nothing is sent by post.' },
  et: { preparing: 'valmistame seda ette', nothingShipped: 'Selle tooted on digitaalsed: postiga ei saadeta midagi.' },
  ru: { preparing: 'готовим', nothingShipped: 'Товары в нём цифровые: почтой ничего не отправляется.' },
} as const;

describe('the buyer’s confirmation of an order with nothing to ship', () => {
  for (const language of ['en', 'et', 'ru'] as const) {
    it(`says nothing is shipped, not that it is being prepared (${language})`, async () => {
      const code = await ebookOrder(language);
      const mail = await buyerMail(code);
      expect(mail.text).not.toContain(SAYS[language].preparing);
      expect(mail.text).toContain(SAYS[language].nothingShipped);
      expect(mail.html).toContain(SAYS[language].nothingShipped);
    });
  }
});

describe('the Russian confirmation of an order collected in a shop', () => {
  it('does not say it is prepared for shipment, as the English and Estonian do not', async () => {
    const order = await placeOrder(t, shop, {}, [[await stockedBook(t, shop, 5, 12), 1]], {
      form: { deliveryMethodId: shop.methods.SHOP, paymentMethodId: 'TEST_GATEWAY' },
      headers: { 'x-app-language': 'ru' },
      startPayment: false,
    });
    await payOnTestGateway(t, order.path);
    await t.drainJobs();
    const mail = await buyerMail(order.code);
    expect(mail.text).toContain(`Спасибо за заказ ${order.code}.`);
    expect(mail.text).not.toContain('отправк');
  });
});
