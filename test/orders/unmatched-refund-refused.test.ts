import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { withTableHeld } from '../helpers/lock-waits.js';
import { everypayEnv, sweepDepsOf } from './everypay-helpers.js';
import { cardPayment, orderJobs, shopperReturns, startCardShop, type CardShop } from './processing-helpers.js';

// The sweep refunds a payment due back (refund_due_at: it settled for an order that could not go on).
// A refund EveryPay refused as asked was left for the next sweep, which sent it again, and again, every
// ORDER_SWEEP_INTERVAL for good: a payment refunded by hand in the portal, in part or whole (its callback
// lost), was refused each time; the whole one never showed refunded in the shop's rows.

let s: CardShop;
let env: Record<string, string>;
beforeAll(async () => {
  // A database file on SQLite, which the commands open beside the shop.
  s = await startCardShop({}, { sqliteFile: true });
  env = { DATABASE_URL: s.t.config.databaseUrl, ...everypayEnv(s.everypay), TEST_GATEWAY: 'off' };
});
afterAll(() => s?.close());

const db = () => s.t.database.db;
const refundsOf = (reference: string) =>
  s.everypay.requests.filter(
    (request) =>
      request.path === '/api/v4/payments/refund' && (request.body as { payment_reference: string }).payment_reference === reference,
  );
const paymentOf = (orderId: number) =>
  db()
    .selectFrom('order_payment')
    .select(['id', 'state', 'refunded_cents', 'refund_due_at', 'refund_refused_at'])
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();

/** A card order paid at EveryPay, its payment marked due back as payment-status.service.ts marks a late settle. */
async function paymentDueBack() {
  const order = await cardPayment(s);
  await s.everypay.settle(order.reference);
  await shopperReturns(s, order);
  await s.t.drainJobs();
  await sweepOrders(sweepDepsOf(s.t), Date.now());
  await db().updateTable('order_payment').set({ refund_due_at: Date.now() }).where('order_id', '=', order.id).execute();
  return order;
}

describe("the sweep's refund of a payment due back, refused by EveryPay", () => {
  it('is given up once refused as asked: kept as refused, not sent again', async () => {
    const order = await paymentDueBack();
    // Part of it refunded by hand in the portal (its callback lost): EveryPay refuses the whole sum the shop asks back.
    await s.everypay.refund(order.reference, 500);
    expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({ ran: true, result: expect.objectContaining({ refunded: 0 }) });
    expect(refundsOf(order.reference)).toHaveLength(1);
    expect(await paymentOf(order.id)).toMatchObject({ refund_due_at: null, refund_refused_at: expect.any(Number) });

    await sweepOrders(sweepDepsOf(s.t), Date.now());
    expect(refundsOf(order.reference)).toHaveLength(1);
  });

  it('refunded by hand in the portal meanwhile (its callback lost): the refund found is applied, not sent again', async () => {
    const order = await paymentDueBack();
    await s.everypay.refund(order.reference, order.totalCents);
    expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({ ran: true, result: expect.objectContaining({ refunded: 1 }) });
    expect(await paymentOf(order.id)).toEqual({
      id: expect.anything(),
      state: 'refunded',
      refunded_cents: order.totalCents,
      refund_due_at: null,
      refund_refused_at: null,
    });
    await sweepOrders(sweepDepsOf(s.t), Date.now());
    expect(refundsOf(order.reference)).toHaveLength(1);
  });
});

const order = (...args: string[]) => runCli(['order', ...args], env);
const listedRefused = async () => {
  const listed = await order('payments', '--refund-refused');
  expect(listed.code, listed.stderr).toBe(0);
  return listed.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { paymentId: number; orderCode: string; amount: number; refunded: number });
};
const refundMails = async (orderId: number) =>
  (await orderJobs<{ refundedCents: number; totalRefundedCents: number }>(db(), 'order.refunded-mail', orderId)).map((job) => [
    job.payload.refundedCents,
    job.payload.totalRefundedCents,
  ]);

/** A payment due back whose refund EveryPay refused (500 of it refunded in the portal, its callback lost). */
async function refusedRefund() {
  const placed = await paymentDueBack();
  await s.everypay.refund(placed.reference, 500);
  await sweepOrders(sweepDepsOf(s.t), Date.now());
  const payment = await paymentOf(placed.id);
  expect(payment.refund_refused_at).not.toBeNull();
  return { ...placed, paymentId: Number(payment.id) };
}

