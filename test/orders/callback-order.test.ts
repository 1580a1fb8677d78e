import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { call, type Who } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { answers, CALLBACK_ORDERS, inOrder, type CallbackOrder } from '../helpers/everypay-order.js';
import { expectErrorBody } from '../helpers/http.js';
import { engine } from '../helpers/test-app.js';
import { card, dateIn, ledger } from '../gift-cards/helpers.js';
import {
  checkoutByCard,
  createForm,
  pageOf,
  shopperReturns,
  startEveryPayShop,
  sweepDepsOf,
  type EveryPayShop,
} from './everypay-helpers.js';
import { checkout, checkoutForm, fill, stockedBook } from './helpers.js';
import { age } from './processing-helpers.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';

// A card payment at checkout is told to the shop twice: by the shopper's return (which asks EveryPay)
// and by EveryPay's callback; the unpaid-order sweep asks too, and an operator's refund is answered by
// EveryPay's API and announced by its callback. Both orders are forced here, never left to a race: the
// shop's own call applied first with the callback held until after it, and the callback applied first,
// delivered and answered while the shop's own call to EveryPay is still waiting for its answer. The
// order bought a book and a virtual gift card and was paid in part with a gift card, so one payment
// moves stock, two ledgers and a card to issue. Either way the shopper and the operator are told the
// same, every effect happens once, and the same callback again (twice, twice at once) changes nothing.

