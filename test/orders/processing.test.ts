import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/infra/jobs/queue.js';
import { createWorker } from '../../src/infra/jobs/worker.js';
import { buildJobHandlers } from '../../src/worker.js';
import { createCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { setUpShop, stockedBook, type Shop } from './helpers.js';
import { ebook, exportRows, orderStatus, placeOrder, productCode, productStock, statusHistory } from './purchase-helpers.js';

// Processing a paid order: once, whatever runs it how often; stock sold, entitlements, mails to
// buyer and receiver through a real SMTP server, the ONLINE row of the data export's sales history.
// The orders are made through checkout: cash on delivery (or an invoice for a business), whose
// create-form link makes them PENDING_PROCESSING and queues their processing.

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
const emails = (billing: string, shipping = billing) => ({ billingEmail: billing, shippingEmail: shipping });
const recipientsOf = (code: string) =>
  smtp.mails
    .filter((mail) => mail.subject?.includes(code))
    .flatMap((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((v) => v.address)));

describe('order.process', () => {
  it('sells the held stock, writes the export row, queues the mails and the hand-off, once although the job runs twice', async () => {
    const book = await stockedBook(t, shop, 5);
    const customer = await createCustomer(db());
    const order = await placeOrder(t, shop, { bearer: customer.token, session: 'session-once' }, [[book, 2]], {
      form: { ...emails('buyer.once@example.ee'), shippingCity: 'Tartu' },
    });
    await enqueueJob(db(), { type: 'order.process', payload: { orderId: order.orderId } }, { maxAttempts: 3 });
    expect(await productStock(db(), book)).toEqual({ webStock: 5, reserved: 2 });

    await t.drainJobs();

    expect(await productStock(db(), book)).toEqual({ webStock: 3, reserved: 0 });
    // No back office configured: the hand-off parks it for the sweep.
    expect(await orderStatus(db(), order.orderId)).toBe('PENDING_NAV_PROCESSING');
    const history = await statusHistory(db(), order.orderId);
    expect(history.map((change) => change.to_status)).toEqual(['NEW', 'PENDING_PROCESSING', 'PROCESSING', 'PENDING_NAV_PROCESSING']);
    expect(history[3]!.cause).toMatch(/no back office configured/);
    const results = await db().selectFrom('job').select(['type', 'result']).where('type', '=', 'order.process').execute();
    expect(results.map((job) => job.result).sort()).toContain('skipped');
    expect(recipientsOf(order.code)).toEqual(['buyer.once@example.ee']);

    const rows = await exportRows(t, order.code);
    expect(rows).toEqual([
      expect.objectContaining({
        order: order.code,
        client: customer.clientCode,
        clientType: 'PYSIKLIENT',
        sourceType: 'ONLINE',
        city: 'Tartu',
        session: 'session-once',
        deliveryMethod: 'COURIER',
        shop: null,
        createdAt: expect.any(String),
        products: [await productCode(db(), book)],
      }),
    ]);
    // The back office's own time comes later (POST /admin/orders/{code}/status).
    expect(rows[0]).not.toHaveProperty('createdNav');
  });

  it('two workers racing for the same order process it once: one mail each, one sale of the stock, one export row', async () => {
    const book = await stockedBook(t, shop, 4);
    const order = await placeOrder(t, shop, {}, [[book, 1]], { form: emails('race.buyer@example.ee', 'race.receiver@example.ee') });
    for (let i = 0; i < 3; i += 1)
      await enqueueJob(db(), { type: 'order.process', payload: { orderId: order.orderId } }, { maxAttempts: 3 });
    const other = createWorker({
      database: t.database,
      handlers: buildJobHandlers({ database: t.database, config: t.config, mailer: t.jobs.mailer }),
      log: t.app.log,
      pollIntervalMs: 10,
      clock: t.clock,
    });
    await Promise.all([t.drainJobs(), other.drain(), t.drainJobs(), other.drain()]);
    await t.drainJobs();

    expect(await productStock(db(), book)).toEqual({ webStock: 3, reserved: 0 });
    const processed = await db()
      .selectFrom('order_status_change')
      .select('id')
      .where('order_id', '=', order.orderId)
      .where('to_status', '=', 'PROCESSING')
      .execute();
    expect(processed).toHaveLength(1);
    expect(recipientsOf(order.code).sort()).toEqual(['race.buyer@example.ee', 'race.receiver@example.ee']);
    expect(await exportRows(t, order.code)).toHaveLength(1);
    const sales = await db().selectFrom('sales_history').select('id').where('order_code', '=', order.code).execute();
    expect(sales).toHaveLength(1);
  });

  it('mails buyer and receiver in the order language, listing lines, totals, delivery and the code', async () => {
    const book = await stockedBook(t, shop, 3, 10);
    const title = (await db().selectFrom('product').select('name').where('id', '=', book).executeTakeFirstOrThrow()).name;
    const order = await placeOrder(t, shop, {}, [[book, 2]], {
      form: { ...emails('mail.buyer@example.ee', 'Mail.Receiver@example.ee'), shippingName: 'Jaan Tamm', shippingCity: 'Tartu' },
      headers: { 'x-app-language': 'en' },
    });
    await t.drainJobs();
    const buyer = await smtp.waitFor((mail) => mail.text?.includes(order.code) === true && JSON.stringify(mail.to).includes('mail.buyer'));
    expect(buyer.subject).toContain(`Your order ${order.code}`);
    expect(buyer.text).toContain(`${title} × 2: €20.00`);
    expect(buyer.text).toContain('Total: €25.90');
    expect(buyer.text).toContain('Courier');
    expect(buyer.text).toContain('Jaan Tamm, Pikk 1, 10123 Tartu, EE');
    const receiver = await smtp.waitFor((mail) => JSON.stringify(mail.to).toLowerCase().includes('mail.receiver'));
    expect(receiver.text).toContain('Mari Maasikas placed order');
    expect(receiver.html).toContain(order.code);

    const same = await placeOrder(t, shop, {}, [[book, 1]], {
      form: emails('same@example.ee', 'SAME@example.ee'),
      headers: { 'x-app-language': 'ru' },
    });
    await t.drainJobs();
    await smtp.waitFor((mail) => mail.subject?.includes(same.code) === true);
    expect(recipientsOf(same.code)).toEqual(['same@example.ee']);
    expect(smtp.mails.find((mail) => mail.subject?.includes(same.code))!.subject).toContain('Ваш заказ');
  });

  it('grants entitlements for the digital lines to the client account, once', async () => {
    const digital = await ebook(t);
    const paper = await stockedBook(t, shop, 3);
    // Paid by invoice: an e-book is never paid at the parcel's hand-over (digital-only-payment.test.ts).
    const customer = await createCustomer(db(), { kind: 'BUSINESS' });
    const order = await placeOrder(
      t,
      shop,
      { bearer: customer.token },
      [
        [digital, 1],
        [paper, 1],
      ],
      { form: { paymentMethodId: 'INVOICE' } },
    );
    await enqueueJob(db(), { type: 'order.process', payload: { orderId: order.orderId } }, { maxAttempts: 3 });
    await t.drainJobs();
    const entitlements = await db()
      .selectFrom('order_entitlement')
      .select(['product_id', 'client_account_id'])
      .where('order_id', '=', order.orderId)
      .execute();
    expect(entitlements.map((row) => ({ product: Number(row.product_id), client: Number(row.client_account_id) }))).toEqual([
      { product: digital, client: customer.clientAccountId },
    ]);
  });

  it('writes a guest order to the export with the guest client code and a business order as ETTEVOTE', async () => {
    const book = await stockedBook(t, shop, 3);
    const guest = await placeOrder(t, shop, {}, [[book, 1]]);
    const business = await createCustomer(db(), { kind: 'BUSINESS' });
    const company = await placeOrder(t, shop, { bearer: business.token }, [[book, 1]], { form: { paymentMethodId: 'INVOICE' } });
    await t.drainJobs();
    expect(await exportRows(t, guest.code)).toEqual([expect.objectContaining({ client: 'GUEST', clientType: 'PYSIKLIENT' })]);
    expect(await exportRows(t, company.code)).toEqual([expect.objectContaining({ client: business.clientCode, clientType: 'ETTEVOTE' })]);
  });

  it('skips an order that is not waiting for processing', async () => {
    const book = await stockedBook(t, shop, 3);
    // Checked out, its payment never started: NEW, holding its copy.
    const order = await placeOrder(t, shop, {}, [[book, 1]], { startPayment: false });
    await enqueueJob(db(), { type: 'order.process', payload: { orderId: order.orderId } }, { maxAttempts: 3 });
    await t.drainJobs();
    expect(await orderStatus(db(), order.orderId)).toBe('NEW');
    expect(await productStock(db(), book)).toEqual({ webStock: 3, reserved: 1 });
    expect(await db().selectFrom('sales_history').select('id').where('order_code', '=', order.code).execute()).toEqual([]);
  });
});
