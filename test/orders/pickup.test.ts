import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { reminderTime, reportReadyForPickup } from '../../src/modules/orders/processing/pickup.service.js';
import { addDays, localTime } from '../../src/infra/shop-time.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { call, checkout, checkoutForm, checkoutFormWith, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import type { Who } from '../basket/helpers.js';

// A pickup order's hand-over in the shop, as the back office reports it: ready (with the last day the
// shop keeps it), then collected. Orders are placed through checkout (pay in the shop) and the mails
// reach a real SMTP server; the reminder is due days later, so a test makes its job due by hand.

let t: TestApp;
let smtp: SmtpCatcher;
let shop: Shop;
let key: string;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url, TEST_GATEWAY: 'on' } });
  shop = await setUpShop(t);
  await t.database.db.updateTable('shop_name').set({ opening_hours: 'E-P 10-21' }).execute();
  key = await createApiKey(t.database.db, 'back-office', Date.now());
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const db = () => t.database.db;
const today = () => localTime(Date.now()).date;
const admin = (path: string, payload?: unknown, authorization = `Bearer ${key}`) =>
  t.app.inject({ method: 'POST', url: path, headers: { authorization }, ...(payload === undefined ? {} : { payload: payload as object }) });
const ready = (code: string, collectBy: string) => admin(`/admin/orders/${code}/ready-for-pickup`, { collectBy });
const collected = (code: string) => admin(`/admin/orders/${code}/collected`);

let sequence = 0;
/** A book collected at shop TLN1 and paid there: processed, its confirmations sent. */
async function pickupOrder(options: { who?: Who; receiver?: string; payment?: string } = {}) {
  sequence += 1;
  const book = await stockedBook(t, shop, 3);
  const who = await fill(t, options.who ?? {}, [[book, 1]]);
  const buyer = `buyer${sequence}@example.ee`;
  const receiver = options.receiver ?? buyer;
  const form = checkoutFormWith(shop.methods.SHOP, {
    shopCode: 'TLN1',
    paymentMethodId: options.payment ?? 'PAY_IN_SHOP',
    billingEmail: buyer,
    shippingEmail: receiver,
    shippingName: 'Jaan Tamm',
  });
  const placed = await checkout(t, who, form);
  expect(placed.statusCode, placed.body).toBe(200);
  const { orderId, path, checksum } = orderLink(placed.json().location);
  expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
  await t.drainJobs();
  const row = await db().selectFrom('customer_order').select(['code', 'status']).where('id', '=', orderId).executeTakeFirstOrThrow();
  return { orderId, code: row.code!, status: row.status, buyer, receiver, checksum };
}

const pickupJobs = async (orderId: number) =>
  (await db().selectFrom('job').selectAll().where('type', '=', 'order.pickup-mail').orderBy('id').execute())
    .map((job) => ({ ...job, payload: JSON.parse(job.payload) }))
    .filter((job) => job.payload.orderId === orderId)
    .map((job) => ({
      id: Number(job.id),
      kind: job.payload.kind,
      recipient: job.payload.recipient,
      collectBy: job.payload.collectBy,
      runAt: Number(job.run_at),
      result: job.result,
      status: job.status,
    }));

/** Makes the order's pickup jobs due now, as the days until them would. */
async function makeDue(orderId: number) {
  const ids = (await pickupJobs(orderId)).filter((job) => job.status === 'pending').map((job) => job.id);
  if (ids.length > 0) await db().updateTable('job').set({ run_at: Date.now() }).where('id', 'in', ids).execute();
  await t.drainJobs();
}

/** The order as its buyer reads it (a guest, by the checksum of their link): its delivery's pickup. */
async function buyersPickup(order: { code: string; checksum: string }) {
  const response = await t.app.inject({ url: `/order/${order.code}?checksum=${order.checksum}` });
  expect(response.statusCode, response.body).toBe(200);
  const pickup = response.json().delivery.pickup;
  // To the second, as the operators' answers give times.
  const seconds = (time: string | null) => (time === null ? null : `${time.slice(0, 19)}Z`);
  return pickup && { ...pickup, readyAt: seconds(pickup.readyAt), collectedAt: seconds(pickup.collectedAt) };
}

