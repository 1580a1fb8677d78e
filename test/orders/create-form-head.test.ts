import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';

// A HEAD of GET /bank/create-form (a link checker, a mail scanner, a browser's prefetch of the
// location checkout answered) asks whether the link is there: it starts no payment, calls no
// gateway and moves no order, yet answers the status the GET would.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  // The test gateway's callback goes nowhere (the discard port): only the start of a payment is looked at.
  t = await createTestApp({ env: { TEST_GATEWAY: 'on', PUBLIC_URL: 'http://127.0.0.1:9' } });
  shop = await setUpShop(t);
});
afterAll(() => t?.close());

async function placedOrder(overrides: Record<string, unknown> = {}) {
  const who = await fill(t, {}, [[await stockedBook(t, shop, 5), 1]]);
  const placed = await checkout(t, who, checkoutForm(shop, overrides));
  expect(placed.statusCode, placed.body).toBe(200);
  return orderLink(placed.json().location);
}

const db = () => t.database.db;
const paymentsOf = async (orderId: number) =>
  (await db().selectFrom('order_payment').select('id').where('order_id', '=', orderId).execute()).length;
const gatewayPayments = async () =>
  Number(
    (
      await db()
        .selectFrom('test_gateway_payment')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const statusOf = async (orderId: number) =>
  (await db().selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status;
const head = (url: string) => t.app.inject({ method: 'HEAD', url });

describe('HEAD /bank/create-form', () => {
  it('starts no payment and calls no gateway; the GET after it starts the one payment', async () => {
    const link = await placedOrder();
    const atGateway = await gatewayPayments();
    const asked = await head(link.path);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toBe('');
    expect(await paymentsOf(link.orderId)).toBe(0);
    expect(await gatewayPayments()).toBe(atGateway);
    expect(await statusOf(link.orderId)).toBe('NEW');

    const form = await t.app.inject({ method: 'GET', url: link.path });
    expect(form.statusCode, form.body).toBe(200);
    expect(form.json()).toMatchObject({ method: expect.any(String), url: expect.stringContaining('/payment/test/pay/') });
    expect(await paymentsOf(link.orderId)).toBe(1);
    expect(await gatewayPayments()).toBe(atGateway + 1);
    // Once started, a HEAD still changes nothing.
    expect((await head(link.path)).statusCode).toBe(200);
    expect(await paymentsOf(link.orderId)).toBe(1);
    expect(await statusOf(link.orderId)).toBe('PENDING_PAYMENT');
  });

  it('does not send an order paid at hand-over on to processing', async () => {
    const link = await placedOrder({ paymentMethodId: 'CASH_ON_DELIVERY' });
    expect((await head(link.path)).statusCode).toBe(200);
    expect(await statusOf(link.orderId)).toBe('NEW');
    expect((await t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
    expect(await statusOf(link.orderId)).toBe('PENDING_PROCESSING');
  });

  it('answers what the GET would: a 404 for a wrong checksum, a 409 for an order that cannot pay', async () => {
    const link = await placedOrder();
    expect((await head(`/bank/create-form?orderId=${link.orderId}&checksum=${'0'.repeat(link.checksum.length)}`)).statusCode).toBe(404);
    await db().updateTable('customer_order').set({ status: 'CANCELLED' }).where('id', '=', link.orderId).execute();
    expect((await head(link.path)).statusCode).toBe(409);
    expectErrorBody(await t.app.inject({ method: 'GET', url: link.path }), 409, 'Conflict');
    expect(await paymentsOf(link.orderId)).toBe(0);
  });
});
