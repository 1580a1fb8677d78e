import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { moveOrder } from '../../src/modules/orders/order-states.js';
import { ASK_EVERY_MS, scanFeedbackRequests } from '../../src/modules/orders/processing/feedback-request.js';
import { claimFeedbackRequest } from '../../src/modules/orders/processing/feedback-request.repository.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { eraseSubject, loadSubject } from '../../src/modules/gdpr/gdpr.service.js';
import { personalDataParts } from '../../src/modules/gdpr/personal-data-parts.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { recipientsOf } from '../back-in-stock/helpers.js';
import { createCustomer, emailOf, userIdOf, type TestCustomer } from '../helpers/customers.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { secondWorker } from '../helpers/second-worker.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { call, checkout, checkoutForm, checkoutFormWith, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';

// A client is asked to rate what they bought FEEDBACK_REQUEST_AFTER_DAYS (14 by default) after an order of
// theirs was completed: once per order, at most once a month, only while a marketing mail may go to them,
// about the products they have not rated. The worker's scan is driven here with its `now`, and the worker
// runs the asks it queued then (ask: by the app's clock, which the worker claims and mails by, moved to `now`
// meanwhile); the app's clock is moved by hand, and each test starts 60 days after the one before, so earlier
// orders are out of the window.

const DAY = 86_400_000;
let t: TestApp;
let smtp: SmtpCatcher;
let second: ReturnType<typeof secondWorker>;
let shop: Shop;
let key: string;
const clock = fixedClock(Date.UTC(2025, 0, 6, 9));
let base = clock.now();

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url, TEST_GATEWAY: 'on' }, clock });
  shop = await setUpShop(t);
  key = await createApiKey(t.database.db, 'back-office', clock.now());
  second = secondWorker(t);
});
afterAll(async () => {
  await second?.close();
  await t?.close();
  await smtp?.close();
});
beforeEach(() => {
  smtp.clear();
  base += 60 * DAY;
  clock.set(base);
});

const db = () => t.database.db;
const scan = (now: number, database = t.database) => scanFeedbackRequests(database.db, t.config.orders, now);
/** A scan at `now` and the outbox run then; the app's clock is back where it was after. */
async function ask(now: number): Promise<number> {
  const before = clock.now();
  clock.set(now);
  try {
    const queued = await scan(now);
    await t.drainJobs();
    return queued;
  } finally {
    clock.set(before);
  }
}
const bearer = (customer: TestCustomer) => ({ bearer: customer.token });

/** A retail client with the EMAIL marketing consent, unless told not to (or another account of `ofUser`). */
async function client(options: { consent?: boolean; ofUser?: TestCustomer; kind?: 'BUSINESS' } = {}) {
  const customer = await createCustomer(db(), { ofUser: options.ofUser, kind: options.kind });
  if (options.consent !== false && !options.ofUser) {
    const response = await call(t, 'PUT', '/client-account', bearer(customer), { marketingConsents: { email: true } });
    expect(response.statusCode, response.body).toBe(200);
  }
  return { ...customer, email: await emailOf(db(), customer) };
}

/** An order of `books` (one copy each) by courier, paid on delivery (or as told), taken by the back office now: COMPLETED. */
async function completedOrder(who: { bearer?: string }, books: number[], paymentMethodId = 'CASH_ON_DELIVERY') {
  const filled = await fill(
    t,
    who,
    books.map((book) => [book, 1] as [number, number]),
  );
  const placed = await checkout(t, filled, checkoutForm(shop, { paymentMethodId }));
  expect(placed.statusCode, placed.body).toBe(200);
  const { orderId, path } = orderLink(placed.json().location);
  expect((await t.app.inject({ url: path })).statusCode).toBe(200);
  await t.drainJobs();
  const { code } = await db().selectFrom('customer_order').select('code').where('id', '=', orderId).executeTakeFirstOrThrow();
  const reported = await t.app.inject({
    method: 'POST',
    url: `/admin/orders/${code}/status`,
    headers: { authorization: `Bearer ${key}` },
    payload: { status: 'DELIVERED', createdAt: new Date(clock.now()).toISOString() },
  });
  expect(reported.statusCode, reported.body).toBe(200);
  expect(reported.json().status).toBe('COMPLETED');
  return { orderId, code: code! };
}