const mailsOf = (code: string, subjectPart: string) =>
  smtp.mails.filter((mail) => mail.subject?.includes(code) === true && mail.subject.includes(subjectPart));
const recipientOf = (mail: ParsedMail) => JSON.stringify(mail.to);

describe('POST /admin/orders/{code}/ready-for-pickup and /collected', () => {
  it('ready: the buyer and the receiver are told where and until when; the same report again changes nothing', async () => {
    const order = await pickupOrder({ receiver: 'jaan.collects@example.ee' });
    expect(await buyersPickup(order)).toBeNull();
    const collectBy = addDays(today(), 7);
    const response = await ready(order.code, collectBy);
    expect(response.statusCode, response.body).toBe(200);
    const state = response.json();
    expect(state).toEqual({ code: order.code, shopCode: 'TLN1', readyAt: expect.stringMatching(/Z$/), collectBy, collectedAt: null });
    expect(await buyersPickup(order)).toEqual({ readyAt: state.readyAt, collectBy, collectedAt: null });
    await t.drainJobs();

    const buyerMail = await smtp.waitFor(
      (mail) => mail.subject?.includes(order.code) === true && recipientOf(mail).includes(order.buyer) && mail.subject.includes('valmis'),
    );
    const receiverMail = await smtp.waitFor(
      (mail) =>
        mail.subject?.includes(order.code) === true && recipientOf(mail).includes(order.receiver) && mail.subject.includes('valmis'),
    );
    expect(buyerMail.subject).toMatch(new RegExp(`^Teie tellimus ${order.code} on järeletulemiseks valmis – `));
    expect(buyerMail.text).toContain('Tere, Mari Maasikas!');
    expect(buyerMail.text).toContain(`Teie tellimus ${order.code} on valmis ja ootab teid: Viru Keskus.`);
    expect(buyerMail.text).toContain('Aadress: Viru 23, Tallinn');
    expect(buyerMail.text).toContain('Lahtiolekuajad: E-P 10-21');
    expect(buyerMail.text).toContain(`Hoiame seda teie jaoks kuni ${collectBy} lõpuni.`);
    expect(buyerMail.text).toMatch(/checksum=/);
    // The receiver collects it: greeted by name, without the buyer's link to the whole order.
    expect(receiverMail.text).toContain('Tere, Jaan Tamm!');
    expect(receiverMail.text).not.toMatch(/checksum=/);

    const again = await ready(order.code, collectBy);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(state);
    await t.drainJobs();
    expect(mailsOf(order.code, 'valmis')).toHaveLength(2);
    const jobs = await pickupJobs(order.orderId);
    expect(jobs.map((job) => [job.kind, job.recipient])).toEqual([
      ['ready', 'buyer'],
      ['ready', 'receiver'],
      ['reminder', 'buyer'],
      ['reminder', 'receiver'],
    ]);
    expect(jobs.filter((job) => job.kind === 'reminder').map((job) => job.runAt)).toEqual([
      reminderTime(collectBy),
      reminderTime(collectBy),
    ]);
  });

  it('another last day moves the reminder and mails nothing new; the reminder names the new day; collected, none goes', async () => {
    const order = await pickupOrder();
    expect((await ready(order.code, addDays(today(), 5))).statusCode).toBe(200);
    await t.drainJobs();
    const later = addDays(today(), 9);
    const moved = await ready(order.code, later);
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().collectBy).toBe(later);
    await makeDue(order.orderId);

    expect(mailsOf(order.code, 'valmis')).toHaveLength(1);
    const reminder = await smtp.waitFor((mail) => mail.subject?.includes(order.code) === true && mail.subject.includes('ootab teid kuni'));
    expect(reminder.subject).toMatch(new RegExp(`^Teie tellimus ${order.code} ootab teid kuni ${later} – `));
    expect(reminder.text).toContain(`Teie tellimus ${order.code} ootab teid endiselt: Viru Keskus.`);
    expect(mailsOf(order.code, 'ootab teid kuni')).toHaveLength(1);
    expect((await pickupJobs(order.orderId)).filter((job) => job.kind === 'reminder').map((job) => [job.collectBy, job.result])).toEqual([
      [addDays(today(), 5), 'skipped'],
      [later, 'sent'],
    ]);

    // Reported ready again with a later day, then collected before its reminder is due: it sends nothing.
    expect((await ready(order.code, addDays(today(), 12))).statusCode).toBe(200);
    const done = await collected(order.code);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ code: order.code, collectBy: addDays(today(), 12), collectedAt: expect.stringMatching(/Z$/) });
    expect(await buyersPickup(order)).toEqual({
      readyAt: expect.any(String),
      collectBy: addDays(today(), 12),
      collectedAt: done.json().collectedAt,
    });
    await makeDue(order.orderId);
    expect(mailsOf(order.code, 'ootab teid kuni')).toHaveLength(1);
    expect((await pickupJobs(order.orderId)).at(-1)!.result).toBe('skipped');

    // Collected again: the first time stays. Ready after it: a 409.
    expect((await collected(order.code)).json()).toEqual(done.json());
    expectErrorBody(await ready(order.code, addDays(today(), 14)), 409, 'Conflict');
  });

  it("a day moved away and back: only the last report's reminder goes", async () => {
    const order = await pickupOrder();
    const [first, second] = [addDays(today(), 5), addDays(today(), 9)];
    for (const day of [first, second, first]) expect((await ready(order.code, day)).statusCode).toBe(200);
    await makeDue(order.orderId);
    expect((await pickupJobs(order.orderId)).map((job) => [job.kind, job.collectBy, job.result])).toEqual([
      ['ready', first, 'sent'],
      ['reminder', first, 'skipped'],
      ['reminder', second, 'skipped'],
      ['reminder', first, 'sent'],
    ]);
    await smtp.waitFor((mail) => mail.subject?.includes(order.code) === true && mail.subject.includes('ootab teid kuni'));
    expect(mailsOf(order.code, 'ootab teid kuni')).toHaveLength(1);
  });

  it('the same report again after its day answers as before; a new day in the past is a 422', async () => {
    const order = await pickupOrder();
    const state = (await ready(order.code, today())).json();
    const twoDaysLater = Date.now() + 2 * 86_400_000;
    const again = await db()
      .transaction()
      .execute((trx) => reportReadyForPickup(trx, order.code, today(), twoDaysLater));
    expect(again).toMatchObject({ code: order.code, collectBy: state.collectBy, collectedAt: null });
    await expect(
      db()
        .transaction()
        .execute((trx) => reportReadyForPickup(trx, order.code, addDays(today(), 1), twoDaysLater)),
    ).rejects.toMatchObject({ fields: [expect.objectContaining({ field: 'collectBy' })] });
  });

  it('no reminder when the last day is too near for one; collected without a ready report is kept', async () => {
    const order = await pickupOrder();
    expect((await ready(order.code, addDays(today(), 1))).statusCode).toBe(200);
    expect((await pickupJobs(order.orderId)).map((job) => job.kind)).toEqual(['ready']);
    const other = await pickupOrder();
    const done = await collected(other.code);
    expect(done.json()).toEqual({
      code: other.code,
      shopCode: 'TLN1',
      readyAt: null,
      collectBy: null,
      collectedAt: expect.stringMatching(/Z$/),
    });
    expect(await pickupJobs(other.orderId)).toEqual([]);
  });

  it('a logged-in buyer who turned order updates off gets the ready mail and no reminder', async () => {
    const client = await createCustomer(db());
    const off = await call(t, 'PUT', '/client-account/preferences', { bearer: client.token }, { notifications: { orderUpdates: false } });
    expect(off.statusCode, off.body).toBe(200);
    const order = await pickupOrder({ who: { bearer: client.token } });
    expect((await ready(order.code, addDays(today(), 6))).statusCode).toBe(200);
    await makeDue(order.orderId);
    await smtp.waitFor((mail) => mail.subject?.includes(order.code) === true && mail.subject.includes('valmis'));
    expect((await pickupJobs(order.orderId)).map((job) => [job.kind, job.result])).toEqual([
      ['ready', 'sent'],
      ['reminder', 'skipped'],
    ]);
    expect(mailsOf(order.code, 'ootab teid kuni')).toEqual([]);
  });

  it('the same report twice at once (one still uncommitted when the other comes): one ready mail to each recipient', async () => {
    const order = await pickupOrder({ receiver: 'twice.receiver@example.ee' });
    const collectBy = addDays(today(), 8);
    let second: Awaited<ReturnType<typeof ready>> | undefined;
    await whileTransactionOpen(
      db(),
      (trx) => reportReadyForPickup(trx, order.code, collectBy, Date.now()),
      async () => (second = await ready(order.code, collectBy)),
      150,
    );
    expect(second!.statusCode, second!.body).toBe(200);
    expect(second!.json()).toMatchObject({ code: order.code, collectBy, collectedAt: null });
    expect((await pickupJobs(order.orderId)).map((job) => [job.kind, job.recipient])).toEqual([
      ['ready', 'buyer'],
      ['ready', 'receiver'],
      ['reminder', 'buyer'],
      ['reminder', 'receiver'],
    ]);
  });

  it('refuses an order not collected in a shop, an unpaid one, a bad day, unknown fields and codes, and no key; nothing changes', async () => {
    const courier = await fill(t, {}, [[await stockedBook(t, shop, 3), 1]]);
    const placed = await checkout(t, courier, checkoutForm(shop, { paymentMethodId: 'CASH_ON_DELIVERY' }));
    expect(placed.statusCode, placed.body).toBe(200);
    const courierOrder = await db()
      .selectFrom('customer_order')
      .select('code')
      .where('id', '=', orderLink(placed.json().location).orderId)
      .executeTakeFirstOrThrow();
    expect(expectErrorBody(await ready(courierOrder.code!, addDays(today(), 3)), 409, 'Conflict').message).toContain('Kuller');
    expectErrorBody(await collected(courierOrder.code!), 409, 'Conflict');
    const unpaid = await pickupOrder({ payment: 'TEST_GATEWAY' });
    expect(unpaid.status).not.toBe('PENDING_PROCESSING');
    expectErrorBody(await ready(unpaid.code, addDays(today(), 3)), 409, 'Conflict');
    expectErrorBody(await collected(unpaid.code), 409, 'Conflict');

    const order = await pickupOrder();
    expect(expectFieldErrors(await ready(order.code, addDays(today(), -1)))).toEqual(['collectBy']);
    expect(expectFieldErrors(await ready(order.code, addDays(today(), 61)))).toEqual(['collectBy']);
    for (const [body, field] of [
      // A day that does not exist, within the 60 days a real one may be.
      [{ collectBy: `${addDays(today(), 20).slice(0, 8)}32` }, 'collectBy'],
      [{ collectBy: 'tomorrow' }, 'collectBy'],
      [{}, 'collectBy'],
      [{ collectBy: 20261210 }, 'collectBy'],
      [{ collectBy: addDays(today(), 3), shop: 'TLN1' }, 'shop'],
    ] as const)
      expect(expectFieldErrors(await admin(`/admin/orders/${order.code}/ready-for-pickup`, body)), JSON.stringify(body)).toEqual([field]);
    expectErrorBody(await ready('WT99999999', addDays(today(), 3)), 404, 'Not Found');
    expectErrorBody(await collected('WT99999999'), 404, 'Not Found');
    expect((await admin(`/admin/orders/${order.code}/collected`, undefined, 'Bearer wrong')).statusCode).toBe(401);
    expect(await db().selectFrom('order_pickup').selectAll().where('order_id', 'in', [order.orderId, unpaid.orderId]).execute()).toEqual(
      [],
    );
    expect(await pickupJobs(order.orderId)).toEqual([]);
  });
});
