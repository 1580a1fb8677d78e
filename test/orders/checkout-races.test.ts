import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveOrder, PAID } from '../../src/modules/orders/order-states.js';
import { createProduct } from '../helpers/catalogue.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { reservedQuantity, rowCount } from '../helpers/table-counts.js';
import type { TestApp } from '../helpers/test-app.js';
import { call, checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';

// Nothing twice: the last copies sell once, a double submit answers the first order, a callback
// repeated or forged moves nothing twice, and a refused checkout writes nothing.

let t: TestApp;
let origin: string;
let shop: Shop;

beforeAll(async () => {
  ({ t, origin } = await createListeningApp({ env: { CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' } }));
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});

const db = () => t.database.db;
const countOrders = () => rowCount(db(), 'customer_order');
const reserved = (productId: number) => reservedQuantity(db(), productId);

describe('the last copies sell once', () => {
  it('of 20 simultaneous checkouts for 3 copies exactly 3 succeed; the rest get a 409 naming the product', async () => {
    const book = await stockedBook(t, shop, 3);
    const name = (await db().selectFrom('product').select('name').where('id', '=', book).executeTakeFirstOrThrow()).name;
    const shoppers = await Promise.all(Array.from({ length: 20 }, () => fill(t, {}, [[book, 1]])));
    const before = await countOrders();
    const answers = await Promise.all(shoppers.map((who) => checkout(t, who, checkoutForm(shop))));
    const codes = answers.map((answer) => answer.statusCode).sort();
    expect(codes.filter((code) => code === 200)).toHaveLength(3);
    expect(codes.filter((code) => code === 409)).toHaveLength(17);
    for (const refused of answers.filter((answer) => answer.statusCode === 409)) expect(refused.json().message).toContain(name);
    expect(await countOrders()).toBe(before + 3);
    expect(await reserved(book)).toBe(3);
    // A refused shopper keeps the basket: the refusal wrote nothing.
    const loser = shoppers[answers.findIndex((answer) => answer.statusCode === 409)]!;
    expect((await call(t, 'GET', '/basket', loser)).json().items).toHaveLength(1);
  });
});

describe('checkouts of the same products in other orders', () => {
  // PostgreSQL: each checkout held the stock of its lines in the order they were added, so two baskets
  // of books A and B added the other way round each held one and waited for the other: a deadlock,
  // and one of them a 500. (SQLite runs one write transaction at a time: it cannot fail there.)
  it('all go through at once, each holding its copies', async () => {
    const a = await stockedBook(t, shop, 1000);
    const b = await stockedBook(t, shop, 1000);
    for (let round = 0; round < 3; round++) {
      const buyers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          fill(
            t,
            { ip: `10.77.${round}.${i + 1}` },
            i % 2 === 0
              ? [
                  [a, 1],
                  [b, 1],
                ]
              : [
                  [b, 1],
                  [a, 1],
                ],
          ),
        ),
      );
      // Each a buyer of their own (an order event's stream is its buyer's email): nothing else makes them take turns.
      const answers = await Promise.all(
        buyers.map((who, i) => checkout(t, who, checkoutForm(shop, { billingEmail: `buyer${round}-${i}@example.ee` }))),
      );
      expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
    }
    expect([await reserved(a), await reserved(b)]).toEqual([48, 48]);
  });
});

describe('a double submit answers the first order', () => {
  it('the same Idempotency-Key five times at once: one order, five times its location', async () => {
    const book = await stockedBook(t, shop, 10);
    const who = await fill(t, {}, [[book, 2]]);
    const before = await countOrders();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => checkout(t, who, checkoutForm(shop), { 'idempotency-key': 'k-123' })),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.json().location)).size).toBe(1);
    expect(await countOrders()).toBe(before + 1);
    expect(await reserved(book)).toBe(2);
    // The key with another body is refused.
    const other = await checkout(t, who, checkoutForm(shop, { notes: 'different' }), { 'idempotency-key': 'k-123' });
    expect(other.statusCode).toBe(409);
  });

  it('without a key, the same unchanged basket sent twice answers the first order', async () => {
    const book = await stockedBook(t, shop, 10);
    const who = await fill(t, {}, [[book, 1]]);
    const first = await checkout(t, who, checkoutForm(shop));
    const second = await checkout(t, who, checkoutForm(shop));
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().location).toBe(first.json().location);
    // Once the basket changes, a new checkout is a new order.
    await fill(t, who, [[book, 1]]);
    const third = await checkout(t, who, checkoutForm(shop));
    expect(third.json().location).not.toBe(first.json().location);
  });
});