describe("the operators' way out: order payments --refund-refused, mark-refunded, retry-refund", () => {
  it('lists the refused refunds, oldest first; not a payment still due or refunded', async () => {
    const first = await refusedRefund();
    const second = await refusedRefund();
    const due = await paymentDueBack();
    const listed = await listedRefused();
    const ids = listed.map((line) => line.paymentId);
    expect(ids.indexOf(first.paymentId)).toBeLessThan(ids.indexOf(second.paymentId));
    expect(ids).not.toContain(Number((await paymentOf(due.id)).id));
    expect(listed.find((line) => line.paymentId === first.paymentId)).toMatchObject({
      orderId: first.id,
      orderCode: first.code,
      gateway: 'everypay',
      reference: first.reference,
      amount: first.totalCents / 100,
      refunded: 0,
      currency: 'EUR',
      refusedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    await db().updateTable('order_payment').set({ refund_due_at: null }).where('order_id', '=', due.id).execute();
  });

  it('mark-refunded records the payment refunded whole and mails the buyer once; a second call is refused, changing nothing', async () => {
    const refused = await refusedRefund();
    const asked = refundsOf(refused.reference).length;
    const marked = await order('mark-refunded', String(refused.paymentId));
    expect(marked.code, marked.stderr).toBe(0);
    expect(JSON.parse(marked.stdout)).toEqual({ paymentId: refused.paymentId, orderCode: refused.code, state: 'refunded' });
    expect(await paymentOf(refused.id)).toMatchObject({ state: 'refunded', refunded_cents: refused.totalCents, refund_refused_at: null });
    expect(await refundMails(refused.id)).toEqual([[refused.totalCents, refused.totalCents]]);
    expect((await listedRefused()).map((line) => line.paymentId)).not.toContain(refused.paymentId);

    const again = await order('mark-refunded', String(refused.paymentId));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`payment ${refused.paymentId} (order ${refused.code}) has no refused refund: nothing changed`);
    expect(await refundMails(refused.id)).toHaveLength(1);
    // Nothing was asked of EveryPay, and the next sweep asks nothing either.
    await sweepOrders(sweepDepsOf(s.t), Date.now());
    expect(refundsOf(refused.reference)).toHaveLength(asked);
  });

  it('two mark-refunded at once: one records it and queues the mail, the other is refused', async () => {
    const refused = await refusedRefund();
    // Two processes, as two operators run them; on PostgreSQL both have read the payment refused before either moves it.
    const mark = () => runCliProcess(['order', 'mark-refunded', String(refused.paymentId)], env);
    const results = await withTableHeld(db(), 'order_payment', () => Promise.all([mark(), mark()]));
    expect(results.map((result) => result.code).sort()).toEqual([0, 1]);
    expect(results.find((result) => result.code === 1)!.stderr).toContain('has no refused refund: nothing changed');
    expect(await paymentOf(refused.id)).toMatchObject({ state: 'refunded', refund_refused_at: null });
    expect(await refundMails(refused.id)).toHaveLength(1);
  });

  it('retry-refund hands it back to the sweep, which refunds it through EveryPay under a new key', async () => {
    const refused = await refusedRefund();
    const retried = await order('retry-refund', String(refused.paymentId));
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toEqual({ paymentId: refused.paymentId, orderCode: refused.code, state: 'refund_due' });
    expect(await paymentOf(refused.id)).toMatchObject({ refund_due_at: expect.anything(), refund_refused_at: null });
    // The portal's part refund's callback arrives meanwhile: what is left is asked back.
    await db().updateTable('order_payment').set({ refunded_cents: 500 }).where('order_id', '=', refused.id).execute();
    expect(await sweepOrders(sweepDepsOf(s.t), Date.now())).toEqual({ ran: true, result: expect.objectContaining({ refunded: 1 }) });
    const sent = refundsOf(refused.reference);
    expect(sent).toHaveLength(2);
    const nonce = (request: (typeof sent)[number]) => (request.body as { nonce: string }).nonce;
    expect(nonce(sent[1]!)).not.toBe(nonce(sent[0]!));
    expect(await paymentOf(refused.id)).toMatchObject({ state: 'refunded', refunded_cents: refused.totalCents, refund_due_at: null });
    const again = await order('retry-refund', String(refused.paymentId));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('has no refused refund: nothing changed');
  });

  it('refuses, changing nothing: an unknown id, a payment without a refused refund, a malformed command line', async () => {
    const due = await paymentDueBack();
    const dueId = Number((await paymentOf(due.id)).id);
    const before = await paymentOf(due.id);
    for (const action of ['mark-refunded', 'retry-refund']) {
      const unknown = await order(action, '999999999');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no order payment has the id 999999999; nothing changed');
      const notRefused = await order(action, String(dueId));
      expect(notRefused.code).toBe(1);
      expect(notRefused.stderr).toContain(`payment ${dueId} (order ${due.code}) has no refused refund`);
      for (const args of [[action], [action, 'x'], [action, '0'], [action, '1', '2']]) expect((await order(...args)).code).toBe(2);
    }
    for (const args of [['payments'], ['payments', '--pending'], ['nothing']]) expect((await order(...args)).code).toBe(2);
    expect(await paymentOf(due.id)).toEqual(before);
    await db().updateTable('order_payment').set({ refund_due_at: null }).where('order_id', '=', due.id).execute();
  });
});
