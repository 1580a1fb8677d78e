import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { exportUser } from '../data-export/fixtures.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import type { TestApp } from '../helpers/test-app.js';
import { cardPayment, orderStatus, shopperReturns, startCardShop, stockedBook, type CardShop } from './processing-helpers.js';

// The operators' order endpoints: the pull feed, the back office's status report (the export's
// createdNav) and refunds through the order's gateway (the real EveryPay adapter against the
// local EveryPay server; the orders are paid through checkout, create-form and the shopper's return).

let s: CardShop;
let t: TestApp;
let key: string;
beforeAll(async () => {
  s = await startCardShop();
  t = s.t;
  key = await createApiKey(t.database.db, 'back-office', Date.now());
});
afterAll(() => s?.close());

const auth = () => ({ authorization: `Bearer ${key}` });
const post = (url: string, payload: unknown, headers: Record<string, string> = auth()) =>
  t.app.inject({ method: 'POST', url, headers, payload: payload as object });

/** A processed order that needed no online payment. */
async function processedOrder() {
  const book = await stockedBook(t.database.db, 5);
  const order = await insertOrder(t.database.db, { status: 'PENDING_PROCESSING', lines: [book] });
  await t.drainJobs();
  return order;
}

/** A card order paid at EveryPay (the shopper's return tells the shop) and processed. */
async function paidOrder() {
  const order = await cardPayment(s);
  await s.everypay.settle(order.reference);
  await shopperReturns(s, order);
  expect(await orderStatus(t.database.db, order.id)).toBe('PENDING_PROCESSING');
  await t.drainJobs();
  return order;
}

/** The refunds EveryPay was asked for: the payment and the sum in cents. */
const refunds = () =>
  s.everypay.requests
    .filter((request) => request.path === '/api/v4/payments/refund')
    .map((request) => {
      const body = request.body as { payment_reference: string; amount: number };
      return { reference: body.payment_reference, amountCents: Math.round(body.amount * 100) };
    });

async function countRows() {
  const [orders, sales] = await Promise.all([
    t.database.db.selectFrom('customer_order').select(['id', 'status', 'nav_status', 'updated_at']).orderBy('id').execute(),
    t.database.db.selectFrom('sales_history').select(['order_code', 'created_nav']).orderBy('id').execute(),
  ]);
  return { orders, sales };
}