describe('callbacks', () => {
  async function paidOrder() {
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [[book, 1]]);
    const { orderId, path } = orderLink((await checkout(t, who, checkoutForm(shop))).json().location);
    const form = (await t.app.inject({ method: 'GET', url: path })).json();
    const reference = new URL(form.url).pathname.split('/').pop()!;
    return { orderId, reference, formUrl: form.url as string };
  }
  const callback = (reference: string) =>
    fetch(`${origin}/payment/test/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payment_reference: reference }),
    });

  it('a callback repeated ten times at once, racing the gateway’s own, moves the order once and queues one processing', async () => {
    const { orderId, reference, formUrl } = await paidOrder();
    const pressed = await t.app.inject({
      method: 'POST',
      url: new URL(formUrl).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=pay',
    });
    expect(pressed.statusCode).toBe(303);
    const answers = await Promise.all(Array.from({ length: 10 }, () => callback(reference)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    await expect
      .poll(
        async () => (await db().selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status,
      )
      .toBe('PENDING_PROCESSING');
    const changes = await db().selectFrom('order_status_change').select('to_status').where('order_id', '=', orderId).execute();
    expect(changes.map((change) => change.to_status)).toEqual(['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING']);
    const jobs = await db().selectFrom('job').select('payload').where('type', '=', 'order.process').execute();
    expect(jobs.filter((job) => JSON.parse(job.payload).orderId === orderId)).toHaveLength(1);
    await expect
      .poll(async () =>
        Number(
          (await db().selectFrom('payment_callback').select('received_count').where('order_id', '=', orderId).executeTakeFirstOrThrow())
            .received_count,
        ),
      )
      .toBeGreaterThanOrEqual(10);
  });

  it('a callback before the payment is finished changes nothing; forged ones are refused and change nothing', async () => {
    const { orderId, reference } = await paidOrder();
    expect((await callback(reference)).status).toBe(200);
    const forged = await callback(`tgp_${'A'.repeat(24)}`);
    expect(forged.status).toBe(404);
    const none = await fetch(`${origin}/payment/test/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(none.status).toBe(400);
    // Unknown names, those of an object's own members among them, are 404s (they were 500s).
    for (const name of ['paypal', 'constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const unknownGateway = await fetch(`${origin}/payment/${name}/callback`, { method: 'POST' });
      expect(unknownGateway.status, name).toBe(404);
    }
    const status = (await db().selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status;
    expect(status).toBe('PENDING_PAYMENT');
  });
});

describe('a payment starts once', () => {
  it('five create-forms at once make one payment at the gateway: each answers its form, or asks to wait while it is made', async () => {
    const book = await stockedBook(t, shop, 5);
    const { orderId, path } = orderLink((await checkout(t, await fill(t, {}, [[book, 1]]), checkoutForm(shop))).json().location);
    const answers = await Promise.all(Array.from({ length: 5 }, () => fetch(`${origin}${path}`)));
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 200 || status === 409),
      statuses.join(),
    ).toBe(true);
    const forms = new Set(await Promise.all(answers.filter((answer) => answer.status === 200).map((answer) => answer.text())));
    expect(forms.size).toBe(1);
    const payments = await db().selectFrom('order_payment').select(['state', 'reference']).where('order_id', '=', orderId).execute();
    expect(payments).toEqual([{ state: 'pending', reference: expect.any(String) }]);
    const changes = await db().selectFrom('order_status_change').select('to_status').where('order_id', '=', orderId).execute();
    expect(changes.map((change) => change.to_status)).toEqual(['NEW', 'PENDING_PAYMENT']);
  });
});

describe('an order moves from the status it is in when it moves', () => {
  it('a full refund that waited for processing to commit cancels the order it finds PROCESSING', async () => {
    const book = await stockedBook(t, shop, 5);
    const { orderId } = orderLink((await checkout(t, await fill(t, {}, [[book, 1]]), checkoutForm(shop))).json().location);
    await db().updateTable('customer_order').set({ status: 'PENDING_PROCESSING' }).where('id', '=', orderId).execute();
    let refunded: boolean | undefined;
    await whileTransactionOpen(
      db(),
      (trx) => moveOrder(trx, { orderId, from: 'PENDING_PROCESSING', to: 'PROCESSING', cause: 'processing', now: Date.now() }),
      // Begun while processing holds the order (PostgreSQL: its row; SQLite: the one write transaction).
      async () =>
        (refunded = await db()
          .transaction()
          .execute((trx) => moveOrder(trx, { orderId, from: [...PAID, 'FAILED'], to: 'CANCELLED', cause: 'refunded', now: Date.now() }))),
      100,
    );
    // It read PENDING_PROCESSING before processing committed, and took the move for somebody else's.
    expect(refunded).toBe(true);
    const changes = await db()
      .selectFrom('order_status_change')
      .select('to_status')
      .where('order_id', '=', orderId)
      .orderBy('id')
      .execute();
    expect(changes.map((change) => change.to_status)).toEqual(['NEW', 'PROCESSING', 'CANCELLED']);
  });
});