/** A book collected in shop TLN1, paid there, taken by the back office now (COMPLETED) and put out for the buyer. */
async function pickupOrder(who: { bearer?: string }, book: number) {
  const filled = await fill(t, who, [[book, 1]]);
  const form = checkoutFormWith(shop.methods.SHOP, { shopCode: 'TLN1', paymentMethodId: 'PAY_IN_SHOP' });
  const placed = await checkout(t, filled, form);
  expect(placed.statusCode, placed.body).toBe(200);
  const { orderId, path } = orderLink(placed.json().location);
  expect((await t.app.inject({ url: path })).statusCode).toBe(200);
  await t.drainJobs();
  const { code } = await db().selectFrom('customer_order').select('code').where('id', '=', orderId).executeTakeFirstOrThrow();
  const admin = (url: string, payload?: object) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) });
  expect(
    (await admin(`/admin/orders/${code}/status`, { status: 'IN_SHOP', createdAt: new Date(clock.now()).toISOString() })).statusCode,
  ).toBe(200);
  const collectBy = new Date(clock.now() + 30 * DAY).toISOString().slice(0, 10);
  expect((await admin(`/admin/orders/${code}/ready-for-pickup`, { collectBy })).statusCode).toBe(200);
  return { orderId, code: code!, collected: async () => expect((await admin(`/admin/orders/${code}/collected`)).statusCode).toBe(200) };
}

const askedOrders = async () =>
  (await db().selectFrom('order_feedback_request').select('order_id').execute()).map((row) => Number(row.order_id));
const mailsTo = (email: string) => smtp.mails.filter((mail) => recipientsOf(mail).includes(email));
const feedbackJobs = async (orderId: number) =>
  (await db().selectFrom('job').select(['payload', 'result']).where('type', '=', 'order.feedback-request').execute())
    .filter((job) => JSON.parse(job.payload).orderId === orderId)
    .map((job) => job.result);

