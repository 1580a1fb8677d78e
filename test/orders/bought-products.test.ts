import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as boughtProductMigration from '../../src/db/migrations/2026_11_28_0610_create_bought_product.js';
import type { Db } from '../../src/db/database.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { sweepOrders, type OrderSweepDeps } from '../../src/modules/orders/index.js';
import { moveOrder } from '../../src/modules/orders/order-states.js';
import type { Who } from '../basket/helpers.js';
import { createProduct, setStock } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { overlappingWrites } from '../helpers/overlapping-writes.js';
import { sweepDepsOf } from './everypay-helpers.js';
import { checkout, checkoutForm, fill, orderLink } from './helpers.js';
import { age, orderStatus, startCardShop, type CardShop } from './processing-helpers.js';

// GET /bought-product reads what each client's paid orders bought from bought_product, which the
// order state machine keeps in the transaction of each status change. Orders go through their real
// transitions here: checkout, a card payment at the local EveryPay server and the shopper's return
// (paid), processing, an operator's full refund through EveryPay (cancelled), the sweep (a stuck
// order failed, an unpaid one cancelled) and a payment settling after that (paid again). After each
// step the list is held, page by page, to what the old aggregation of the paid order lines gives.

const PAID = ['PENDING_PROCESSING', 'PROCESSING', 'PENDING_NAV_PROCESSING', 'COMPLETED'] as const;

let s: CardShop;
let key: string;
let sweep: OrderSweepDeps;
const db = () => s.t.database.db;
const p = {} as Record<'book' | 'atlas' | 'ebook' | 'outlet', number>;
type Client = Who & { clientAccountId: number; storeCode: string };
let alice: Client;
let bob: Client;
let carol: Client;
const client = async (store: string): Promise<Client> => {
  const customer = await createCustomer(db(), { store });
  return { bearer: customer.token, store, clientAccountId: customer.clientAccountId, storeCode: store };
};

beforeAll(async () => {
  s = await startCardShop();
  key = await createApiKey(db(), 'back-office', Date.now());
  sweep = sweepDepsOf(s.t);
  p.book = await createProduct(db(), { name: 'Kevade', price: 12 });
  p.atlas = await createProduct(db(), { name: 'Atlas', price: 30 });
  p.ebook = await createProduct(db(), {
    name: 'Kevade (e-raamat)',
    type: 'EBOOK',
    binding: 'EPUB',
    deliveryTime: 'INSTANT_DOWNLOAD',
    price: 8,
  });
  p.outlet = await createProduct(db(), { name: 'Outlet', price: 10, stores: ['WEB', 'WEB2'] });
  for (const id of [p.book, p.atlas, p.outlet]) await setStock(db(), id, s.shop.shopId, 50);
  alice = await client('WEB');
  bob = await client('WEB');
  carol = await client('WEB2');
});
afterAll(() => s?.close());

interface Bought {
  id: number;
  code: string;
  reference: string;
}

/** Checkout by card and create-form (PENDING_PAYMENT); paid at EveryPay and back from it unless `pay` is false. */
async function buy(who: Client, items: Array<[number, number]>, pay = true): Promise<Bought> {
  const filled = await fill(s.t, { bearer: who.bearer, store: who.store }, items);
  const placed = await checkout(s.t, filled, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }));
  expect(placed.statusCode, placed.body).toBe(200);
  const link = orderLink(placed.json().location);
  const form = await s.t.app.inject({ method: 'GET', url: link.path });
  expect(form.statusCode, form.body).toBe(200);
  const reference = (form.json() as { fields: Record<string, string> }).fields.payment_reference!;
  const { code } = await db().selectFrom('customer_order').select('code').where('id', '=', link.orderId).executeTakeFirstOrThrow();
  const order = { id: link.orderId, code: code!, reference };
  if (pay) await settle(order);
  return order;
}

/** EveryPay settles the payment and the shopper comes back: return-internal asks EveryPay and applies it. */
async function settle(order: Bought) {
  await s.everypay.settle(order.reference);
  const back = new URL(s.everypay.payment(order.reference)!.customerUrl);
  const response = await s.t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(response.statusCode, response.body).toBe(303);
  expect(await orderStatus(db(), order.id)).toBe('PENDING_PROCESSING');
}

