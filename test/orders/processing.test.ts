import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/infra/jobs/queue.js';
import { createWorker } from '../../src/infra/jobs/worker.js';
import { buildJobHandlers } from '../../src/worker.js';
import { exportUser } from '../data-export/fixtures.js';
import { createCustomer } from '../helpers/customers.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { orderStatus, productStock, statusHistory, stockedBook } from './processing-helpers.js';

// Processing a paid order: once, whatever runs it how often; stock sold, entitlements, mails to
// buyer and receiver through a real SMTP server, the ONLINE row of the data export's sales history.

let t: TestApp;
let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});
beforeEach(() => smtp.clear());

const recipientsOf = (code: string) =>
  smtp.mails
    .filter((mail) => mail.subject?.includes(code))
    .flatMap((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((v) => v.address)));

async function exportRow(code: string) {
  const user = await exportUser(t.database.db);
  const response = await t.app.inject({ url: `${t.config.dataExportPath}/sales-history`, headers: { authorization: user.authorization } });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Array<Record<string, unknown>>).filter((row) => row.order === code);
}

describe('order.process', () => {
  it('sells the held stock, writes the export row, queues the mails and the hand-off, once although the job runs twice', async () => {
    const book = await stockedBook(t.database.db, 5);
    const customer = await createCustomer(t.database.db);
    const order = await insertOrder(t.database.db, {
      status: 'PENDING_PROCESSING',
      clientAccountId: customer.clientAccountId,
      lines: [{ ...book, quantity: 2 }],
      billingEmail: 'buyer.once@example.ee',
    });
    await enqueueJob(t.database.db, { type: 'order.process', payload: { orderId: order.id } }, { maxAttempts: 3 });
    expect(await productStock(t.database.db, book.productId)).toEqual({ webStock: 5, reserved: 2 });

    await t.drainJobs();

    expect(await productStock(t.database.db, book.productId)).toEqual({ webStock: 3, reserved: 0 });
    // No back office configured: the hand-off parks it for the sweep.
    expect(await orderStatus(t.database.db, order.id)).toBe('PENDING_NAV_PROCESSING');
    const history = await statusHistory(t.database.db, order.id);
    expect(history.map((change) => change.to_status)).toEqual(['PENDING_PROCESSING', 'PROCESSING', 'PENDING_NAV_PROCESSING']);
    expect(history[2]!.cause).toMatch(/no back office configured/);
    const results = await t.database.db.selectFrom('job').select(['type', 'result']).where('type', '=', 'order.process').execute();
    expect(results.map((job) => job.result).sort()).toContain('skipped');
    expect(recipientsOf(order.code)).toEqual(['buyer.once@example.ee']);

    const rows = await exportRow(order.code);
    expect(rows).toEqual([
      expect.objectContaining({
        order: order.code,
        client: customer.clientCode,
        clientType: 'PYSIKLIENT',
        sourceType: 'ONLINE',
        city: 'Tartu',
        session: expect.stringMatching(/^session-/),
        deliveryMethod: 'PARCEL_MACHINE',
        shop: null,
        createdAt: expect.any(String),
        products: [book.productCode],
      }),
    ]);
    // The back office's own time comes later (POST /admin/orders/{code}/status).
    expect(rows[0]).not.toHaveProperty('createdNav');
  });

  it('two workers racing for the same order process it once: one mail each, one sale of the stock, one export row', async () => {
    const book = await stockedBook(t.database.db, 4);
    const order = await insertOrder(t.database.db, {
      status: 'PENDING_PROCESSING',
      lines: [{ ...book, quantity: 1 }],
      billingEmail: 'race.buyer@example.ee',
      shippingEmail: 'race.receiver@example.ee',
    });
    for (let i = 0; i < 3; i += 1)
      await enqueueJob(t.database.db, { type: 'order.process', payload: { orderId: order.id } }, { maxAttempts: 3 });
    const other = createWorker({
      database: t.database,
      handlers: buildJobHandlers({ database: t.database, config: t.config, mailer: t.jobs.mailer }),
      log: t.app.log,
      pollIntervalMs: 10,
    });
    await Promise.all([t.drainJobs(), other.drain(), t.drainJobs(), other.drain()]);
    await t.drainJobs();

    expect(await productStock(t.database.db, book.productId)).toEqual({ webStock: 3, reserved: 0 });
    const processed = await t.database.db
      .selectFrom('order_status_change')
      .select('id')
      .where('order_id', '=', order.id)
      .where('to_status', '=', 'PROCESSING')
      .execute();
    expect(processed).toHaveLength(1);
    expect(recipientsOf(order.code).sort()).toEqual(['race.buyer@example.ee', 'race.receiver@example.ee']);
    expect(await exportRow(order.code)).toHaveLength(1);
    const sales = await t.database.db.selectFrom('sales_history').select('id').where('order_code', '=', order.code).execute();
    expect(sales).toHaveLength(1);
  });

  it('mails buyer and receiver in the order language, listing lines, totals, delivery and the code', async () => {
    const book = await stockedBook(t.database.db, 2);
    const order = await insertOrder(t.database.db, {
      status: 'PENDING_PROCESSING',
      language: 'en',
      lines: [{ ...book, quantity: 2, unitPriceCents: 1000 }],
      billingEmail: 'mail.buyer@example.ee',
      shippingEmail: 'Mail.Receiver@example.ee',
    });
    await t.drainJobs();
    const buyer = await smtp.waitFor((mail) => mail.text?.includes(order.code) === true && JSON.stringify(mail.to).includes('mail.buyer'));
    expect(buyer.subject).toContain(`Your order ${order.code}`);
    expect(buyer.text).toContain(`Raamat ${book.productCode} × 2: €20.00`);
    expect(buyer.text).toContain('Total: €22.99');
    expect(buyer.text).toContain('Pakiautomaat');
    expect(buyer.text).toContain('Tartu Lõunakeskus');
    const receiver = await smtp.waitFor((mail) => JSON.stringify(mail.to).toLowerCase().includes('mail.receiver'));
    expect(receiver.text).toContain('Mari Maasikas placed order');
    expect(receiver.html).toContain(order.code);

    const same = await insertOrder(t.database.db, {
      status: 'PENDING_PROCESSING',
      language: 'ru',
      lines: [{ ...book, quantity: 1 }],
      billingEmail: 'same@example.ee',
      shippingEmail: 'SAME@example.ee',
    });
    await t.drainJobs();
    await smtp.waitFor((mail) => mail.subject?.includes(same.code) === true);
    expect(recipientsOf(same.code)).toEqual(['same@example.ee']);
    expect(smtp.mails.find((mail) => mail.subject?.includes(same.code))!.subject).toContain('Ваш заказ');
  });

  it('grants entitlements for the digital lines to the client account, once', async () => {
    const ebook = await stockedBook(t.database.db, 0, { digital: true });
    const paper = await stockedBook(t.database.db, 3);
    const customer = await createCustomer(t.database.db);
    const order = await insertOrder(t.database.db, {
      status: 'PENDING_PROCESSING',
      clientAccountId: customer.clientAccountId,
      lines: [{ ...ebook, digital: true }, paper],
    });
    await enqueueJob(t.database.db, { type: 'order.process', payload: { orderId: order.id } }, { maxAttempts: 3 });
    await t.drainJobs();
    const entitlements = await t.database.db
      .selectFrom('order_entitlement')
      .select(['product_id', 'client_account_id'])
      .where('order_id', '=', order.id)
      .execute();
    expect(entitlements.map((row) => ({ product: Number(row.product_id), client: Number(row.client_account_id) }))).toEqual([
      { product: ebook.productId, client: customer.clientAccountId },
    ]);
  });

  it('writes a guest order to the export with the guest client code and a business order as ETTEVOTE', async () => {
    const book = await stockedBook(t.database.db, 3);
    const guest = await insertOrder(t.database.db, { status: 'PENDING_PROCESSING', lines: [book] });
    const business = await createCustomer(t.database.db, { kind: 'BUSINESS' });
    const company = await insertOrder(t.database.db, {
      status: 'PENDING_PROCESSING',
      customerKind: 'BUSINESS',
      clientAccountId: business.clientAccountId,
      lines: [book],
    });
    await t.drainJobs();
    expect(await exportRow(guest.code)).toEqual([expect.objectContaining({ client: 'GUEST', clientType: 'PYSIKLIENT' })]);
    expect(await exportRow(company.code)).toEqual([expect.objectContaining({ client: business.clientCode, clientType: 'ETTEVOTE' })]);
  });

  it('skips an order that is not waiting for processing', async () => {
    const book = await stockedBook(t.database.db, 3);
    const order = await insertOrder(t.database.db, { status: 'NEW', lines: [book], queueJob: true });
    await t.drainJobs();
    expect(await orderStatus(t.database.db, order.id)).toBe('NEW');
    expect(await productStock(t.database.db, book.productId)).toEqual({ webStock: 3, reserved: 1 });
    expect(await t.database.db.selectFrom('sales_history').select('id').where('order_code', '=', order.code).execute()).toEqual([]);
  });
});