describe('asking a client to rate what they bought', () => {
  it('14 days after the order is completed, once, to the login email, naming the books with links and List-Unsubscribe', async () => {
    const mari = await client();
    const [first, second] = [await stockedBook(t, shop, 5), await stockedBook(t, shop, 5)];
    const order = await completedOrder(bearer(mari), [first, second]);

    expect(await ask(base + 13 * DAY)).toBe(0);
    expect(await ask(base + 15 * DAY)).toBe(1);
    const mail = await smtp.waitFor(
      (candidate) => recipientsOf(candidate).includes(mari.email) && candidate.subject?.includes('Kuidas meeldis') === true,
    );
    expect(mail.subject).toMatch(new RegExp(`^Kuidas meeldis\\? Teie tellimus ${order.code} – `));
    expect(mail.text).toContain(`Aitäh tellimuse ${order.code} eest!`);
    expect(mail.text).toMatch(new RegExp(`: https?://[^\\s]+/product/${first}\\n`));
    expect(mail.text).toMatch(new RegExp(`: https?://[^\\s]+/product/${second}(\\n|$)`));
    expect(mail.html).toContain(`/product/${first}">`);
    expect(mail.html).toContain(`/product/${second}">`);
    expect(mail.headerLines.some((line) => line.key === 'list-unsubscribe')).toBe(true);

    expect(await ask(base + 16 * DAY)).toBe(0);
    expect(mailsTo(mari.email).filter((m) => m.subject?.includes('Kuidas meeldis'))).toHaveLength(1);
    expect(await feedbackJobs(order.orderId)).toEqual(['sent']);
  });

  it('leaves out the books the client has rated and gift cards; asks nothing, and keeps the month free, when every one is', async () => {
    const jaan = await client();
    const [rated, other, card] = [await stockedBook(t, shop, 5), await stockedBook(t, shop, 5), await stockedBook(t, shop, 5)];
    const jaans = await completedOrder(bearer(jaan), [rated, other, card]);
    // The third line stands for a gift card bought with the books: money, nothing to rate.
    await db()
      .updateTable('order_line')
      .set({ product_type: 'GIFT_CARD' })
      .where('order_id', '=', jaans.orderId)
      .where('product_id', '=', card)
      .execute();
    expect((await call(t, 'PUT', `/product/${rated}/rating`, bearer(jaan), { rating: 5 })).statusCode).toBe(200);
    expect(await ask(base + 15 * DAY)).toBe(1);
    const mail = await smtp.waitFor(
      (candidate) => recipientsOf(candidate).includes(jaan.email) && candidate.subject?.includes('Kuidas meeldis') === true,
    );
    expect(mail.text).toContain(`/product/${other}`);
    expect(mail.text).not.toMatch(new RegExp(`/product/(${rated}|${card})(\\D|$)`));

    const kati = await client();
    const only = await stockedBook(t, shop, 5);
    clock.set(base + 20 * DAY);
    const order = await completedOrder(bearer(kati), [only]);
    expect((await call(t, 'PUT', `/product/${only}/rating`, bearer(kati), { rating: 4 })).statusCode).toBe(200);
    expect(await ask(base + 35 * DAY)).toBe(0);
    expect(await feedbackJobs(order.orderId)).toEqual([]);
    // Nothing to ask about takes nothing of her month: her next order is asked about.
    clock.set(base + 22 * DAY);
    const next = await completedOrder(bearer(kati), [await stockedBook(t, shop, 5)]);
    expect(await ask(base + 37 * DAY)).toBe(1);
    expect(await feedbackJobs(next.orderId)).toEqual(['sent']);
    expect(await askedOrders()).not.toContain(order.orderId);
  });

  it('at most once in 30 days per client, however many orders; never without the consent, never a guest', async () => {
    const mari = await client();
    const first = await completedOrder(bearer(mari), [await stockedBook(t, shop, 5)]);
    const secondOrder = await completedOrder(bearer(mari), [await stockedBook(t, shop, 5)]);
    const quiet = await client({ consent: false });
    const quietOrder = await completedOrder(bearer(quiet), [await stockedBook(t, shop, 5)]);
    const guestOrder = await completedOrder({}, [await stockedBook(t, shop, 5)]);

    expect(await ask(base + 15 * DAY)).toBe(1);
    expect(await ask(base + 20 * DAY)).toBe(0);
    const asked = await askedOrders();
    expect(asked.filter((id) => [first.orderId, secondOrder.orderId].includes(id))).toEqual([first.orderId]);
    expect(asked).not.toContain(quietOrder.orderId);
    expect(asked).not.toContain(guestOrder.orderId);
    expect(mailsTo(quiet.email)).toEqual([]);
  });

  it('an order cancelled, or a client who withdrew the consent, after the ask was queued: nothing is sent', async () => {
    const mari = await client();
    const order = await completedOrder(bearer(mari), [await stockedBook(t, shop, 5)]);
    const jaan = await client();
    const other = await completedOrder(bearer(jaan), [await stockedBook(t, shop, 5)]);
    expect(await scan(base + 15 * DAY)).toBe(2);
    clock.set(base + 15 * DAY);
    await db()
      .transaction()
      .execute((trx) => moveOrder(trx, { orderId: order.orderId, from: 'COMPLETED', to: 'CANCELLED', cause: 'test', now: clock.now() }));
    expect((await call(t, 'PUT', '/client-account', bearer(jaan), { marketingConsents: { email: false } })).statusCode).toBe(200);
    await t.drainJobs();
    expect(await feedbackJobs(order.orderId)).toEqual(['skipped']);
    expect(await feedbackJobs(other.orderId)).toEqual(['skipped']);
    expect(smtp.mails.filter((mail) => mail.subject?.includes('Kuidas meeldis'))).toEqual([]);
  });

  it('two workers scanning at once ask each client once', async () => {
    const clients = [await client(), await client(), await client()];
    for (const customer of clients) {
      await completedOrder(bearer(customer), [await stockedBook(t, shop, 5)]);
      await completedOrder(bearer(customer), [await stockedBook(t, shop, 5)]);
    }
    const [one, two] = await Promise.all([scan(base + 15 * DAY), scan(base + 15 * DAY, second.database)]);
    expect(one + two).toBe(3);
    const jobs = await db().selectFrom('job').select('payload').where('type', '=', 'order.feedback-request').execute();
    const asked = await askedOrders();
    expect(jobs.filter((job) => asked.includes(JSON.parse(job.payload).orderId))).toHaveLength(asked.length);
  });

  it('two scans claiming two orders of one client at once (one still uncommitted): one ask', async () => {
    const mari = await client();
    const first = await completedOrder(bearer(mari), [await stockedBook(t, shop, 5)]);
    clock.set(base + 2 * DAY);
    const later = await completedOrder(bearer(mari), [await stockedBook(t, shop, 5)]);
    const userId = await userIdOf(db(), mari);
    // A scan whose window holds the first order only claims it and has not committed, while one a week
    // later, whose window holds the later order only, claims that.
    await whileTransactionOpen(
      db(),
      (trx) =>
        claimFeedbackRequest(
          trx,
          { id: first.orderId, clientAccountId: mari.clientAccountId, userId, dueFrom: base },
          base + 15 * DAY,
          base + 15 * DAY - ASK_EVERY_MS,
        ),
      () => scan(base + 22 * DAY - DAY / 2),
      150,
    );
    expect((await askedOrders()).filter((id) => [first.orderId, later.orderId].includes(id))).toEqual([first.orderId]);
  });

  it('a pickup order only once it was collected; one person with two accounts once; a book no longer shown is left out', async () => {
    const mari = await client();
    const waiting = await pickupOrder(bearer(mari), await stockedBook(t, shop, 5));
    expect(await ask(base + 15 * DAY)).toBe(0);
    await waiting.collected();
    expect(await ask(base + 16 * DAY)).toBe(1);
    expect(await askedOrders()).toContain(waiting.orderId);

    // Jaan's business account is another account of the same person: one ask between the two.
    const jaan = await client();
    const jaanAtWork = await client({ ofUser: jaan, kind: 'BUSINESS' });
    const [shown, hidden] = [await stockedBook(t, shop, 5), await stockedBook(t, shop, 5)];
    clock.set(base + 20 * DAY);
    await completedOrder(bearer(jaan), [shown, hidden]);
    await completedOrder(bearer(jaanAtWork), [await stockedBook(t, shop, 5)], 'INVOICE');
    await db().updateTable('product').set({ is_active: false }).where('id', '=', hidden).execute();
    expect(await ask(base + 35 * DAY)).toBe(1);
    const mail = await smtp.waitFor(
      (candidate) => recipientsOf(candidate).includes(jaan.email) && candidate.subject?.includes('Kuidas meeldis') === true,
    );
    expect(mail.text).toContain(`/product/${shown}`);
    expect(mail.text).not.toMatch(new RegExp(`/product/${hidden}(\\D|$)`));
    expect(mailsTo(jaan.email)).toHaveLength(1);
  });

  it("is scanned along the index made for it, and the ask is in the person's data until erased", async () => {
    const mari = await client();
    const order = await completedOrder(bearer(mari), [await stockedBook(t, shop, 5)]);
    const recorded = recordingStatements(db());
    expect(await scanFeedbackRequests(recorded.db, t.config.orders, base + 15 * DAY)).toBe(1);
    const walk = recorded.statements.find(
      (statement) => /from "customer_order" as "o"/.test(statement.sql) && /order by/.test(statement.sql),
    );
    expect(walk, recorded.statements.map((statement) => statement.sql).join('\n')).toBeDefined();
    const pickups = recorded.statements.find((statement) => /from "order_pickup" as "pk"/.test(statement.sql));
    expect(pickups).toBeDefined();
    // SQLite walks the cross joins in their order; PostgreSQL plans by its statistics, and with this
    // test's few rows may start from the accounts instead (once autovacuum has analysed them), reading
    // the orders by their client's index: no whole table either way.
    if (engine === 'sqlite') {
      expect(await planOfStatement(db(), walk!)).toContain('customer_order_status_idx');
      expect(await planOfStatement(db(), pickups!)).toContain('order_pickup_collected_idx');
    } else {
      for (const statement of [walk!, pickups!]) expect(await planOfStatement(db(), statement)).not.toMatch(/Seq Scan/);
    }

    // The worker's time, which runs the ask it queued once erased.
    clock.set(base + 15 * DAY);
    const exported = await call(t, 'GET', '/client-account/export', bearer(mari));
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().feedbackRequests).toEqual([{ order: order.code, requestedAt: expect.stringMatching(/Z$/) }]);
    expect((await call(t, 'DELETE', '/client-account', bearer(mari), {})).statusCode).toBe(204);
    expect(await askedOrders()).not.toContain(order.orderId);
    await t.drainJobs();
    expect(await feedbackJobs(order.orderId)).toEqual(['skipped']);
  });

  it('a pickup order collected weeks after it was completed is asked about two weeks after the collection', async () => {
    const mari = await client();
    const late = await pickupOrder(bearer(mari), await stockedBook(t, shop, 5));
    clock.set(base + 25 * DAY);
    await late.collected();
    expect(await ask(base + 30 * DAY)).toBe(0);
    expect(await ask(base + 40 * DAY)).toBe(1);
    expect(await feedbackJobs(late.orderId)).toEqual(['sent']);
  });

  it("an erasure with its locks taken when a scan claims the person's order: no ask is left behind", async () => {
    const mari = await client();
    const order = await completedOrder(bearer(mari), [await stockedBook(t, shop, 5)]);
    const subject = (await loadSubject(db(), await userIdOf(db(), mari)))!;
    await whileTransactionOpen(
      db(),
      (trx) => eraseSubject(trx, personalDataParts, subject, clock.now()),
      () => scan(base + 15 * DAY),
      150,
    );
    expect(await askedOrders()).not.toContain(order.orderId);
  });

  it('FEEDBACK_REQUEST_AFTER_DAYS=0 asks nobody', async () => {
    const mari = await client();
    await completedOrder(bearer(mari), [await stockedBook(t, shop, 5)]);
    expect(await scanFeedbackRequests(db(), { feedbackRequestAfterMs: 0 }, base + 15 * DAY)).toBe(0);
  });
});