/**
 * EveryPay settles a payment after the sweep gave its order up (CANCELLED), and says so in a
 * callback (the shopper's return no longer asks about an order given up): the order is paid after all.
 */
async function settleLate(order: Bought) {
  await s.everypay.settle(order.reference);
  const response = await s.t.app.inject({
    method: 'POST',
    url: '/payment/everypay/callback',
    payload: { payment_reference: order.reference },
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toEqual({ outcome: 'applied' });
  expect(await orderStatus(db(), order.id)).toBe('PENDING_PROCESSING');
}

/** An operator's full refund through EveryPay: the order is CANCELLED. */
async function refund(order: Bought) {
  const response = await s.t.app.inject({
    method: 'POST',
    url: `/admin/orders/${order.code}/refund`,
    headers: { authorization: `Bearer ${key}` },
    payload: {},
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toMatchObject({ status: 'CANCELLED' });
}

interface Item {
  productId: number;
  code: string;
  title: string;
  type: string;
  quantity: number;
  lastBoughtAt: string;
  orderCode: string;
  download: { entitled: boolean; available: boolean } | null;
}

/** Every page of GET /bought-product, two a page, each page's headers checked against the total. */
async function listed(who: Client): Promise<Item[]> {
  const items: Item[] = [];
  for (let page = 1; ; page += 1) {
    const response = await s.t.app.inject({
      method: 'GET',
      url: `/bought-product?page=${page}&per-page=2`,
      headers: { authorization: `Bearer ${who.bearer}`, store: who.store! },
    });
    expect(response.statusCode, response.body).toBe(200);
    const total = Number(response.headers['x-pagination-total-count']);
    expect(response.headers['x-pagination-page-count']).toBe(String(Math.ceil(total / 2)));
    items.push(...(response.json() as Item[]));
    if (page >= Math.ceil(total / 2)) {
      expect(items).toHaveLength(total);
      return items;
    }
  }
}

/**
 * What the list was before bought_product, computed from the orders themselves: the client's paid
 * orders in its store, their lines grouped by product, the quantity summed, the newest order's
 * first line of the product for code, title and type, newest last order first, then product id.
 */
async function oldAggregation(who: Client): Promise<Item[]> {
  const orders = await db()
    .selectFrom('customer_order')
    .select(['id', 'code', 'created_at'])
    .where('client_account_id', '=', who.clientAccountId)
    .where('store_code', '=', who.storeCode)
    .where('status', 'in', [...PAID])
    .execute();
  const byId = new Map(orders.map((order) => [Number(order.id), order]));
  const lines =
    orders.length === 0
      ? []
      : await db()
          .selectFrom('order_line')
          .selectAll()
          .where('order_id', 'in', [...byId.keys()])
          .execute();
  const entitled = new Set(
    (await db().selectFrom('order_entitlement').select('product_id').where('client_account_id', '=', who.clientAccountId).execute()).map(
      (row) => Number(row.product_id),
    ),
  );
  const groups = new Map<number, { quantity: number; last: number }>();
  for (const line of lines) {
    const productId = Number(line.product_id);
    const group = groups.get(productId) ?? { quantity: 0, last: 0 };
    group.quantity += Number(line.quantity);
    group.last = Math.max(group.last, Number(line.order_id));
    groups.set(productId, group);
  }
  return [...groups]
    .sort(([a, x], [b, y]) => y.last - x.last || a - b)
    .map(([productId, { quantity, last }]) => {
      const line = lines
        .filter((entry) => Number(entry.order_id) === last && Number(entry.product_id) === productId)
        .sort((x, y) => x.position - y.position)[0]!;
      const order = byId.get(last)!;
      return {
        productId,
        code: line.product_code,
        title: line.title,
        type: line.product_type,
        quantity,
        lastBoughtAt: new Date(Number(order.created_at)).toISOString(),
        orderCode: order.code ?? '',
        // No file of any of them is uploaded here (test/downloads/bought-file-available.test.ts has them).
        download: line.is_digital ? { entitled: entitled.has(productId), available: false } : null,
      };
    });
}

/** The list as [product, quantity, order code], after checking every field against the old aggregation. */
async function boughtBy(who: Client): Promise<Array<[number, number, string]>> {
  const items = await listed(who);
  expect(items).toEqual(await oldAggregation(who));
  return items.map((item) => [item.productId, item.quantity, item.orderCode]);
}

const everybody = async () => ({ alice: await boughtBy(alice), bob: await boughtBy(bob), carol: await boughtBy(carol) });

describe('GET /bought-product through the orders’ real transitions', () => {
  const orders = {} as Record<'a1' | 'a2' | 'a3' | 'a4' | 'unpaid' | 'b1' | 'c1', Bought>;

  it('counts a paid order, and not an unpaid one', async () => {
    orders.a1 = await buy(alice, [
      [p.book, 2],
      [p.ebook, 1],
    ]);
    await s.t.drainJobs();
    orders.unpaid = await buy(alice, [[p.book, 5]], false);
    expect(await everybody()).toEqual({
      alice: [
        [p.book, 2, orders.a1.code],
        [p.ebook, 1, orders.a1.code],
      ],
      bob: [],
      carol: [],
    });
    expect((await listed(alice))[1]!.download).toEqual({ entitled: true, available: false });
  });

  it('adds a second order of the same product, which becomes the last, with the title that order has', async () => {
    await db().updateTable('product').set({ name: 'Kevade (2. trükk)' }).where('id', '=', p.book).execute();
    orders.a2 = await buy(alice, [
      [p.atlas, 1],
      [p.book, 1],
    ]);
    await s.t.drainJobs();
    expect((await everybody()).alice).toEqual([
      [p.book, 3, orders.a2.code],
      [p.atlas, 1, orders.a2.code],
      [p.ebook, 1, orders.a1.code],
    ]);
    expect((await listed(alice))[0]!.title).toBe('Kevade (2. trükk)');
  });

  it("keeps two clients and two stores apart: nobody sees another's", async () => {
    orders.b1 = await buy(bob, [[p.book, 1]]);
    orders.c1 = await buy(carol, [[p.outlet, 2]]);
    orders.a3 = await buy(alice, [[p.outlet, 1]]);
    await s.t.drainJobs();
    expect(await everybody()).toEqual({
      alice: [
        [p.outlet, 1, orders.a3.code],
        [p.book, 3, orders.a2.code],
        [p.atlas, 1, orders.a2.code],
        [p.ebook, 1, orders.a1.code],
      ],
      bob: [[p.book, 1, orders.b1.code]],
      carol: [[p.outlet, 2, orders.c1.code]],
    });
  });

  it('takes a refunded order out: the quantity falls, the last order moves back, a product no paid order has goes', async () => {
    await refund(orders.a2);
    const after = await everybody();
    expect(after.alice).toEqual([
      [p.outlet, 1, orders.a3.code],
      [p.book, 2, orders.a1.code],
      [p.ebook, 1, orders.a1.code],
    ]);
    expect((await listed(alice))[1]!.title).toBe('Kevade');
    expect(after.bob).toEqual([[p.book, 1, orders.b1.code]]);
  });

  it('takes a failed order out, and counts a cancelled one again when its payment settles late, as bought before a newer order', async () => {
    // a3's hand-off to a back office that does not answer is stuck past the limit (FAILED; without a
    // back office it would wait for the pull feed); the unpaid order is unpaid past its limit (CANCELLED).
    await age(db(), orders.a3.id, 9 * 60);
    await age(db(), orders.unpaid.id, 31);
    const backoffice = { url: 'http://127.0.0.1:9/orders', secret: 'x'.repeat(32), timeoutMs: 500 };
    const swept = await sweepOrders({ ...sweep, config: { ...sweep.config, backoffice } }, Date.now());
    expect(swept).toEqual({ ran: true, result: expect.objectContaining({ failed: 1, cancelled: 1 }) });
    expect(await orderStatus(db(), orders.a3.id)).toBe('FAILED');
    expect(await orderStatus(db(), orders.unpaid.id)).toBe('CANCELLED');
    expect(await everybody()).toEqual({
      alice: [
        [p.book, 2, orders.a1.code],
        [p.ebook, 1, orders.a1.code],
      ],
      bob: [[p.book, 1, orders.b1.code]],
      carol: [[p.outlet, 2, orders.c1.code]],
    });

    // A newer order of the book first: the older one paid late adds its copies and leaves it last.
    orders.a4 = await buy(alice, [[p.book, 1]]);
    await settleLate(orders.unpaid);
    await s.t.drainJobs();
    expect((await everybody()).alice).toEqual([
      [p.book, 8, orders.a4.code],
      [p.ebook, 1, orders.a1.code],
    ]);
  });

  it('migration 0610 fills bought_product from the orders with what the transitions kept', async () => {
    const kept = () =>
      db()
        .selectFrom('bought_product')
        .selectAll()
        .orderBy('client_account_id')
        .orderBy('store_code')
        .orderBy('product_id')
        .execute()
        .then((rows) => rows.map((row) => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, String(value)]))));
    const before = await kept();
    expect(before.length).toBe(4);
    await boughtProductMigration.down(db());
    // In a transaction, as the Migrator runs it: on PostgreSQL it locks the tables it reads (LOCK TABLE needs one).
    await db()
      .transaction()
      .execute((trx) => boughtProductMigration.up(trx));
    expect(await kept()).toEqual(before);
    expect(await everybody()).toEqual({
      alice: [
        [p.book, 8, orders.a4.code],
        [p.ebook, 1, orders.a1.code],
      ],
      bob: [[p.book, 1, orders.b1.code]],
      carol: [[p.outlet, 2, orders.c1.code]],
    });
  });

  it('follows a status written without the state machine, as a process of the build before 0610 writes it during a deploy', async () => {
    const placed = await insertOrder(db(), {
      status: 'PENDING_PAYMENT',
      clientAccountId: alice.clientAccountId,
      lines: [{ productId: p.atlas, productCode: 'ATLAS' }],
    });
    const status = (id: number, to: (typeof PAID)[number] | 'CANCELLED') =>
      db().updateTable('customer_order').set({ status: to }).where('id', '=', id).execute();
    await status(placed.id, 'PENDING_PROCESSING');
    await status(orders.a4.id, 'CANCELLED');
    // boughtBy holds each list to the old aggregation of the orders as they now are.
    const book = (list: Array<[number, number, string]>) => list.find(([productId]) => productId === p.book);
    const cancelled = await boughtBy(alice);
    expect(cancelled[0]).toEqual([p.atlas, 1, placed.code]);
    expect(book(cancelled)?.[2]).not.toBe(orders.a4.code);
    // Between two paid states nothing changes; paid again, the order counts (and is the book's last) again.
    await status(placed.id, 'COMPLETED');
    await status(orders.a4.id, 'PENDING_PROCESSING');
    const again = await boughtBy(alice);
    expect(book(again)).toEqual([p.book, book(cancelled)![1] + 1, orders.a4.code]);
  });
});

type Placed = Awaited<ReturnType<typeof insertOrder>>;

// On PostgreSQL the second transaction reaches the product's row while the first holds it; on
// SQLite it waits for the write lock. Orders written as checkout leaves them (NEW), moved by the
// state machine as the payment and refund paths move them.
describe('two transactions moving orders of one client at once', () => {
  it('the last order cancelled while an older one is paid late, either first: the one paid late is last, both counted', async () => {
    for (const cancelFirst of [true, false]) {
      const who = await client('WEB');
      const lines = [{ productId: p.atlas, productCode: 'ATLAS' }];
      const placed: Placed[] = [];
      for (let n = 0; n < 3; n += 1) placed.push(await insertOrder(db(), { status: 'NEW', clientAccountId: who.clientAccountId, lines }));
      const [older, late, last] = placed as [Placed, Placed, Placed];
      const move = (orderId: number, from: 'NEW' | 'PENDING_PROCESSING', to: 'PENDING_PROCESSING' | 'CANCELLED') => (trx: Db) =>
        moveOrder(trx, { orderId, from, to, cause: 'test', now: Date.now() });
      for (const order of [older, last])
        await db()
          .transaction()
          .execute(move(order.id, 'NEW', 'PENDING_PROCESSING'));
      expect(await boughtBy(who)).toEqual([[p.atlas, 2, last.code]]);
      const cancel = move(last.id, 'PENDING_PROCESSING', 'CANCELLED');
      const payLate = move(late.id, 'NEW', 'PENDING_PROCESSING');
      await overlappingWrites(db(), cancelFirst ? cancel : payLate, cancelFirst ? payLate : cancel);
      expect(await boughtBy(who)).toEqual([[p.atlas, 2, late.code]]);
    }
  });
});
