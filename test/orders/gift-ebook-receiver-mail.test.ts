import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { ebook, orderRow, payOnTestGateway, placeOrder } from './purchase-helpers.js';

// An e-book bought for someone else: the checkout takes a receiver (the shipping contact) whose mail
// said the order was "to be delivered to you. We are preparing it.", though no e-book is delivered. The
// receiver's mail says the buyer gave them the e-books and audiobooks, to download on their own page
// (its key: test/downloads/gift-downloads.test.ts), and, for an order mixing books and e-books, that the
// rest is delivered; the buyer's mail says the receiver was sent the link.

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

const RECEIVER = { shippingName: 'Jaan Tamm', shippingEmail: 'jaan@example.ee' };

const mailTo = (code: string, address: string) =>
  smtp.waitFor((mail) => mail.subject?.includes(code) === true && JSON.stringify(mail.to).includes(address));

/** A guest's paid order of one e-book, for the receiver, in `language`: its code. */
async function ebookForSomeoneElse(language: string): Promise<string> {
  const who = await fill(t, {}, [[await ebook(t, 9), 1]]);
  const placed = await checkout(t, who, checkoutForm(shop, { deliveryMethodId: undefined, ...RECEIVER }), { 'x-app-language': language });
  expect(placed.statusCode, placed.body).toBe(200);
  const link = orderLink(placed.json().location);
  await payOnTestGateway(t, link.path);
  await t.drainJobs();
  const row = await orderRow(t.database.db, link.orderId);
  expect(row).toMatchObject({ delivery_kind: 'NONE', shipping_email: 'jaan@example.ee' });
  return row.code!;
}

const SAYS = {
  en: {
    notDelivered: 'to be delivered to you',
    buyerHas: 'Mari Maasikas gave you the e-books and audiobooks in it: download them on their page',
    buyerTold: 'We have told Jaan Tamm (jaan@example.ee) about this order and sent them a link',
  },
  et: {
    notDelivered: 'tuuakse teile',
    buyerHas: 'Mari Maasikas kinkis teile selles olevad e-raamatud ja audioraamatud',
    buyerTold: 'Andsime tellimusest teada ka saajale Jaan Tamm (jaan@example.ee) ja saatsime talle lingi',
  },
  ru: {
    notDelivered: 'с доставкой вам',
    buyerHas: 'Mari Maasikas дарит вам электронные и аудиокниги из него',
    buyerTold: 'Мы сообщили о заказе получателю Jaan Tamm (jaan@example.ee) и отправили ссылку',
  },
} as const;

describe('an order of e-books only, for someone else', () => {
  for (const language of ['en', 'et', 'ru'] as const) {
    it(`tells the receiver the e-books are theirs to download, not that they are delivered (${language})`, async () => {
      const code = await ebookForSomeoneElse(language);
      const receiver = await mailTo(code, 'jaan@example.ee');
      expect(receiver.text).not.toContain(SAYS[language].notDelivered);
      expect(receiver.text).toContain(SAYS[language].buyerHas);
      expect(receiver.html).toContain(SAYS[language].buyerHas);
      const buyer = await mailTo(code, 'mari@example.ee');
      expect(buyer.text).toContain(SAYS[language].buyerTold);
    });
  }
});

describe('an order mixing a book and an e-book, for someone else', () => {
  it('tells the receiver the book is delivered to them and the e-book is theirs to download', async () => {
    const lines: Array<[number, number]> = [
      [await stockedBook(t, shop, 5, 12), 1],
      [await ebook(t, 9), 1],
    ];
    // Paid now: an e-book is not sent before the parcel is paid (cash on delivery is refused).
    const order = await placeOrder(t, shop, {}, lines, {
      form: { ...RECEIVER, paymentMethodId: 'TEST_GATEWAY' },
      headers: { 'x-app-language': 'en' },
      startPayment: false,
    });
    await payOnTestGateway(t, order.path);
    await t.drainJobs();
    const receiver = await mailTo(order.code, 'jaan@example.ee');
    expect(receiver.text).toContain('to be delivered to you');
    expect(receiver.text).toContain(SAYS.en.buyerHas);
    expect((await mailTo(order.code, 'mari@example.ee')).text).toContain(SAYS.en.buyerTold);
  });

  it('an order of books only keeps its mails as they were: nothing about downloads', async () => {
    const order = await placeOrder(t, shop, {}, [[await stockedBook(t, shop, 5, 12), 1]], {
      form: RECEIVER,
      headers: { 'x-app-language': 'en' },
    });
    await t.drainJobs();
    const receiver = await mailTo(order.code, 'jaan@example.ee');
    expect(receiver.text).toContain('Mari Maasikas placed order');
    expect(receiver.text).toContain('to be delivered to you. We are preparing it.');
    expect(receiver.text).not.toContain('e-books');
    expect((await mailTo(order.code, 'mari@example.ee')).text).not.toContain('We have told');
  });
});
