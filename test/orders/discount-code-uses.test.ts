import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveOrder } from '../../src/modules/orders/order-states.js';
import { sweepOrders } from '../../src/modules/orders/processing/order-sweep.js';
import { importLines } from '../basket/import-helpers.js';
import { call, fill, stockedBook } from './helpers.js';
import { checkoutByCard, createForm, startEveryPayShop, sweepDepsOf, type EveryPayShop } from './everypay-helpers.js';
import { age } from './processing-helpers.js';

// A discount code's use is counted by checkout (its last use goes to one order), and an order that
// is never paid gives it back, as it gives back its stock and its gift cards' holds: a code of one
// use was lost to a declined card, and the shopper could not use it for the order that paid. A
// payment settling late, after the order was given up, takes the use again.

let s: EveryPayShop;
const db = () => s.t.database.db;

beforeAll(async () => {
  s = await startEveryPayShop();
});
afterAll(() => s?.close());

const usedCount = async (code: string) =>
  Number((await db().selectFrom('discount_code').select('used_count').where('code', '=', code).executeTakeFirstOrThrow()).used_count);

const addCode = (who: Parameters<typeof call>[3], code: string) => call(s.t, 'POST', '/basket/add-discount', who, { code });
const status = async (orderId: number) =>
  (await db().selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status;

/** A guest's card order with the code on it, its payment started at EveryPay. */
async function orderWithCode(code: string) {
  const who = await fill(s.t, {}, [[await stockedBook(s.t, s.shop, 5, 20), 1]]);
  expect((await addCode(who, code)).statusCode).toBe(200);
  const placed = await checkoutByCard(s, who);
  const { reference } = await createForm(s, { ...placed, productId: 0 });
  return { orderId: placed.orderId, reference };
}

/** Whether another shopper's basket takes the code now. */
async function codeTakenByAnother(code: string): Promise<boolean> {
  const other = await fill(s.t, {}, [[await stockedBook(s.t, s.shop, 5, 20), 1]]);
  return (await addCode(other, code)).statusCode === 200;
}

describe("a discount code's use", () => {
  it('goes back when the card is declined, once however often that is said, and is taken again by a late settle', async () => {
    expect((await importLines(s.t, 'discount-codes', [{ code: 'ONCE', percent: 10, maxUses: 1 }])).statusCode).toBe(200);
    const order = await orderWithCode('ONCE');
    expect(await usedCount('ONCE')).toBe(1);
    expect(await codeTakenByAnother('ONCE')).toBe(false);

    await s.everypay.fail(order.reference, { times: 3 });
    await s.everypay.callbacksIdle();
    expect(await status(order.orderId)).toBe('PAYMENT_FAILED');
    expect(await usedCount('ONCE')).toBe(0);
    expect(await codeTakenByAnother('ONCE')).toBe(true);

    // The bank settles after all: the order goes on, and the use is its own again.
    await s.everypay.settle(order.reference, { times: 2 });
    await s.everypay.callbacksIdle();
    expect(await status(order.orderId)).toBe('PENDING_PROCESSING');
    expect(await usedCount('ONCE')).toBe(1);
  });

  it('goes back when the order is cancelled unpaid, and once from a paid order that failed and is then cancelled', async () => {
    expect((await importLines(s.t, 'discount-codes', [{ code: 'SWEEP', percent: 10, maxUses: 5 }])).statusCode).toBe(200);
    const unpaid = await orderWithCode('SWEEP');
    const paid = await orderWithCode('SWEEP');
    // One more, still waiting for its payment: its use stays whatever the others do.
    await orderWithCode('SWEEP');
    expect(await usedCount('SWEEP')).toBe(3);

    await age(db(), unpaid.orderId, 24 * 60);
    await sweepOrders(sweepDepsOf(s.t), Date.now());
    expect(await status(unpaid.orderId)).toBe('CANCELLED');
    expect(await usedCount('SWEEP')).toBe(2);

    await s.everypay.settle(paid.reference);
    await s.everypay.callbacksIdle();
    expect(await status(paid.orderId)).toBe('PENDING_PROCESSING');
    expect(await usedCount('SWEEP')).toBe(2);
    // Failed (stuck, say) gives the use back; cancelled afterwards gives nothing more.
    const move = (from: 'PENDING_PROCESSING' | 'FAILED', to: 'FAILED' | 'CANCELLED') =>
      db()
        .transaction()
        .execute((trx) => moveOrder(trx, { orderId: paid.orderId, from, to, cause: 'test', now: Date.now() }));
    expect(await move('PENDING_PROCESSING', 'FAILED')).toBe(true);
    expect(await usedCount('SWEEP')).toBe(1);
    expect(await move('FAILED', 'CANCELLED')).toBe(true);
    expect(await usedCount('SWEEP')).toBe(1);
  });
});
