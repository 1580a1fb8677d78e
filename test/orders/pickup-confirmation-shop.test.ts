import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { createListeningApp, setUpShop, stockedBook, type Shop } from './helpers.js';
import { payOnTestGateway, placeOrder } from './purchase-helpers.js';

// The confirmation of an order collected in a shop named the shop by its code ("Delivery to: Poodi,
// TLN1"), a code the shopper has never seen, where the pickup mails name it ("Viru Keskus"). It now
// names the shop as the pickup mails do, in the order's language.

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

describe('the confirmation of an order collected in a shop', () => {
  it('names the shop, not its code', async () => {
    const order = await placeOrder(t, shop, {}, [[await stockedBook(t, shop, 5, 12), 1]], {
      form: { deliveryMethodId: shop.methods.SHOP, paymentMethodId: 'TEST_GATEWAY' },
      headers: { 'x-app-language': 'en' },
      startPayment: false,
    });
    await payOnTestGateway(t, order.path);
    await t.drainJobs();
    const mail = await smtp.waitFor((sent) => sent.subject?.includes(order.code) === true);
    expect(mail.text).toContain('Delivery to: Poodi, Viru Keskus');
    expect(mail.text).not.toContain('TLN1');
  });
});
