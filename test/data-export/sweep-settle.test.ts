import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepOrders } from '../../src/modules/orders/index.js';
import { until } from '../helpers/lock-waits.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { sweepDepsOf } from '../orders/everypay-helpers.js';
import { age, cardPayment, startCardShop, stockedBook, type CardShop } from '../orders/processing-helpers.js';
import { exportUser, sleep, ymdHis } from './fixtures.js';

// The sales history shows a row once it is DATA_EXPORT_SETTLE_MS old: a row is trusted to commit
// within that time of its stamp. The order sweep processes a paid order after it has asked the
// gateways about the unpaid ones, which may take seconds each.

const SETTLE_MS = 500;
let s: CardShop;
let authorization: string;
beforeAll(async () => {
  // EveryPay's answer is held past the settle below: the adapter waits for it.
  s = await startCardShop({ DATA_EXPORT_SETTLE_MS: String(SETTLE_MS), EVERYPAY_TIMEOUT_MS: '30000' });
  authorization = (await exportUser(s.t.database.db)).authorization;
});
afterAll(() => s?.close());

async function salesIn(from: number, to?: number): Promise<string[]> {
  const window = `createdFrom=${encodeURIComponent(ymdHis(from))}${to === undefined ? '' : `&createdTo=${encodeURIComponent(ymdHis(to))}`}`;
  const response = await s.t.app.inject({ url: `${s.t.config.dataExportPath}/sales-history?${window}`, headers: { authorization } });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Array<{ order: string }>).map((row) => row.order);
}

describe('GET /sales-history after the order sweep processed an order while a gateway answered slowly', () => {
  it('a window already read as settled gains no row later; the order is in a later window', async () => {
    const unpaid = await cardPayment(s);
    // Paid at EveryPay, its callback lost: the sweep asks EveryPay about it first.
    await s.everypay.settle(unpaid.reference);
    await age(s.t.database.db, unpaid.id, 31);
    // Paid, its processing job lost: the sweep processes it after the unpaid orders.
    const book = await stockedBook(s.t.database.db, 5);
    const paid = await insertOrder(s.t.database.db, {
      status: 'PENDING_PROCESSING',
      lines: [book],
      at: Date.now() - 10 * 60_000,
      queueJob: false,
    });

    const lookUp = `/api/v4/payments/${unpaid.reference}`;
    const asked = () => s.everypay.requests.filter((request) => request.path === lookUp).length;
    const before = asked();
    let answer!: () => void;
    s.everypay.answerLate(lookUp, new Promise<void>((resolve) => (answer = resolve)));
    const started = Date.now();
    const sweeping = sweepOrders(sweepDepsOf(s.t), started);
    await until('the look-up at EveryPay', () => asked() > before);

    // The partner's window around the sweep's start, read once it has settled: nothing in it.
    const window = { from: started - 2000, to: started + 1000 };
    await sleep(window.to + 1000 + SETTLE_MS + 100 - Date.now());
    expect(await salesIn(window.from, window.to)).toEqual([]);

    answer();
    expect(await sweeping).toEqual({ ran: true, result: expect.objectContaining({ paid: 1, processed: 1 }) });
    await sleep(SETTLE_MS + 100);
    // The partner moved on to the next window: the order is there, and the window read before is as it was.
    expect(await salesIn(window.to + 1000)).toEqual([paid.code]);
    expect(await salesIn(window.from, window.to)).toEqual([]);
  });
});
