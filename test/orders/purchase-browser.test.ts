import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInBrowser, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { createListeningApp, setUpShop, stockedBook, type Shop } from './helpers.js';
import { openCreateForm, orderRow, orderStatus, placeOrder, productStock, setFrontendUrl, statusHistory } from './purchase-helpers.js';

// A person buys a book end to end: the front-end's part (basket, checkout, create-form) over HTTP
// as the front-end makes it, then headless Chromium on the test gateway's page, which sends the
// browser back through /bank/return-internal to the front-end's page (a local receiver), and the
// worker processes the order: stock sold, a signed hand-off to the back office (another local
// receiver), the confirmation mail at a real local SMTP server.

const SECRET = 'back-office-shared-secret-0123456789abcdef';

describeInBrowser('a person buys a book end to end in a browser', () => {
  let t: TestApp;
  let origin: string;
  let shop: Shop;
  let frontend: HttpReceiver;
  let office: HttpReceiver;
  let smtp: SmtpCatcher;
  let browser: TestBrowser;

  beforeAll(async () => {
    [frontend, office, smtp, browser] = await Promise.all([startHttpReceiver(), startHttpReceiver(), startSmtpCatcher(), launchBrowser()]);
    ({ t, origin } = await createListeningApp({
      env: { SMTP_URL: smtp.url, BACKOFFICE_ORDERS_URL: `${office.url}/orders`, BACKOFFICE_ORDERS_SECRET: SECRET },
    }));
    await setFrontendUrl(t.database.db, 'WEB', frontend.url);
    shop = await setUpShop(t);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await Promise.all([frontend?.close(), office?.close(), smtp?.close()]);
  });

  const db = () => t.database.db;

  /** A guest's order paid through the test gateway, its create-form answer opened in a new page. */
  async function toPaymentPage(book: number, quantity: number): Promise<{ orderId: number; code: string; checksum: string; page: Page }> {
    const order = await placeOrder(t, shop, {}, [[book, quantity]], { form: { paymentMethodId: 'TEST_GATEWAY' }, startPayment: false });
    const form = await openCreateForm(t, order.path);
    // The front-end auto-submits this form; the test gateway's is a plain GET of its page.
    expect(form).toMatchObject({ method: 'GET', fields: {} });
    expect(form.url.startsWith(`${origin}/payment/test/pay/`)).toBe(true);
    expect(await orderStatus(db(), order.orderId)).toBe('PENDING_PAYMENT');
    const page = await browser.newPage();
    const response = await page.goto(form.url);
    expect(response?.status()).toBe(200);
    return { ...order, page };
  }

  /** Clicks a button on the gateway's page and waits until the browser is on the front-end's `path`. */
  async function clickThrough(page: Page, button: string, path: string): Promise<URL> {
    await Promise.all([
      page.waitForURL(`${frontend.url}${path}?**`, { timeout: 15_000 }),
      page.getByRole('button', { name: button, exact: true }).click(),
    ]);
    return new URL(page.url());
  }

  it('Pay: the browser ends on the checkout-finished page; the worker sells the stock, hands the order off signed and mails the buyer', async () => {
    const book = await stockedBook(t, shop, 4, 15);
    const { orderId, code, checksum, page } = await toPaymentPage(book, 2);
    expect(await page.locator('#amount').textContent()).toBe('35.90 EUR');

    const landed = await clickThrough(page, 'Pay', '/checkout/finished');
    expect(Object.fromEntries(landed.searchParams)).toEqual({ orderId: String(orderId), checksum, language: 'et' });
    // The front-end's page was really asked for, by the browser.
    const visit = await frontend.waitFor((request) => request.url.startsWith('/checkout/finished?'));
    expect(visit.method).toBe('GET');
    await page.close();
    // The return verified the payment with the gateway; its callback, racing the return, moves nothing more.
    await expect.poll(() => orderStatus(db(), orderId), { timeout: 10_000 }).toBe('PENDING_PROCESSING');
    expect(await productStock(db(), book)).toEqual({ webStock: 4, reserved: 2 });

    await t.drainJobs();

    expect(await orderStatus(db(), orderId)).toBe('COMPLETED');
    expect((await statusHistory(db(), orderId)).map((change) => change.to_status)).toEqual([
      'NEW',
      'PENDING_PAYMENT',
      'PENDING_PROCESSING',
      'PROCESSING',
      'COMPLETED',
    ]);
    expect(await productStock(db(), book)).toEqual({ webStock: 2, reserved: 0 });
    const handoffs = office.requests.filter((request) => (request.body as { code?: string }).code === code);
    expect(handoffs).toHaveLength(1);
    const raw = JSON.stringify(handoffs[0]!.body);
    expect(handoffs[0]!.headers['x-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`);
    expect(handoffs[0]!.body).toMatchObject({
      code,
      payment: { method: 'TEST_GATEWAY' },
      amounts: { total: 35.9 },
      lines: [{ quantity: 2, unitPrice: 15 }],
    });
    const mail = await smtp.waitFor((message) => message.subject?.includes(code) === true);
    expect(JSON.stringify(mail.to)).toContain('mari@example.ee');
    expect(mail.text).toContain('35,90 €');
    expect(smtp.mails.filter((message) => message.subject?.includes(code))).toHaveLength(1);
  });

  it('Decline: the browser ends on the checkout-failed page, the order is PAYMENT_FAILED and its stock released', async () => {
    const book = await stockedBook(t, shop, 1, 15);
    const { orderId, code, checksum, page } = await toPaymentPage(book, 1);
    expect(await productStock(db(), book)).toEqual({ webStock: 1, reserved: 1 });

    const landed = await clickThrough(page, 'Decline', '/checkout/failed');
    expect(Object.fromEntries(landed.searchParams)).toEqual({ orderId: String(orderId), checksum, language: 'et' });
    await page.close();
    await expect.poll(() => orderStatus(db(), orderId), { timeout: 10_000 }).toBe('PAYMENT_FAILED');
    expect(await productStock(db(), book)).toEqual({ webStock: 1, reserved: 0 });

    // Nothing for the worker to do: no sale, no hand-off, no mail.
    await t.drainJobs();
    expect((await orderRow(db(), orderId)).status).toBe('PAYMENT_FAILED');
    expect(await productStock(db(), book)).toEqual({ webStock: 1, reserved: 0 });
    expect(office.requests.filter((request) => (request.body as { code?: string }).code === code)).toEqual([]);
    expect(smtp.mails.filter((message) => message.subject?.includes(code))).toEqual([]);
  });
});
