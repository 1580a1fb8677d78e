import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { createCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { sweepDepsOf } from './everypay-helpers.js';
import { setUpShop, stockedBook, type Shop } from './helpers.js';
import { age } from './processing-helpers.js';
import { openCreateForm, orderStatus, placeOrder, productStock, statusHistory } from './purchase-helpers.js';

// An order with nothing to pay online (cash on delivery, an invoice, paid in full by gift cards) is
// placed by POST /checkout; its create-form link only shows the finished page and moves it on. A
// front-end that never opened the link (the tab closed, the app killed on the answer) left it NEW, and
// the sweep then cancelled it "unpaid after 30 minutes": the shopper's placed order, their basket
// emptied, given up with nothing to wait for. The sweep now moves it on as the link would have.

let t: TestApp;
let smtp: SmtpCatcher;
let shop: Shop;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url } });
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});
beforeEach(() => smtp.clear());

const db = () => t.database.db;
const sweep = () => sweepOrders(sweepDepsOf(t), Date.now());

describe('the sweep and an order with nothing to pay online whose link was never opened', () => {
  it('cash on delivery and an invoice: processed, not cancelled; the stock is sold, the buyer mailed', async () => {
    const book = await stockedBook(t, shop, 5);
    const business = await createCustomer(db(), { kind: 'BUSINESS' });
    const cash = await placeOrder(t, shop, {}, [[book, 1]], { startPayment: false });
    const invoice = await placeOrder(t, shop, { bearer: business.token }, [[book, 2]], {
      startPayment: false,
      form: { paymentMethodId: 'INVOICE' },
    });
    for (const order of [cash, invoice]) await age(db(), order.orderId, 31);

    expect(await sweep()).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 0, movedOn: 2 }) });
    for (const order of [cash, invoice]) {
      expect(await orderStatus(db(), order.orderId)).toBe('PENDING_PROCESSING');
      expect((await statusHistory(db(), order.orderId)).at(-1)).toMatchObject({
        from_status: 'NEW',
        to_status: 'PENDING_PROCESSING',
        cause: expect.stringMatching(/^nothing to pay online \((CASH_ON_DELIVERY|INVOICE)\); its payment link not opened in 30 minutes$/),
      });
    }
    await t.drainJobs();
    for (const order of [cash, invoice]) expect(await orderStatus(db(), order.orderId)).not.toMatch(/NEW|CANCELLED|PENDING_PROCESSING/);
    expect(await productStock(db(), book)).toEqual({ webStock: 2, reserved: 0 });
    for (const order of [cash, invoice]) expect(smtp.mails.some((mail) => mail.subject?.includes(order.code))).toBe(true);

    // The link opened late shows the finished page and changes nothing.
    const form = await openCreateForm(t, cash.path);
    expect(form.url).not.toContain('everypay');
    expect(await sweep()).toEqual({ ran: true, result: expect.objectContaining({ movedOn: 0, cancelled: 0 }) });
  });

  it('one not yet past the limit waits for its link', async () => {
    const book = await stockedBook(t, shop, 1);
    const order = await placeOrder(t, shop, {}, [[book, 1]], { startPayment: false });
    await age(db(), order.orderId, 29);
    expect(await sweep()).toEqual({ ran: true, result: expect.objectContaining({ movedOn: 0, cancelled: 0 }) });
    expect(await orderStatus(db(), order.orderId)).toBe('NEW');
  });
});