describe('refused checkouts write nothing', () => {
  it('an empty basket is a 400', async () => {
    const response = await checkout(t, {}, checkoutForm(shop));
    expect(response.statusCode).toBe(400);
  });

  it('every fault is named at once in a 422, and the basket, stock and orders stay as they were', async () => {
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [[book, 2]]);
    const before = await countOrders();
    const response = await checkout(
      t,
      who,
      checkoutForm(shop, { termsAccepted: false, shippingCountryNavCode: 'XX', paymentMethodId: 'BITCOIN' }),
    );
    expect(response.statusCode).toBe(422);
    expect(
      response
        .json()
        .map((error: { field: string }) => error.field)
        .sort(),
    ).toEqual(['paymentMethodId', 'shippingCountryNavCode', 'termsAccepted']);
    expect(await countOrders()).toBe(before);
    expect(await reserved(book)).toBe(0);
    expect((await call(t, 'GET', '/basket', who)).json().items).toHaveLength(1);
  });

  it('a phone or postcode of spaces alone is a 422 on each, not an order with an empty one', async () => {
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [[book, 1]]);
    const before = await countOrders();
    const blank = { shippingPhone: '     ', shippingPostcode: '  ', billingPhone: ' ( ) - ', billingPostcode: ' - ' };
    const response = await checkout(t, who, checkoutForm(shop, blank));
    expect(response.statusCode, response.body).toBe(422);
    expect(
      response
        .json()
        .map((error: { field: string }) => error.field)
        .sort(),
    ).toEqual(['billingPhone', 'billingPostcode', 'shippingPhone', 'shippingPostcode']);
    expect(await countOrders()).toBe(before);
    expect(await reserved(book)).toBe(0);
    // Spaces, brackets and hyphens inside a real one still pass.
    const placed = await checkout(t, who, checkoutForm(shop, { shippingPhone: '+372 (5) 555-5555', shippingPostcode: 'LV-1050' }));
    expect(placed.statusCode, placed.body).toBe(200);
  });

  it('a basket whose sum passes what an order records is a 422 on lines, not a 500 (PostgreSQL); one just below it is ordered', async () => {
    // 999 preorders at 30,000.00: 29,970,000.00, past the 21,474,836.47 an order's 32-bit cents hold.
    const art = await createProduct(db(), { price: 30_000, availability: 'COMING_SOON', deliveryTime: 'PREORDER' });
    const who = await fill(t, {}, [[art, 999]]);
    const before = await countOrders();
    const response = await checkout(t, who, checkoutForm(shop));
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().map((error: { field: string }) => error.field)).toEqual(['lines']);
    expect(await countOrders()).toBe(before);
    expect((await call(t, 'GET', '/basket', who)).json().items).toHaveLength(1);
    // 715 of them (21,450,000.00 and the courier) fit, and the order records its sums whole.
    expect((await call(t, 'PUT', '/basket/change-quantity', who, { productId: art, quantity: 715 })).statusCode).toBe(200);
    const placed = await checkout(t, who, checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
    const order = await db()
      .selectFrom('customer_order')
      .select(['subtotal_cents', 'total_cents'])
      .where('id', '=', orderLink(placed.json().location).orderId)
      .executeTakeFirstOrThrow();
    expect([Number(order.subtotal_cents), Number(order.total_cents)]).toEqual([2_145_000_000, 2_145_000_590]);
  });

  it('malformed bodies and headers are 4xx, never 500', async () => {
    const book = await stockedBook(t, shop, 5);
    const who = await fill(t, {}, [[book, 1]]);
    for (const body of [{}, { ...checkoutForm(shop), shippingEmail: 'nope' }, { ...checkoutForm(shop), deliveryMethodId: 'x' }, []]) {
      const response = await checkout(t, who, body);
      expect([400, 422], JSON.stringify(body)).toContain(response.statusCode);
    }
    expect((await checkout(t, { token: 'not a token' }, checkoutForm(shop))).statusCode).toBe(400);
    expect((await checkout(t, who, checkoutForm(shop), { 'idempotency-key': 'x'.repeat(300) })).statusCode).toBe(400);
    const unknownMethod = await checkout(t, who, checkoutForm(shop, { deliveryMethodId: 999999 }));
    expect(unknownMethod.statusCode).toBe(422);
    expect(unknownMethod.json().map((error: { field: string }) => error.field)).toContain('deliveryMethodId');
    expect(await reserved(book)).toBe(0);
  });
});
