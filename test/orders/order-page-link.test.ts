import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { setUpShop, stockedBook, type Shop } from './helpers.js';
import { placeOrder, setFrontendUrl } from './purchase-helpers.js';
import type { Who } from '../basket/helpers.js';

// A guest reads an order only with its checksum, and saw it only in the redirect after the bank: with
// that tab closed the order was gone for them, the confirmation mail naming just its code. The buyer's
// mail now links to the order's page on the front-end (ORDER_PAGE_PATH, with the order's id, checksum
// and language), and that link reads the order through the API. The receiver of an order sent to
// someone else gets no such link: it would read the buyer's whole order and put it in a basket.

const FRONTEND = 'https://shop.example';
const ORDER_PAGE_PATH = '/my-orders/view';

let t: TestApp;
let shop: Shop;
let smtp: SmtpCatcher;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url, ORDER_PAGE_PATH } });
  await setFrontendUrl(t.database.db, 'WEB', FRONTEND);
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** Places `who`'s order of a book (cash on delivery, so it is processed at once), lets the worker mail it; answers its code and id. */
async function mailedOrder(who: Who, language: string, form: Record<string, unknown> = {}) {
  const book = await stockedBook(t, shop, 5, 12);
  const order = await placeOrder(t, shop, who, [[book, 1]], { form, headers: { 'x-app-language': language } });
  await t.drainJobs();
  return order;
}

const mailTo = (code: string, address: string) =>
  smtp.waitFor((mail) => mail.subject?.includes(code) === true && JSON.stringify(mail.to).includes(address));

const PAGE_LINK = new RegExp(`${FRONTEND}${ORDER_PAGE_PATH}\\?[^\\s<"]+`, 'g');

/** The order page links in a mail's text. */
const linksIn = (mail: ParsedMail) => (mail.text ?? '').match(PAGE_LINK) ?? [];

/** Follows the mailed link as the front-end's order page does, a guest's: no bearer, only what the link carries. */
async function followAsGuest(link: string, code: string) {
  const params = new URL(link).searchParams;
  const orderId = Number(params.get('orderId'));
  const checksum = params.get('checksum')!;
  const summary = await t.app.inject({ method: 'POST', url: '/bank/payment-result', payload: { orderId, checksum } });
  expect(summary.statusCode, summary.body).toBe(200);
  expect(summary.json().order.code).toBe(code);
  const read = await t.app.inject({ method: 'GET', url: `/order/${code}?checksum=${checksum}` });
  expect(read.statusCode, read.body).toBe(200);
  expect(read.json().code).toBe(code);
}

const SAYS = {
  et: 'Oma tellimust ja selle käiku näete siin: ',
  en: 'See your order and how it is getting on: ',
  ru: 'Ваш заказ и его состояние: ',
};

describe("the buyer's order mail links to the order's page", () => {
  for (const language of ['et', 'en', 'ru'] as const) {
    it(`a guest's mail, in ${language}: the link names the order, its checksum and language, and reads the order`, async () => {
      const order = await mailedOrder({}, language);
      const mail = await mailTo(order.code, 'mari@example.ee');
      const link = `${FRONTEND}${ORDER_PAGE_PATH}?orderId=${order.orderId}&checksum=${order.checksum}&language=${language}`;
      expect(mail.text).toContain(`${SAYS[language]}${link}`);
      expect(linksIn(mail)).toEqual([link]);
      // The HTML part links it too.
      expect(mail.html).toContain(`<a href="${link.replace(/&/g, '&amp;')}">`);
      await followAsGuest(link, order.code);
    });
  }

  it("a logged-in client's mail carries the link too, and it reads the order without logging in", async () => {
    const client = await createCustomer(t.database.db);
    const order = await mailedOrder({ bearer: client.token }, 'en');
    const links = linksIn(await mailTo(order.code, 'mari@example.ee'));
    expect(links).toHaveLength(1);
    await followAsGuest(links[0]!, order.code);
  });

  it("a buyer's address that does not exist keeps the confirmation as a dead job at once; a receiver's ends refused", async () => {
    smtp.refuseRecipient('no-such-buyer@example.ee', '550 5.1.1 No such user');
    smtp.refuseRecipient('no-such-receiver@example.ee', '550 5.1.1 No such user');
    const order = await mailedOrder({}, 'et', {
      billingEmail: 'no-such-buyer@example.ee',
      shippingName: 'Jaan Tamm',
      shippingEmail: 'no-such-receiver@example.ee',
    });
    const jobs = await t.database.db
      .selectFrom('job')
      .select(['payload', 'status', 'attempts', 'result', 'last_error'])
      .where('type', '=', 'order.mail')
      .where('last_error', 'like', '%5.1.1%')
      .execute();
    const of = (recipient: string) => jobs.find((job) => job.payload.includes(`"${recipient}"`));
    expect(jobs).toHaveLength(2);
    expect(of('buyer')).toMatchObject({ status: 'dead', attempts: 1, result: null });
    expect(of('buyer')!.last_error).toContain(`order ${order.code}'s confirmation reached no one`);
    expect(of('receiver')).toMatchObject({ status: 'done', attempts: 1, result: 'refused: no such mailbox' });
  });

  it("an order sent to someone else: the buyer's mail has the link, the receiver's has none and no checksum", async () => {
    const order = await mailedOrder({}, 'et', { shippingName: 'Jaan Tamm', shippingEmail: 'jaan@example.ee' });
    const buyers = await mailTo(order.code, 'mari@example.ee');
    expect(linksIn(buyers)).toHaveLength(1);
    const receivers = await mailTo(order.code, 'jaan@example.ee');
    expect(receivers.text).toContain('Jaan Tamm');
    for (const part of [receivers.text ?? '', String(receivers.html)]) {
      expect(part).not.toContain(ORDER_PAGE_PATH);
      expect(part).not.toContain(order.checksum);
    }
  });
});
