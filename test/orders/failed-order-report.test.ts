import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { importLines } from '../basket/import-helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { expectErrorBody } from '../helpers/http.js';
import { sample, scrape } from '../metrics/metrics-text.js';
import { card, dateIn } from '../gift-cards/helpers.js';
import type { TestApp } from '../helpers/test-app.js';
import { createTestApp } from '../helpers/test-app.js';
import { sweepDepsOf } from './everypay-helpers.js';
import { call, checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';
import { age, orderStatus, statusHistory } from './processing-helpers.js';

// With the back office unreachable, a paid order waits in processing; after 8 hours the sweep fails
// it, and FAILED gives its effects back: its gift card's share goes back on the card, its discount
// code's use, its e-book. Often the hand-off did reach the back office (only the answer was lost),
// and it reports the order later (Shipped). The report answered 200 and left the order FAILED with
// its card refunded: the goods shipped while the buyer had the card's money back. The report now
// revives it (COMPLETED) and takes everything again; when it cannot (the card was spent since)
// nothing changes and it is a 409 saying why. The back office may have shipped it all the same: the
// refusal is recorded for the operators (`order revivals --refused`, /metrics), not only logged.

const HOUR = 3_600_000;
const METRICS = 'metrics-token-0123456789';
let t: TestApp;
let shop: Shop;
let key: string;
beforeAll(async () => {
  t = await createTestApp({
    env: {
      TEST_GATEWAY: 'on',
      BACKOFFICE_ORDERS_URL: 'http://127.0.0.1:9/orders',
      BACKOFFICE_ORDERS_SECRET: 'x'.repeat(32),
      BACKOFFICE_ORDERS_TIMEOUT_MS: '500',
      METRICS_TOKEN: METRICS,
    },
    // A database file on SQLite, which the commands open beside the shop.
    sqliteFile: true,
  });
  shop = await setUpShop(t);
  key = await createApiKey(t.database.db, 'back-office', Date.now());
});
afterAll(async () => {
  await t?.close();
});
const db = () => t.database.db;

const balanceOf = async (code: string) =>
  (await t.app.inject({ method: 'GET', url: `/virtual-gift-card/balance?code=${encodeURIComponent(code)}` })).json().balance as number;

const stockOf = async (productId: number) =>
  Number((await db().selectFrom('product').select('web_stock').where('id', '=', productId).executeTakeFirstOrThrow()).web_stock);
const reservedOf = async (productId: number) =>
  Number(
    (await db().selectFrom('product').select('reserved_quantity').where('id', '=', productId).executeTakeFirstOrThrow()).reserved_quantity,
  );

/** What `order revivals --refused` lists. */
const refusedRevivals = async () => {
  const listed = await runCli(['order', 'revivals', '--refused'], { DATABASE_URL: t.config.databaseUrl });
  expect(listed.code, listed.stderr).toBe(0);
  return listed.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
};
const refusedGauge = async () => sample(await scrape(t, METRICS), 'storefront_orders_revival_refused');

const codeOf = async (orderId: number) =>
  (await db().selectFrom('customer_order').select('code').where('id', '=', orderId).executeTakeFirstOrThrow()).code!;

const report = (code: string, status: string, createdAt: number) =>
  t.app.inject({
    method: 'POST',
    url: `/admin/orders/${code}/status`,
    headers: { authorization: `Bearer ${key}` },
    payload: { status, createdAt: new Date(createdAt).toISOString() },
  });

/** An order of `lines` part paid by the gift card `giftCard`, processed while the back office is down, then failed by the sweep. */
async function failedOrder(
  giftCard: string,
  lines: Array<[number, number]>,
  discountCode?: string,
  start: Parameters<typeof fill>[1] = {},
) {
  const who = await fill(t, start, lines);
  expect((await call(t, 'POST', '/basket/add-gift-card', who, { code: giftCard })).statusCode).toBe(200);
  if (discountCode) expect((await call(t, 'POST', '/basket/add-discount', who, { code: discountCode })).statusCode).toBe(200);
  const placed = await checkout(t, who, checkoutForm(shop));
  expect(placed.statusCode, placed.body).toBe(200);
  const { orderId, path } = orderLink(placed.json().location);
  expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
  await t.drainJobs();
  expect(['PROCESSING', 'PENDING_NAV_PROCESSING']).toContain(await orderStatus(db(), orderId));
  await age(db(), orderId, 9 * 60);
  await sweepOrders(sweepDepsOf(t), Date.now());
  expect(await orderStatus(db(), orderId)).toBe('FAILED');
  return { orderId, code: await codeOf(orderId) };
}

describe("the back office's report of a FAILED order it has", () => {
  it('revives it, COMPLETED, its gift card share taken again; the same report again answers the same', async () => {
    const giftCard = await card(t, 100);
    const book = await stockedBook(t, shop, 3, 20);
    const { orderId, code } = await failedOrder(giftCard, [[book, 1]]);
    // FAILED gave the card its share back; the copy sold at processing stays sold.
    expect(await balanceOf(giftCard)).toBe(100);
    expect([await stockOf(book), await reservedOf(book)]).toEqual([2, 0]);

    const createdAt = Date.now() - 8 * HOUR;
    const reported = await report(code, 'Shipped', createdAt);
    expect(reported.statusCode, reported.body).toBe(200);
    expect(reported.json()).toMatchObject({ code, status: 'COMPLETED' });
    expect(await orderStatus(db(), orderId)).toBe('COMPLETED');
    expect(await balanceOf(giftCard)).toBe(74.1);
    expect([await stockOf(book), await reservedOf(book)]).toEqual([2, 0]);
    expect((await statusHistory(db(), orderId)).slice(-2)).toEqual([
      expect.objectContaining({ to_status: 'FAILED', cause: expect.stringContaining('stuck in') }),
      { from_status: 'FAILED', to_status: 'COMPLETED', cause: 'back office reported its status Shipped' },
    ]);

    // The same report again (its answer lost): the same answer, nothing taken twice.
    const again = await report(code, 'Shipped', createdAt);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(reported.json());
    expect(await balanceOf(giftCard)).toBe(74.1);
    expect((await statusHistory(db(), orderId)).filter((change) => change.to_status === 'COMPLETED')).toHaveLength(1);
    expect((await refusedRevivals()).map((line) => line.orderId)).not.toContain(orderId);
  });

  it("takes its discount code's use and its e-book's download again", async () => {
    expect((await importLines(t, 'discount-codes', [{ code: 'REVIVE', percent: 10, maxUses: 5 }])).statusCode).toBe(200);
    const usesOf = async () =>
      Number(
        (await db().selectFrom('discount_code').select('used_count').where('code', '=', 'REVIVE').executeTakeFirstOrThrow()).used_count,
      );
    const ebook = await createProduct(db(), {
      name: 'E-raamat',
      type: 'EBOOK',
      binding: 'EPUB',
      deliveryTime: 'INSTANT_DOWNLOAD',
      price: 8,
    });
    const giftCard = await card(t, 100);
    const { orderId, code } = await failedOrder(
      giftCard,
      [
        [await stockedBook(t, shop, 3, 20), 1],
        [ebook, 1],
      ],
      'REVIVE',
    );
    const entitled = () => db().selectFrom('order_entitlement').select('product_id').where('order_id', '=', orderId).execute();
    expect(await entitled()).toEqual([]);
    expect(await usesOf()).toBe(0);
    expect(await balanceOf(giftCard)).toBe(100);

    const reported = await report(code, 'Shipped', Date.now() - 8 * HOUR);
    expect(reported.statusCode, reported.body).toBe(200);
    expect(await orderStatus(db(), orderId)).toBe('COMPLETED');
    expect((await entitled()).map((row) => Number(row.product_id))).toEqual([ebook]);
    expect(await usesOf()).toBe(1);
    expect(await balanceOf(giftCard)).toBeLessThan(100);
  });

  it('is a 409 that changes nothing when its gift card was spent since', async () => {
    const giftCard = await card(t, 100);
    const { orderId, code } = await failedOrder(giftCard, [[await stockedBook(t, shop, 3, 20), 1]]);
    expect(await balanceOf(giftCard)).toBe(100);
    // The buyer spends the card's money given back on another order (90.00 of it).
    const other = await fill(t, { ip: '10.0.9.2' }, [[await stockedBook(t, shop, 3, 84.1), 1]]);
    expect((await call(t, 'POST', '/basket/add-gift-card', other, { code: giftCard })).statusCode).toBe(200);
    const spent = await checkout(t, other, checkoutForm(shop));
    expect(spent.statusCode, spent.body).toBe(200);
    const left = await balanceOf(giftCard);
    expect(left).toBeLessThan(25.9);
    const before = await db().selectFrom('customer_order').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
    const historyBefore = await statusHistory(db(), orderId);

    const createdAt = Date.now() - 8 * HOUR;
    const reported = await report(code, 'Shipped', createdAt);
    expect(reported.statusCode, reported.body).toBe(409);
    expectErrorBody(reported, 409, 'Conflict');
    expect(reported.json().message).toContain(`${code} jääb olekusse FAILED: selle kinkekaardid`);
    expect(await db().selectFrom('customer_order').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow()).toEqual(before);
    expect(await statusHistory(db(), orderId)).toEqual(historyBefore);
    expect(await balanceOf(giftCard)).toBe(left);

    // Recorded for the operators, who settle it by hand: the back office may have shipped it.
    const refusal = {
      orderId,
      orderCode: code,
      reason: 'reviveCardsShort',
      reportedStatus: 'Shipped',
      reports: 1,
      firstRefusedAt: expect.any(String),
      lastRefusedAt: expect.any(String),
    };
    expect(await refusedRevivals()).toContainEqual(refusal);
    const gauge = await refusedGauge();
    expect(gauge).toBeGreaterThanOrEqual(1);

    // Sent again, the same answer; counted as one more report of the same order.
    const again = await report(code, 'Delivered', createdAt);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual(reported.json());
    expect(await orderStatus(db(), orderId)).toBe('FAILED');
    expect(await refusedRevivals()).toContainEqual({ ...refusal, reportedStatus: 'Delivered', reports: 2 });
    expect(await refusedGauge()).toBe(gauge);

    // Settled by the shop (here: the order leaves FAILED), it leaves the list and the gauge.
    await db().updateTable('customer_order').set({ status: 'CANCELLED' }).where('id', '=', orderId).execute();
    expect((await refusedRevivals()).map((line) => line.orderId)).not.toContain(orderId);
    expect(await refusedGauge()).toBe(gauge! - 1);
  });

  it('is a 409 that changes nothing when the gift card it bought was issued, then voided', async () => {
    const voucher = await createProduct(db(), { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
    const giftCard = await card(t, 100);
    const bought = { amount: 10, recipientName: 'Jaan Tamm', recipientEmail: 'jaan@example.ee', deliveryDate: dateIn(0) };
    const added = await call(t, 'POST', '/basket/add-product', { ip: '10.0.9.3' }, { productId: voucher, quantity: 1, giftCard: bought });
    expect(added.statusCode, added.body).toBe(200);
    const start = { ip: '10.0.9.3', token: added.headers['basket-token'] as string };
    const { orderId, code } = await failedOrder(giftCard, [[await stockedBook(t, shop, 3, 20), 1]], undefined, start);
    const issued = await db().selectFrom('gift_card').select(['balance_cents', 'expires_at']).where('order_id', '=', orderId).execute();
    expect(issued).toEqual([expect.objectContaining({ balance_cents: 0 })]);
    const before = await db().selectFrom('customer_order').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();

    const createdAt = Date.now() - 8 * HOUR;
    const reported = await report(code, 'Shipped', createdAt);
    expectErrorBody(reported, 409, 'Conflict');
    expect(reported.json().message).toContain(`${code} jääb olekusse FAILED: selle ostetud kinkekaardid tühistati`);
    expect(await db().selectFrom('customer_order').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow()).toEqual(before);
    expect(await balanceOf(giftCard)).toBe(100);
    expect(await refusedRevivals()).toContainEqual(
      expect.objectContaining({ orderId, orderCode: code, reason: 'reviveBoughtCardsVoided', reportedStatus: 'Shipped', reports: 1 }),
    );

    // A record that cannot be written (here: its table gone) leaves the 409 "do not ship" as it is, not a 500.
    await sql`alter table order_revival_refusal rename to order_revival_refusal_away`.execute(db());
    try {
      const unrecorded = await report(code, 'Shipped', createdAt);
      expect(unrecorded.statusCode, unrecorded.body).toBe(409);
      expect(unrecorded.json()).toEqual(reported.json());
    } finally {
      await sql`alter table order_revival_refusal_away rename to order_revival_refusal`.execute(db());
    }
  });
});