let s: EveryPayShop;
let voucher: number;
let operatorKey: string;
beforeAll(async () => {
  // Every test here sends callbacks from one address; the limit is not what is tested.
  s = await startEveryPayShop({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000/1m' });
  voucher = await createProduct(s.t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
  operatorKey = await createApiKey(s.t.database.db, 'back-office', Date.now());
});
afterEach(async () => {
  await s.everypay.releaseCallbacks();
  await s.everypay.callbacksIdle();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

const statusPath = (reference: string) => `/api/v4/payments/${reference}`;
const REFUND_PATH = '/api/v4/payments/refund';

/** The same callback again: twice one after the other, then twice at once; each one answered 200. */
async function repeatCallback(reference: string) {
  const sent = [...(await s.everypay.notify(reference)), ...(await s.everypay.notify(reference))];
  sent.push(...(await s.everypay.notify(reference, { times: 2 })));
  expect(sent.map((callback) => callback.status)).toEqual([200, 200, 200, 200]);
  expect(answers(sent).map(([, answer]) => answer.outcome)).toEqual(Array(4).fill('duplicate'));
}

interface Purchase {
  who: Who;
  orderId: number;
  checksum: string;
  code: string;
  bookId: number;
  /** The gift card that pays 10.00 of it. */
  payWith: string;
  reference: string;
}

/** A client's order of a book (20.00) and a virtual gift card (30.00) with the courier (5.90), 10.00 of it paid by a gift card and the rest (45.90) by card: its payment started at EveryPay. */
async function purchase(): Promise<Purchase> {
  const buyer = await createCustomer(db());
  const who: Who = { bearer: buyer.token };
  const bookId = await stockedBook(s.t, s.shop, 5, 20);
  await fill(s.t, who, [[bookId, 1]]);
  const gift = {
    amount: 30,
    recipientName: 'Jaan Tamm',
    recipientEmail: 'jaan@example.ee',
    message: 'Palju õnne!',
    deliveryDate: dateIn(1),
  };
  const added = await call(s.t, 'POST', '/basket/add-product', who, { productId: voucher, quantity: 1, giftCard: gift });
  expect(added.statusCode, added.body).toBe(200);
  const payWith = await card(s.t, 10);
  const basket = await call(s.t, 'POST', '/basket/add-gift-card', who, { code: payWith });
  expect(basket.json()).toMatchObject({ total: 50, giftCardAmount: 10 });
  const placed = await checkoutByCard(s, who);
  expect(placed.totalCents).toBe(4590);
  const { reference } = await createForm(s, { ...placed, productId: bookId });
  return { who, orderId: placed.orderId, checksum: placed.checksum, code: placed.code, bookId, payWith, reference };
}

const countBy = (values: string[]) =>
  Object.fromEntries([...new Set(values)].sort().map((value) => [value, values.filter((v) => v === value).length]));

/** Everything a payment of the purchase moves, and what its buyer sees. */
async function stateOf(p: Purchase) {
  const [order, history, jobs, inbox, book, payments, purchases, issued, events] = await Promise.all([
    db().selectFrom('customer_order').select('status').where('id', '=', p.orderId).executeTakeFirstOrThrow(),
    db().selectFrom('order_status_change').select('to_status').where('order_id', '=', p.orderId).orderBy('id').execute(),
    db().selectFrom('job').select(['type', 'payload']).execute(),
    db()
      .selectFrom('payment_callback')
      .select(['state', 'outcome', 'received_count'])
      .where('order_id', '=', p.orderId)
      .orderBy('state')
      .execute(),
    db().selectFrom('product').select(['web_stock', 'reserved_quantity']).where('id', '=', p.bookId).executeTakeFirstOrThrow(),
    db().selectFrom('order_payment').select(['state', 'amount_cents', 'refunded_cents']).where('order_id', '=', p.orderId).execute(),
    db().selectFrom('virtual_gift_card_purchase').select(['gift_card_id', 'cancelled_at']).where('order_id', '=', p.orderId).execute(),
    db().selectFrom('gift_card').select(['id', 'balance_cents', 'expires_at']).where('order_id', '=', p.orderId).execute(),
    db().selectFrom('integration_event').select(['type', 'data']).execute(),
  ]);
  const mine = (payload: string) => {
    const parsed = JSON.parse(payload) as { orderId?: number; cardId?: number };
    return parsed.orderId === p.orderId || issued.some((card) => Number(card.id) === parsed.cardId);
  };
  const result = await s.t.app.inject({
    method: 'POST',
    url: '/bank/payment-result',
    payload: { orderId: p.orderId, checksum: p.checksum },
  });
  const detail = await call(s.t, 'GET', `/order/${p.code}`, p.who);
  // The list says what the cards paid as the order's page does, beside the total left to pay.
  const listed = ((await call(s.t, 'GET', '/order', p.who)).json() as Array<{ code: string }>).find((order) => order.code === p.code);
  expect(listed).toMatchObject({ giftCardAmount: detail.json().giftCardAmount, total: detail.json().total });
  return {
    status: order.status,
    moves: history.map((change) => change.to_status),
    jobs: countBy(jobs.filter((job) => mine(job.payload)).map((job) => job.type)),
    events: countBy(
      events
        .filter((event) => (JSON.parse(event.data) as { orderId?: number }).orderId === p.orderId)
        .map((event) => `${event.type} ${(JSON.parse(event.data) as { status: string }).status}`),
    ),
    inbox: inbox.map((entry) => [entry.state, entry.outcome, Number(entry.received_count)]),
    stock: { web: Number(book.web_stock), reserved: Number(book.reserved_quantity) },
    payments: payments.map((payment) => [payment.state, Number(payment.amount_cents), Number(payment.refunded_cents)]),
    atEveryPay: s.everypay.paymentsFor(p.code).map((payment) => [payment.state, payment.standingCents]),
    payingCard: await ledger(db(), p.payWith),
    bought: purchases.map((row) => ({ issued: row.gift_card_id !== null, cancelled: row.cancelled_at !== null })),
    issued: issued.map((row) => Number(row.balance_cents)),
    result: result.json().result,
    seen: { status: detail.json().status, giftCardAmount: detail.json().giftCardAmount, total: detail.json().total },
  };
}

/** The shopper pays or declines on EveryPay's page and comes back to the return, which asks EveryPay. */
function payInOrder(p: Purchase, order: CallbackOrder, action: 'pay' | 'decline') {
  let back = '';
  return inOrder(
    s.everypay,
    order,
    statusPath(p.reference),
    () => shopperReturns(back),
    async () => {
      back = await s.everypay.shopper(p.reference, action);
    },
  );
}

describe.each(CALLBACK_ORDERS)("checkout's card payment: the shopper's return and EveryPay's callback, %s", (order) => {
  const returnOrCallback =
    order === 'answer first'
      ? 'the return applies it, the callback finds it applied'
      : 'the callback applies it, the return finds it applied';

  it(`paid: ${returnOrCallback}; the finished page, paid once, one card issued`, async () => {
    const p = await purchase();
    const { result: returned, sent } = await payInOrder(p, order, 'pay');
    expect(returned.status).toBe(303);
    expect(pageOf(s.t, returned.location)).toBe('finished');
    expect(answers(sent)).toEqual([[200, { outcome: order === 'answer first' ? 'duplicate' : 'applied' }]]);
    const paid = await stateOf(p);
    expect(paid).toEqual({
      status: 'PENDING_PROCESSING',
      moves: ['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING'],
      jobs: { 'gift-card.issue': 1, 'order.process': 1 },
      events: { 'order.created NEW': 1, 'order.status-changed PENDING_PAYMENT': 1, 'order.status-changed PENDING_PROCESSING': 1 },
      inbox: [['settled', 'applied', 2]],
      stock: { web: 5, reserved: 1 },
      payments: [['settled', 4590, 0]],
      atEveryPay: [['settled', 4590]],
      payingCard: expect.objectContaining({ balanceCents: 0, heldCents: 0, kinds: ['IMPORT', 'RESERVE', 'CAPTURE'] }),
      bought: [{ issued: false, cancelled: false }],
      issued: [],
      result: 'SUCCESS',
      seen: { status: 'PENDING_PROCESSING', giftCardAmount: 10, total: 45.9 },
    });
    await repeatCallback(p.reference);
    expect(await stateOf(p)).toEqual({ ...paid, inbox: [['settled', 'applied', 6]] });
    // The jobs run once: one card issued, the buyer told once.
    await s.t.drainJobs();
    const processed = await stateOf(p);
    expect(processed.bought).toEqual([{ issued: true, cancelled: false }]);
    expect(processed.issued).toEqual([3000]);
    expect(processed.jobs).toMatchObject({ 'gift-card.issue': 1, 'order.process': 1, 'gift-card.mail': 2 });
    await repeatCallback(p.reference);
    await s.t.drainJobs();
    expect(await stateOf(p)).toEqual({ ...processed, inbox: [['settled', 'applied', 10]] });
  });

  it(`declined: ${returnOrCallback}; the failed page, the stock and the gift card's share back once, no card issued`, async () => {
    const p = await purchase();
    const { result: returned, sent } = await payInOrder(p, order, 'decline');
    expect(returned.status).toBe(303);
    expect(pageOf(s.t, returned.location)).toBe('failed');
    expect(answers(sent)).toEqual([[200, { outcome: order === 'answer first' ? 'duplicate' : 'applied' }]]);
    const declined = await stateOf(p);
    expect(declined).toEqual({
      status: 'PAYMENT_FAILED',
      moves: ['NEW', 'PENDING_PAYMENT', 'PAYMENT_FAILED'],
      jobs: {},
      events: { 'order.created NEW': 1, 'order.status-changed PENDING_PAYMENT': 1, 'order.status-changed PAYMENT_FAILED': 1 },
      inbox: [['failed', 'applied', 2]],
      stock: { web: 5, reserved: 0 },
      payments: [['failed', 4590, 0]],
      atEveryPay: [['failed', 4590]],
      payingCard: expect.objectContaining({ balanceCents: 1000, heldCents: 0, kinds: ['IMPORT', 'RESERVE', 'RELEASE'] }),
      bought: [{ issued: false, cancelled: true }],
      issued: [],
      result: 'FAILED',
      seen: { status: 'PAYMENT_FAILED', giftCardAmount: 10, total: 45.9 },
    });
    await repeatCallback(p.reference);
    await s.t.drainJobs();
    expect(await stateOf(p)).toEqual({ ...declined, inbox: [['failed', 'applied', 6]] });
  });
});

describe.each(CALLBACK_ORDERS)("an operator's refund: EveryPay's answer and its callback, %s", (order) => {
  const refund = (p: Purchase, body: object) =>
    s.t.app.inject({
      method: 'POST',
      url: `/admin/orders/${p.code}/refund`,
      headers: { authorization: `Bearer ${operatorKey}` },
      payload: body,
    });
  const refundRequests = (p: Purchase) =>
    s.everypay.requests.filter(
      (request) => request.path === REFUND_PATH && (request.body as { payment_reference: string }).payment_reference === p.reference,
    );

  /** The purchase paid (its callback) and processed, its gift card issued. */
  async function processed() {
    const p = await purchase();
    await s.everypay.settle(p.reference);
    await s.t.drainJobs();
    const before = await stateOf(p);
    expect(before).toMatchObject({ issued: [3000], payments: [['settled', 4590, 0]] });
    expect(['PROCESSING', 'PENDING_NAV_PROCESSING', 'COMPLETED']).toContain(before.status);
    return { p, before };
  }

  it('a part refund: 200 with the payment refunded in part, EveryPay refunds it once, the order goes on', async () => {
    const { p, before } = await processed();
    const { result, sent } = await inOrder(s.everypay, order, REFUND_PATH, () => refund(p, { amount: 10 }));
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json()).toMatchObject({ code: p.code, status: before.status, payment: { state: 'refunded', refunded: 10 } });
    expect(answers(sent)).toEqual([[200, { outcome: order === 'answer first' ? 'duplicate' : 'applied' }]]);
    expect(refundRequests(p)).toHaveLength(1);
    const after = await stateOf(p);
    expect(after).toEqual({
      ...before,
      inbox: [['refunded:1000', 'applied', 2], ...before.inbox],
      // The buyer is told of the part refund, once.
      jobs: { ...before.jobs, 'order.refunded-mail': 1 },
      payments: [['refunded', 4590, 1000]],
      atEveryPay: [['refunded', 3590]],
    });
    await repeatCallback(p.reference);
    await s.t.drainJobs();
    expect(await stateOf(p)).toEqual({ ...after, inbox: [['refunded:1000', 'applied', 6], ...before.inbox] });
  });

  it('a full refund: 200 CANCELLED, EveryPay refunds it once, the gift card gets its share back once, the card bought is voided', async () => {
    const { p, before } = await processed();
    const { result, sent } = await inOrder(s.everypay, order, REFUND_PATH, () => refund(p, {}));
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json()).toMatchObject({ code: p.code, status: 'CANCELLED', payment: { state: 'refunded', refunded: 45.9 } });
    expect(answers(sent)).toEqual([[200, { outcome: order === 'answer first' ? 'duplicate' : 'applied' }]]);
    expect(refundRequests(p)).toHaveLength(1);
    const after = await stateOf(p);
    expect(after).toEqual({
      ...before,
      status: 'CANCELLED',
      moves: [...before.moves, 'CANCELLED'],
      events: { ...before.events, 'order.status-changed CANCELLED': 1 },
      // The buyer's mail of the cancellation, once (cancellation-mail.test.ts).
      jobs: { ...before.jobs, 'order.cancelled-mail': 1 },
      inbox: [['refunded:4590', 'applied', 2], ...before.inbox],
      payments: [['refunded', 4590, 4590]],
      atEveryPay: [['refunded', 0]],
      payingCard: expect.objectContaining({ balanceCents: 1000, heldCents: 0, kinds: ['IMPORT', 'RESERVE', 'CAPTURE', 'REFUND'] }),
      bought: [{ issued: true, cancelled: true }],
      issued: [0],
      result: 'FAILED',
      seen: { ...before.seen, status: 'CANCELLED' },
    });
    await repeatCallback(p.reference);
    await s.t.drainJobs();
    expect(await stateOf(p)).toEqual({ ...after, inbox: [['refunded:4590', 'applied', 6], ...before.inbox] });
    // Nothing is left to refund (the same refund again at once would be a double click, answered with this one).
    expect((await refund(p, { amount: 1 })).statusCode).toBe(409);
    expect(refundRequests(p)).toHaveLength(1);
  });
});

describe.each(CALLBACK_ORDERS)("the unpaid-order sweep: its look-up at EveryPay and EveryPay's callback, %s", (order) => {
  /** The purchase paid or declined on EveryPay's page 31 minutes ago; the shopper never came back. */
  async function unreturned(action: 'pay' | 'decline') {
    const p = await purchase();
    await age(db(), p.orderId, 31);
    const sweep = () => sweepOrders(sweepDepsOf(s.t), Date.now());
    return { p, run: () => inOrder(s.everypay, order, statusPath(p.reference), sweep, () => s.everypay.shopper(p.reference, action)) };
  }

  it('settled: the sweep reports it paid; paid once', async () => {
    const { p, run } = await unreturned('pay');
    const { result, sent } = await run();
    expect(result).toEqual({ ran: true, result: expect.objectContaining({ paid: 1, cancelled: 0 }) });
    expect(answers(sent)).toEqual([[200, { outcome: order === 'answer first' ? 'duplicate' : 'applied' }]]);
    const paid = await stateOf(p);
    expect(paid).toMatchObject({
      status: 'PENDING_PROCESSING',
      moves: ['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING'],
      jobs: { 'gift-card.issue': 1, 'order.process': 1 },
      inbox: [['settled', 'applied', 2]],
      stock: { web: 5, reserved: 1 },
      payingCard: expect.objectContaining({ balanceCents: 0, kinds: ['IMPORT', 'RESERVE', 'CAPTURE'] }),
      result: 'SUCCESS',
    });
    await repeatCallback(p.reference);
    expect(await stateOf(p)).toEqual({ ...paid, inbox: [['settled', 'applied', 6]] });
  });

  it('declined: the sweep changes nothing more; PAYMENT_FAILED once, the share back once', async () => {
    const { p, run } = await unreturned('decline');
    const { result, sent } = await run();
    expect(result).toEqual({ ran: true, result: expect.objectContaining({ paid: 0, cancelled: 0 }) });
    expect(answers(sent)).toEqual([[200, { outcome: order === 'answer first' ? 'duplicate' : 'applied' }]]);
    const declined = await stateOf(p);
    expect(declined).toMatchObject({
      status: 'PAYMENT_FAILED',
      moves: ['NEW', 'PENDING_PAYMENT', 'PAYMENT_FAILED'],
      jobs: {},
      inbox: [['failed', 'applied', 2]],
      stock: { web: 5, reserved: 0 },
      payingCard: expect.objectContaining({ balanceCents: 1000, kinds: ['IMPORT', 'RESERVE', 'RELEASE'] }),
      bought: [{ issued: false, cancelled: true }],
      result: 'FAILED',
    });
    await repeatCallback(p.reference);
    expect(await stateOf(p)).toEqual({ ...declined, inbox: [['failed', 'applied', 6]] });
  });
});

describe.each(CALLBACK_ORDERS)("the sweep's refund of a payment that settled too late: EveryPay's answer and its callback, %s", (order) => {
  it('refunded whole once; the order stays given up, the gift card untouched', async () => {
    const p = await purchase();
    await s.everypay.shopper(p.reference, 'decline');
    await s.everypay.callbacksIdle();
    // Another basket spends what the decline gave back to the gift card, then the payment settles after all.
    const other = await createCustomer(db());
    await fill(s.t, { bearer: other.token }, [[await stockedBook(s.t, s.shop, 5, 20), 1]]);
    expect((await call(s.t, 'POST', '/basket/add-gift-card', { bearer: other.token }, { code: p.payWith })).statusCode).toBe(200);
    expect((await checkout(s.t, { bearer: other.token }, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }))).statusCode).toBe(200);
    await s.everypay.settle(p.reference);
    await s.everypay.callbacksIdle();
    const before = await stateOf(p);
    expect(before).toMatchObject({
      status: 'PAYMENT_FAILED',
      inbox: [
        ['failed', 'applied', 1],
        ['settled', 'mismatch', 1],
      ],
    });

    const { result, sent } = await inOrder(s.everypay, order, REFUND_PATH, () => sweepOrders(sweepDepsOf(s.t), Date.now()));
    expect(result).toEqual({ ran: true, result: expect.objectContaining({ refunded: 1, paid: 0, cancelled: 0 }) });
    expect(answers(sent)).toEqual([[200, { outcome: order === 'answer first' ? 'duplicate' : 'stale' }]]);
    const after = await stateOf(p);
    expect(after).toEqual({
      ...before,
      inbox: [
        ['failed', 'applied', 1],
        ['refunded:4590', 'stale', 2],
        ['settled', 'mismatch', 1],
      ],
      // The buyer is told their late payment went back, once.
      jobs: { ...before.jobs, 'order.refunded-mail': 1 },
      payments: [['refunded', 4590, 4590]],
      atEveryPay: [['refunded', 0]],
    });
    const due = await db().selectFrom('order_payment').select('refund_due_at').where('order_id', '=', p.orderId).execute();
    expect(due).toEqual([{ refund_due_at: null }]);
    await repeatCallback(p.reference);
    expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({ ran: true, result: expect.objectContaining({ refunded: 0 }) });
    expect(await stateOf(p)).toEqual({
      ...after,
      inbox: [
        ['failed', 'applied', 1],
        ['refunded:4590', 'stale', 6],
        ['settled', 'mismatch', 1],
      ],
    });
    const refunds = s.everypay.requests.filter(
      (r) => r.path === REFUND_PATH && (r.body as { payment_reference: string }).payment_reference === p.reference,
    );
    expect(refunds).toHaveLength(1);
  });
});

// The shopper's return may read the payment before EveryPay's last word on it (still with the bank:
// sent_for_processing; or declined, and then paid after all), and the callback with that word may be
// applied before the return applies what it read. Whichever comes first, the payment and the order end
// as EveryPay says now: a status older than the one applied never takes its place.
describe.each(CALLBACK_ORDERS)('the return reads an earlier state of the payment, the callback brings it settled, %s', (order) => {
  /** The return reads `read`; EveryPay settles the payment just after (its callback after the return, or applied before the return goes on). */
  async function earlierReturn(p: Purchase, read: 'sent_for_processing' | 'failed') {
    // EveryPay's page left the payment so, and has not told the shop yet.
    s.everypay.payment(p.reference)!.state = read;
    const back = new URL(s.everypay.payment(p.reference)!.customerUrl);
    back.searchParams.set('payment_reference', p.reference);
    back.searchParams.set('order_reference', p.code);
    const settle = () => s.everypay.settle(p.reference);
    await s.everypay.callbacksIdle();
    const from = s.everypay.callbacks.length;
    let returned;
    if (order === 'answer first') {
      returned = await shopperReturns(back.toString());
      expect(s.everypay.callbacks.length).toBe(from);
      await settle();
    } else {
      s.everypay.answerAfterCallbacks({ path: statusPath(p.reference), andThen: settle });
      returned = await shopperReturns(back.toString());
    }
    await s.everypay.callbacksIdle();
    return { returned, sent: s.everypay.callbacks.slice(from) };
  }

  it.each(['sent_for_processing', 'failed'] as const)(
    'read %s: paid once; the payment row says settled, so the operator refunds it through EveryPay',
    async (read) => {
      const p = await purchase();
      const { returned, sent } = await earlierReturn(p, read);
      expect(returned.status).toBe(303);
      // The page of what the return knew when it answered: a decline it applied first is the failed page.
      expect(pageOf(s.t, returned.location)).toBe(order === 'answer first' && read === 'failed' ? 'failed' : 'finished');
      expect(answers(sent)).toEqual([[200, { outcome: 'applied' }]]);
      const paid = await stateOf(p);
      const declinedFirst = order === 'answer first' && read === 'failed';
      expect(paid).toMatchObject({
        status: 'PENDING_PROCESSING',
        moves: declinedFirst
          ? ['NEW', 'PENDING_PAYMENT', 'PAYMENT_FAILED', 'PENDING_PROCESSING']
          : ['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING'],
        jobs: { 'order.process': 1 },
        payments: [['settled', 4590, 0]],
        atEveryPay: [['settled', 4590]],
        payingCard: expect.objectContaining({ balanceCents: 0, heldCents: 0 }),
        result: 'SUCCESS',
        seen: { status: 'PENDING_PROCESSING', giftCardAmount: 10, total: 45.9 },
      });
      // What the return read is recorded: applied only as a decline the return applied first; read before the
      // settle was applied, or still pending, it moves nothing (stale).
      const earlier = read === 'failed' ? 'failed' : 'pending';
      const earlierOutcome = declinedFirst ? 'applied' : 'stale';
      expect(paid.inbox).toEqual([
        [earlier, earlierOutcome, 1],
        ['settled', 'applied', 1],
      ]);
      await repeatCallback(p.reference);
      expect((await stateOf(p)).payments).toEqual([['settled', 4590, 0]]);
      const refunded = await s.t.app.inject({
        method: 'POST',
        url: `/admin/orders/${p.code}/refund`,
        headers: { authorization: `Bearer ${operatorKey}` },
        payload: {},
      });
      expect(refunded.statusCode, refunded.body).toBe(200);
      expect(refunded.json()).toMatchObject({ status: 'CANCELLED', payment: { state: 'refunded', refunded: 45.9 } });
      await s.everypay.callbacksIdle();
      expect(s.everypay.paymentsFor(p.code).map((payment) => [payment.state, payment.standingCents])).toEqual([['refunded', 0]]);
      expect(await ledger(db(), p.payWith)).toMatchObject({ balanceCents: 1000, heldCents: 0 });
    },
  );
});

// The same two at the same moment: the return read the payment (still with the bank, or declined) just
// before the bank approved it, and its transaction read the payment row while the callback's, which
// applies the settle, held the order. On PostgreSQL a transaction there reads the row as it was before
// the callback's commit, so it must be read again under the order's lock; SQLite writes one transaction
// at a time and cannot interleave them (the callback is applied first there, and the same must come out).
describe('the return applies what it read while the callback settling the payment holds the order', () => {
  /**
   * PostgreSQL: runs `during` while a transaction holds the order's row (as the callback's own holds it
   * while it applies the settle), and lets go after it. SQLite: runs it, holding nothing (a transaction
   * open here would keep the shop's requests from reaching EveryPay at all).
   */
  async function holdingOrderOnPostgres(orderId: number, during: () => Promise<void>) {
    if (engine !== 'postgres') return during();
    await db()
      .transaction()
      .execute(async (trx) => {
        await trx.selectFrom('customer_order').select('id').where('id', '=', orderId).forUpdate().execute();
        await during();
      });
  }

  it.each(['sent_for_processing', 'failed'] as const)(
    'read %s: the payment row stays settled under the paid order; the operator refunds it through EveryPay, once',
    async (read) => {
      const p = await purchase();
      const payment = s.everypay.payment(p.reference)!;
      // EveryPay's page left the payment so, and has not told the shop yet.
      payment.state = read;
      const back = new URL(payment.customerUrl);
      back.searchParams.set('payment_reference', p.reference);
      back.searchParams.set('order_reference', p.code);
      await s.everypay.callbacksIdle();
      const from = s.everypay.callbacks.length;
      const asked = () => s.everypay.requests.filter((request) => request.path === statusPath(p.reference)).length;
      const askedBefore = asked();
      let answerReturn!: () => void;
      s.everypay.answerLate(statusPath(p.reference), new Promise<void>((resolve) => (answerReturn = resolve)));
      let returned!: ReturnType<typeof shopperReturns>;
      await holdingOrderOnPostgres(p.orderId, async () => {
        returned = shopperReturns(back.toString());
        await until('the return to ask EveryPay', () => asked() > askedBefore);
        // The bank approves it: EveryPay settles it and calls back. PostgreSQL: the callback has read
        // the payment and waits for the order; SQLite: nothing holds the order, so it is applied.
        const callback = s.everypay.settle(p.reference);
        if (engine === 'postgres') await until('the callback to wait for the order', async () => (await lockWaiters(db())) >= 1);
        else await callback;
        // EveryPay's answer to the return, as the payment stood when it asked, arrives now.
        answerReturn();
        if (engine === 'postgres') await until('the return to wait for the order', async () => (await lockWaiters(db())) >= 2);
      });
      const { status, location } = await returned;
      await s.everypay.callbacksIdle();
      expect(status).toBe(303);
      expect(pageOf(s.t, location)).toBe('finished');
      expect(answers(s.everypay.callbacks.slice(from))).toEqual([[200, { outcome: 'applied' }]]);
      const paid = await stateOf(p);
      expect(paid).toMatchObject({
        status: 'PENDING_PROCESSING',
        moves: ['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING'],
        jobs: { 'gift-card.issue': 1, 'order.process': 1 },
        // What the return read is recorded, and moves nothing: it is older than the settle applied.
        inbox: [
          [read === 'failed' ? 'failed' : 'pending', 'stale', 1],
          ['settled', 'applied', 1],
        ],
        payments: [['settled', 4590, 0]],
        atEveryPay: [['settled', 4590]],
        payingCard: expect.objectContaining({ balanceCents: 0, heldCents: 0, kinds: ['IMPORT', 'RESERVE', 'CAPTURE'] }),
        result: 'SUCCESS',
      });
      // So the operator's full refund is the card payment's, through EveryPay, and the gift card's share.
      const refunded = await s.t.app.inject({
        method: 'POST',
        url: `/admin/orders/${p.code}/refund`,
        headers: { authorization: `Bearer ${operatorKey}` },
        payload: {},
      });
      expect(refunded.statusCode, refunded.body).toBe(200);
      expect(refunded.json()).toMatchObject({ status: 'CANCELLED', payment: { state: 'refunded', refunded: 45.9 } });
      await s.everypay.callbacksIdle();
      expect(await stateOf(p)).toMatchObject({
        status: 'CANCELLED',
        payments: [['refunded', 4590, 4590]],
        atEveryPay: [['refunded', 0]],
        payingCard: expect.objectContaining({ balanceCents: 1000, heldCents: 0, kinds: ['IMPORT', 'RESERVE', 'CAPTURE', 'REFUND'] }),
        stock: { web: 5, reserved: 0 },
      });
      const refunds = s.everypay.requests.filter(
        (request) => request.path === REFUND_PATH && (request.body as { payment_reference: string }).payment_reference === p.reference,
      );
      expect(refunds).toHaveLength(1);
    },
  );
});

describe("an operator's refund of an order whose card payment is not settled in the shop's rows", () => {
  const refund = (p: Purchase, body: object) =>
    s.t.app.inject({
      method: 'POST',
      url: `/admin/orders/${p.code}/refund`,
      headers: { authorization: `Bearer ${operatorKey}` },
      payload: body,
    });
  const refundRequests = (p: Purchase) =>
    s.everypay.requests.filter(
      (request) => request.path === REFUND_PATH && (request.body as { payment_reference: string }).payment_reference === p.reference,
    );

  it('still with the bank: 409 and nothing moves; once EveryPay settles it, the refund goes through EveryPay, once', async () => {
    const p = await purchase();
    // The shopper paid; the bank is still deciding, and EveryPay says so to the callback.
    await s.everypay.setState(p.reference, 'sent_for_processing');
    await s.everypay.callbacksIdle();
    const pending = await stateOf(p);
    expect(pending).toMatchObject({ status: 'PENDING_PAYMENT', payments: [['pending', 4590, 0]], stock: { web: 5, reserved: 1 } });
    for (const body of [{}, { amount: 10 }]) {
      const refused = expectErrorBody(await refund(p, body), 409, 'Conflict');
      expect(refused.message).toBe(`Tellimusel ${p.code} ei ole laekunud makset, mida tagastada.`);
    }
    expect(await stateOf(p)).toEqual(pending);
    expect(refundRequests(p)).toEqual([]);
    // The bank approves it: paid, and now refunded in full through EveryPay with the gift card's share.
    await s.everypay.settle(p.reference);
    await s.everypay.callbacksIdle();
    expect(await stateOf(p)).toMatchObject({ status: 'PENDING_PROCESSING', payments: [['settled', 4590, 0]] });
    const refunded = await refund(p, {});
    expect(refunded.statusCode, refunded.body).toBe(200);
    expect(refunded.json()).toMatchObject({ status: 'CANCELLED', payment: { state: 'refunded', refunded: 45.9 } });
    await s.everypay.callbacksIdle();
    expect(await stateOf(p)).toMatchObject({
      status: 'CANCELLED',
      payments: [['refunded', 4590, 4590]],
      atEveryPay: [['refunded', 0]],
      payingCard: expect.objectContaining({ balanceCents: 1000, heldCents: 0, kinds: ['IMPORT', 'RESERVE', 'CAPTURE', 'REFUND'] }),
      stock: { web: 5, reserved: 0 },
      bought: [{ issued: false, cancelled: true }],
    });
    expect(refundRequests(p)).toHaveLength(1);
    expectErrorBody(await refund(p, { amount: 1 }), 409, 'Conflict');
    expect(refundRequests(p)).toHaveLength(1);
  });

  // An earlier build applied a status read before the settle over it (see the describe above), leaving
  // the row of a paid order's payment pending or failed. The gift cards' refund alone would cancel the
  // order and keep the card's money.
  it.each(['pending', 'failed'] as const)(
    'a paid order whose payment row an earlier build left %s: 409, nothing moves, EveryPay is asked nothing',
    async (left) => {
      const p = await purchase();
      await s.everypay.settle(p.reference);
      await s.everypay.callbacksIdle();
      await db().updateTable('order_payment').set({ state: left }).where('order_id', '=', p.orderId).execute();
      const before = await stateOf(p);
      expect(before).toMatchObject({ status: 'PENDING_PROCESSING', payments: [[left, 4590, 0]], atEveryPay: [['settled', 4590]] });
      for (const body of [{}, { amount: 10 }, { amount: 45.9 }]) {
        const refused = expectErrorBody(await refund(p, body), 409, 'Conflict');
        expect(refused.message).toBe(
          `Tellimus ${p.code} on makstud makseviisiga "everypay", kuid pood ei tea seda makset laekununa: midagi ei tagastatud. Tagastage see makseviisi kaudu.`,
        );
      }
      expect(await stateOf(p)).toEqual(before);
      expect(refundRequests(p)).toEqual([]);
    },
  );
});
