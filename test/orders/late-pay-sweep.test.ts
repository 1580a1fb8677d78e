import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { givenUpWithOpenPayment } from '../../src/modules/orders/processing/processing.repository.js';
import { call } from '../basket/helpers.js';
import { card, ledger } from '../gift-cards/helpers.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook } from './helpers.js';
import { settleEveryPay, sweepDepsOf } from './everypay-helpers.js';
import { cardPayment, orderStatus, productStock, startCardShop, type CardShop } from './processing-helpers.js';

// The shopper pays on EveryPay's page after the sweep gave the order up (the page was still open when
// EveryPay said "initial" to the sweep), and never comes back; EveryPay's callback is lost (this shop's
// EveryPay posts none). Only the sweep can learn of the payment: it asks EveryPay about a given-up
// order's payment still open in the shop's rows, for as long as that payment may be paid.

let s: CardShop;
beforeAll(async () => {
  s = await startCardShop();
});
afterEach(() => settleEveryPay(s));
afterAll(() => s?.close());

const db = () => s.t.database.db;
const HOUR = 3_600_000;

/** A card payment whose order the sweep cancels (EveryPay still says "initial"). */
async function givenUp() {
  const order = await cardPayment(s, { stock: 3, quantity: 1 });
  await db()
    .updateTable('customer_order')
    .set({ created_at: Date.now() - 40 * 60_000, status_changed_at: Date.now() - 31 * 60_000 })
    .where('id', '=', order.orderId)
    .execute();
  expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({ ran: true, result: expect.objectContaining({ cancelled: 1 }) });
  expect(await orderStatus(db(), order.orderId)).toBe('CANCELLED');
  expect((await productStock(db(), order.productId)).reserved).toBe(0);
  return order;
}

const asked = (reference: string) => s.everypay.requests.filter((request) => request.path.includes(reference)).length;

it('a payment settled after the sweep cancelled its order, never returned from, pays the order at the next sweep', async () => {
  const order = await givenUp();
  await s.everypay.settle(order.reference);

  // The next sweeps: the one right after the cancel asked already; one ten minutes later asks again.
  const result = await sweepOrders(sweepDepsOf(s.t), Date.now() + 11 * 60_000);
  expect(result).toEqual({ ran: true, result: expect.objectContaining({ paid: 1 }) });
  expect(await orderStatus(db(), order.orderId)).toBe('PENDING_PROCESSING');
  expect((await productStock(db(), order.productId)).reserved).toBe(1);

  // Settled in the shop's rows: later sweeps ask nothing more about it.
  const before = asked(order.reference);
  await sweepOrders(sweepDepsOf(s.t), Date.now() + 30 * 60_000);
  expect(asked(order.reference)).toBe(before);
});

it('a given-up order whose payment stays open is asked about once in a while, and no longer once its payment can no longer be paid', async () => {
  const order = await givenUp();
  const cancelledAt = Date.now();
  const before = asked(order.reference);
  // Asked once, then not again at the very next sweep.
  await sweepOrders(sweepDepsOf(s.t), cancelledAt + 11 * 60_000);
  expect(asked(order.reference)).toBe(before + 1);
  await sweepOrders(sweepDepsOf(s.t), cancelledAt + 13 * 60_000);
  expect(asked(order.reference)).toBe(before + 1);
  // Long after it was given up: not asked, even paid.
  await s.everypay.settle(order.reference);
  await sweepOrders(sweepDepsOf(s.t), cancelledAt + 25 * HOUR);
  expect(asked(order.reference)).toBe(before + 1);
  expect(await orderStatus(db(), order.orderId)).toBe('CANCELLED');
});

it('a given-up order whose payment EveryPay has abandoned is asked about no more', async () => {
  const order = await givenUp();
  await s.everypay.abandon(order.reference);
  const cancelledAt = Date.now();
  const before = asked(order.reference);
  await sweepOrders(sweepDepsOf(s.t), cancelledAt + 11 * 60_000);
  expect(asked(order.reference)).toBe(before + 1);
  await sweepOrders(sweepDepsOf(s.t), cancelledAt + 30 * 60_000);
  expect(asked(order.reference)).toBe(before + 1);
  expect(await orderStatus(db(), order.orderId)).toBe('CANCELLED');
});

it('a late settle found so, whose gift card was spent meanwhile, leaves the order given up and is refunded whole once', async () => {
  const code = await card(s.t, 10);
  /** A guest's checkout of a book of `price` with the card on the basket, by card at EveryPay. */
  const withCard = async (price: number) => {
    const who = await fill(s.t, {}, [[await stockedBook(s.t, s.shop, 5, price), 1]]);
    expect((await call(s.t, 'POST', '/basket/add-gift-card', who, { code })).statusCode).toBe(200);
    const placed = await checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }));
    expect(placed.statusCode, placed.body).toBe(200);
    return orderLink(placed.json().location);
  };
  const link = await withCard(20);
  const form = await s.t.app.inject({ method: 'GET', url: link.path });
  const reference = (form.json() as { fields: Record<string, string> }).fields.payment_reference!;
  await db()
    .updateTable('customer_order')
    .set({ created_at: Date.now() - 40 * 60_000, status_changed_at: Date.now() - 31 * 60_000 })
    .where('id', '=', link.orderId)
    .execute();
  await sweepOrders(sweepDepsOf(s.t), Date.now());
  expect(await orderStatus(db(), link.orderId)).toBe('CANCELLED');
  // Another basket takes the card's 10.00 released by the cancel; then the first payment settles.
  await withCard(15);
  expect((await ledger(db(), code)).balanceCents).toBe(0);
  await s.everypay.settle(reference);

  const refunds = () => s.everypay.requests.filter((request) => request.path === '/api/v4/payments/refund').length;
  const before = refunds();
  const result = await sweepOrders(sweepDepsOf(s.t), Date.now() + 11 * 60_000);
  expect(result).toEqual({ ran: true, result: expect.objectContaining({ paid: 0, refunded: 1 }) });
  expect(await orderStatus(db(), link.orderId)).toBe('CANCELLED');
  expect(s.everypay.payment(reference)).toMatchObject({ state: 'refunded', standingCents: 0 });
  await sweepOrders(sweepDepsOf(s.t), Date.now() + 30 * 60_000);
  expect(refunds()).toBe(before + 1);
});

it("reads the given-up orders of the watch's window through customer_order_status_idx, their payments through order_payment_order_idx", async () => {
  if (s.t.database.engine !== 'sqlite') return;
  const { db: recorded, statements } = recordingStatements(db());
  await givenUpWithOpenPayment(recorded, Date.now() - HOUR, Date.now(), { at: Date.now() - HOUR / 2, id: 1 }, 100);
  const plan = await planOfStatement(db(), statements[0]!);
  expect(plan).toMatch(/customer_order_status_idx \(status=\? AND status_changed_at>\?\)/);
  expect(plan).toMatch(/order_payment_order_idx \(order_id=\?\)/);
  expect(plan).not.toMatch(/SCAN/);
});