describe('GET /admin/orders', () => {
  it('lists orders changed since a time, oldest change first, paged with X-Pagination headers', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const first = await processedOrder();
    const second = await processedOrder();
    const response = await t.app.inject({ url: `/admin/orders?updatedSince=${encodeURIComponent(since)}&per-page=1`, headers: auth() });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-pagination-total-count']).toBe('2');
    expect(response.headers['x-pagination-page-count']).toBe('2');
    expect(response.json()).toEqual([
      expect.objectContaining({ code: first.code, status: 'PENDING_NAV_PROCESSING', lines: [expect.any(Object)] }),
    ]);
    const next = await t.app.inject({ url: `/admin/orders?updatedSince=${encodeURIComponent(since)}&per-page=1&page=2`, headers: auth() });
    expect(next.json()).toEqual([expect.objectContaining({ code: second.code })]);
    const later = await t.app.inject({
      url: `/admin/orders?updatedSince=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      headers: auth(),
    });
    expect(later.json()).toEqual([]);
  });

  it('walks by cursor without missing an order that changes meanwhile, where page numbers skip one', async () => {
    const feed = (query: string) => t.app.inject({ url: `/admin/orders?${query}`, headers: auth() });
    const codes = (response: Awaited<ReturnType<typeof feed>>) => (response.json() as Array<{ code: string }>).map((order) => order.code);
    const touch = async (code: string) =>
      expect((await post(`/admin/orders/${code}/status`, { status: 'Seen', createdAt: '2026-11-24T10:15:00Z' })).statusCode).toBe(200);

    let since = encodeURIComponent(new Date().toISOString());
    const paged = [await processedOrder(), await processedOrder(), await processedOrder()];
    const first = await feed(`updatedSince=${since}&per-page=1`);
    expect(codes(first)).toEqual([paged[0]!.code]);
    await touch(paged[0]!.code);
    // The first order moved to the end: page 2 is now the third, and the second is never read.
    expect(codes(await feed(`updatedSince=${since}&per-page=1&page=2`))).toEqual([paged[2]!.code]);

    since = encodeURIComponent(new Date().toISOString());
    const walked = [await processedOrder(), await processedOrder(), await processedOrder()];
    const seen: string[] = [];
    let response = await feed(`updatedSince=${since}&per-page=1`);
    seen.push(...codes(response));
    await touch(walked[0]!.code);
    for (let step = 0; step < 10 && response.headers['x-next-cursor'] !== undefined; step += 1) {
      const cursor = String(response.headers['x-next-cursor']);
      expect(cursor).toMatch(/^\d+\.\d+$/);
      response = await feed(`updatedSince=${since}&per-page=1&after=${cursor}`);
      expect(response.statusCode, response.body).toBe(200);
      if (response.headers['x-next-cursor'] !== undefined)
        expect(response.headers.link).toBe(
          `</admin/orders?updatedSince=${since}&per-page=1&after=${String(response.headers['x-next-cursor'])}>; rel="next"`,
        );
      seen.push(...codes(response));
    }
    // Every order, the one changed meanwhile again at the end; the walk ends on an empty page without a cursor.
    expect(seen).toEqual([walked[0]!.code, walked[1]!.code, walked[2]!.code, walked[0]!.code]);
    expect(response.json()).toEqual([]);
    expect(response.headers.link).toBeUndefined();

    // A cursor's link repeats the other parameters too: past the Link header's length it is left out, as a page's (http/paging.ts).
    const long = await feed(`updatedSince=${since}&per-page=1&after=1.1&pad=${'x'.repeat(3000)}`);
    expect(long.statusCode, long.body).toBe(200);
    expect(long.headers['x-next-cursor']).toMatch(/^\d+\.\d+$/);
    expect(long.headers.link).toBeUndefined();

    expectErrorBody(await feed('after=soon'), 400, 'Bad Request');
    expect(expectFieldErrors(await feed('after=1.2&page=2'))).toEqual(['page']);
  });

  it('refuses a missing key, a bad key and bad parameters with a 4xx', async () => {
    expectErrorBody(await t.app.inject({ url: '/admin/orders' }), 401, 'Unauthorized');
    expectErrorBody(await t.app.inject({ url: '/admin/orders', headers: { authorization: 'Bearer nope' } }), 401, 'Unauthorized');
    for (const query of ['updatedSince=yesterday', 'updatedSince=2026-11-24', 'page=0', 'per-page=abc'])
      expectErrorBody(await t.app.inject({ url: `/admin/orders?${query}`, headers: auth() }), 400, 'Bad Request');
  });
});

describe('POST /admin/orders/{code}/status', () => {
  it("records the back office's status and time, completes the order and fills the export's createdNav", async () => {
    const order = await processedOrder();
    const response = await post(`/admin/orders/${order.code}/status`, { status: 'Released', createdAt: '2026-11-24T10:15:00+02:00' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      code: order.code,
      status: 'COMPLETED',
      backOffice: { status: 'Released', createdAt: '2026-11-24T08:15:00Z', handedOffAt: expect.any(String) },
    });
    expect(await orderStatus(t.database.db, order.id)).toBe('COMPLETED');
    const user = await exportUser(t.database.db);
    const exported = await t.app.inject({
      url: `${t.config.dataExportPath}/sales-history`,
      headers: { authorization: user.authorization },
    });
    const row = (exported.json() as Array<Record<string, unknown>>).find((sale) => sale.order === order.code);
    expect(row).toMatchObject({ order: order.code, createdNav: '2026-11-24T08:15:00Z' });
    // A second report updates the status; the order stays COMPLETED.
    const again = await post(`/admin/orders/${order.code}/status`, { status: 'Shipped', createdAt: '2026-11-24T08:15:00Z' });
    expect(again.json()).toMatchObject({ status: 'COMPLETED', backOffice: { status: 'Shipped' } });
  });

  it('takes the same report again (a retry of one whose answer was lost) as done: the first answer, and no change for the feed', async () => {
    const order = await processedOrder();
    const report = { status: 'Released', createdAt: '2026-11-24T08:15:00Z' };
    const first = await post(`/admin/orders/${order.code}/status`, report);
    expect(first.statusCode, first.body).toBe(200);
    const updatedAt = async () =>
      Number(
        (await t.database.db.selectFrom('customer_order').select('updated_at').where('id', '=', order.id).executeTakeFirstOrThrow())
          .updated_at,
      );
    const stamped = await updatedAt();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await post(`/admin/orders/${order.code}/status`, report);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    // Nothing changed, so the back office's feed does not hand the order over again.
    expect(await updatedAt()).toBe(stamped);
  });

  it('refuses an unknown code (404), an unpaid order (409) and bad bodies (422/400/415) with nothing written', async () => {
    const book = await stockedBook(t.database.db, 2);
    const unpaid = await insertOrder(t.database.db, { status: 'PENDING_PAYMENT', lines: [book] });
    const paid = await processedOrder();
    const before = await countRows();
    const good = { status: 'Released', createdAt: '2026-11-24T08:15:00Z' };
    expectErrorBody(await post('/admin/orders/WT999999/status', good), 404, 'Not Found');
    expectErrorBody(await post(`/admin/orders/${unpaid.code}/status`, good), 409, 'Conflict');
    expectErrorBody(await post(`/admin/orders/${paid.code}/status`, good, {}), 401, 'Unauthorized');
    for (const body of [
      {},
      { status: 'Released' },
      { createdAt: good.createdAt },
      { ...good, createdAt: '24.11.2026' },
      { ...good, createdAt: '2026-11-24T08:15:00' },
      { ...good, status: '' },
      { ...good, status: ' padded ' },
      { ...good, status: 'x'.repeat(41) },
      { ...good, status: 7 },
    ])
      expectFieldErrors(await post(`/admin/orders/${paid.code}/status`, body));
    expectErrorBody(await post('/admin/orders/bad%20code/status', good), 400, 'Bad Request');
    expectErrorBody(
      await t.app.inject({
        method: 'POST',
        url: `/admin/orders/${paid.code}/status`,
        headers: { ...auth(), 'content-type': 'application/json' },
        payload: '{"status":',
      }),
      400,
      'Bad Request',
    );
    expectErrorBody(
      await t.app.inject({
        method: 'POST',
        url: `/admin/orders/${paid.code}/status`,
        headers: { ...auth(), 'content-type': 'text/plain' },
        payload: 'x',
      }),
      415,
      'Unsupported Media Type',
    );
    expect(await countRows()).toEqual(before);
  });
});

describe("the back office's sales-history import of an order processed here", () => {
  it('fills createdNav of the ONLINE row and never makes a second row', async () => {
    const order = await processedOrder();
    const line = {
      order: order.code,
      client: 'W1',
      clientType: 'PYSIKLIENT',
      sourceType: 'ONLINE',
      city: 'Tallinn',
      deliveryMethod: 'COURIER',
      products: ['X'],
    };
    const imported = await t.app.inject({
      method: 'POST',
      url: '/admin/import/sales-history',
      headers: { ...auth(), 'content-type': 'application/x-ndjson' },
      payload: [JSON.stringify({ ...line, createdNav: '2026-11-24T09:00:00Z' }), JSON.stringify(line)].join('\n'),
    });
    expect(imported.json()).toMatchObject({ outcomes: { 'createdNav updated': 1, unchanged: 1 }, errorCount: 0 });
    const rows = await t.database.db.selectFrom('sales_history').selectAll().where('order_code', '=', order.code).execute();
    expect(rows).toHaveLength(1);
    // The row stays as the shop wrote it; only the back office's time is added.
    expect(rows[0]).toMatchObject({ city: 'Tartu', delivery_method: 'PARCEL_MACHINE', client_code: 'GUEST' });
    expect(Number(rows[0]!.created_nav)).toBe(Date.parse('2026-11-24T09:00:00Z'));
  });
});

describe('POST /admin/orders/{code}/refund', () => {
  it('refunds part, then the rest, through the gateway; the full refund cancels the order', async () => {
    const order = await paidOrder();
    const part = await post(`/admin/orders/${order.code}/refund`, { amount: 5.5 });
    expect(part.statusCode, part.body).toBe(200);
    expect(part.json()).toMatchObject({ payment: { state: 'refunded', refunded: 5.5 }, status: 'PENDING_NAV_PROCESSING' });
    expect(refunds().at(-1)).toEqual({ reference: order.reference, amountCents: 550 });

    const tooMuch = await post(`/admin/orders/${order.code}/refund`, { amount: 100 });
    expectErrorBody(tooMuch, 409, 'Conflict');
    const rest = await post(`/admin/orders/${order.code}/refund`, {});
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json()).toMatchObject({ payment: { refunded: order.totalCents / 100 }, status: 'CANCELLED' });
    expect(refunds().at(-1)!.amountCents).toBe(order.totalCents - 550);
    expect(s.everypay.payment(order.reference)).toMatchObject({ state: 'refunded', standingCents: 0 });
    // Nothing left to refund (the same refund again at once would be a double click, answered with the rest's).
    expectErrorBody(await post(`/admin/orders/${order.code}/refund`, { amount: 1 }), 409, 'Conflict');
    expect(refunds()).toHaveLength(2);
  });

  it('takes back what the order gave to download with the full refund, not with a part', async () => {
    const order = await cardPayment(s);
    // The order's line is an e-book's: processing grants it to download.
    await t.database.db.updateTable('order_line').set({ is_digital: true }).where('order_id', '=', order.id).execute();
    await s.everypay.settle(order.reference);
    await shopperReturns(s, order);
    await t.drainJobs();
    const entitled = () => t.database.db.selectFrom('order_entitlement').select('product_id').where('order_id', '=', order.id).execute();
    expect(await entitled()).toHaveLength(1);
    expect((await post(`/admin/orders/${order.code}/refund`, { amount: 1 })).statusCode).toBe(200);
    expect(await entitled()).toHaveLength(1);
    const rest = await post(`/admin/orders/${order.code}/refund`, {});
    expect(rest.json()).toMatchObject({ status: 'CANCELLED' });
    expect(await entitled()).toEqual([]);
  });

  it('refuses without a settled payment (409), an unknown code (404) and bad amounts (422), calling no gateway', async () => {
    const noPayment = await processedOrder();
    const unpaid = await cardPayment(s);
    const paid = await paidOrder();
    const calls = refunds().length;
    expectErrorBody(await post(`/admin/orders/${noPayment.code}/refund`, {}), 409, 'Conflict');
    expectErrorBody(await post(`/admin/orders/${unpaid.code}/refund`, {}), 409, 'Conflict');
    expectErrorBody(await post('/admin/orders/WT999998/refund', {}), 404, 'Not Found');
    // 1e-9 passes the schema's "more than 0" and is 0 cents: a refund of nothing, not a sum too large (409).
    const bad = [
      { amount: 0 },
      { amount: 1e-9 },
      { amount: -1 },
      { amount: 1.005 },
      { amount: '5' },
      { amount: null },
      { amount: 1e9 },
      { amt: 1 },
    ];
    for (const body of bad) expectFieldErrors(await post(`/admin/orders/${paid.code}/refund`, body));
    // A misspelt field is refused, never read as "refund everything".
    const english = { ...auth(), 'x-app-language': 'en' };
    const misspelt = await post(`/admin/orders/${paid.code}/refund`, { amout: 5 }, english);
    expect(expectFieldErrors(misspelt)).toEqual(['amout']);
    // Said as every other body's unknown field is, not as a bad value of a field that exists.
    expect(misspelt.json()).toEqual([{ field: 'amout', message: 'amout is not an accepted field.' }]);
    const two = await post(`/admin/orders/${paid.code}/refund`, { amount: 0, note: 'x' }, english);
    expect(two.json()).toEqual(expect.arrayContaining([{ field: 'note', message: 'note is not an accepted field.' }]));
    expect(refunds().length).toBe(calls);
    expect(await orderStatus(t.database.db, paid.id)).toBe('PENDING_NAV_PROCESSING');
  });

  it('EveryPay down: a 503, and the payment and order stay as they were', async () => {
    const order = await paidOrder();
    s.everypay.breakApi({ status: 503 }, 1);
    expectErrorBody(await post(`/admin/orders/${order.code}/refund`, { amount: 1 }), 503, 'Service Unavailable');
    expect(s.everypay.payment(order.reference)).toMatchObject({ state: 'settled', standingCents: order.totalCents });
    expect(await orderStatus(t.database.db, order.id)).toBe('PENDING_NAV_PROCESSING');
    // The operator's retry refunds once.
    expect((await post(`/admin/orders/${order.code}/refund`, { amount: 1 })).statusCode).toBe(200);
    expect(s.everypay.payment(order.reference)!.standingCents).toBe(order.totalCents - 100);
  });
});

// Last: it asks EveryPay for a refund, which the refund tests above count.
describe('GET /admin/orders after a part refund', () => {
  it('shows an order again once its payment is refunded in part, the order standing', async () => {
    const order = await paidOrder();
    const { updated_at } = await t.database.db
      .selectFrom('customer_order')
      .select('updated_at')
      .where('id', '=', order.id)
      .executeTakeFirstOrThrow();
    // The back office has read every change up to the order's last one.
    const since = encodeURIComponent(new Date(Number(updated_at) + 1).toISOString());
    const feed = async () => (await t.app.inject({ url: `/admin/orders?updatedSince=${since}`, headers: auth() })).json();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await feed()).toEqual([]);

    const part = await post(`/admin/orders/${order.code}/refund`, { amount: 2.5 });
    expect(part.statusCode, part.body).toBe(200);
    expect(part.json()).toMatchObject({ status: 'PENDING_NAV_PROCESSING', payment: { state: 'refunded', refunded: 2.5 } });
    // The order's document changed (its payment's state and refunded sum): the feed of changes since has it.
    expect(await feed()).toEqual([
      expect.objectContaining({ code: order.code, payment: expect.objectContaining({ state: 'refunded', refunded: 2.5 }) }),
    ]);
  });
});
