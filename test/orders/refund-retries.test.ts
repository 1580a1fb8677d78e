import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { expectErrorBody } from '../helpers/http.js';
import { until } from '../helpers/lock-waits.js';
import { paidBook, REFUND_PATH, refundsAsked, startRefundShop, type RefundShop } from './refund-helpers.js';
import { settleEveryPay } from './everypay-helpers.js';
import { NOT_EVERYPAYS_404 } from '../helpers/everypay-server.js';

// An operator's refund is recorded before EveryPay is asked, under a key of its own that every try
// sends. Two refunds at once: the second is refused (409) and sent nowhere. A refund whose answer was
// lost (503) and is sent again: the retry looks the payment up and answers the first refund's result,
// whether EveryPay's callback applied it meanwhile or not. In every case the customer is refunded once.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterEach(() => settleEveryPay(s));
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

/** What EveryPay has refunded of the payment, in cents: the truth the customer's bank sees. */
const refundedAtEveryPay = (reference: string, totalCents: number) => totalCents - s.everypay.payment(reference)!.standingCents;

const refundRows = (reference: string) =>
  db()
    .selectFrom('order_refund')
    .innerJoin('order_payment', 'order_payment.id', 'order_refund.payment_id')
    .select(['order_refund.state', 'order_refund.amount_cents'])
    .where('order_payment.reference', '=', reference)
    .orderBy('order_refund.id')
    .execute();

describe('POST /admin/orders/{code}/refund sent twice', () => {
  it('two at once: the second is a 409 while the first is at EveryPay, and the payment is refunded once', async () => {
    const order = await paidBook(s);
    let answer!: () => void;
    s.everypay.answerLate(
      REFUND_PATH,
      new Promise<void>((resolve) => {
        answer = resolve;
      }),
    );
    const first = s.refund(order.code, { amount: 5 });
    await until('the first refund at EveryPay', () => refundsAsked(s, order.reference).length === 1);
    const second = await s.refund(order.code, { amount: 5 });
    const refused = expectErrorBody(second, 409, 'Conflict');
    expect(refused.message).toContain('5.00');
    const whole = await s.refund(order.code, {});
    expectErrorBody(whole, 409, 'Conflict');
    answer();
    const done = await first;
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ payment: { refunded: 5 } });
    expect(refundsAsked(s, order.reference)).toEqual([500]);
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    expect(await refundRows(order.reference)).toEqual([{ state: 'refunded', amount_cents: 500 }]);
  });

  it('the answer lost, the callback applied it, then the same refund again: 200 with the first one, refunded once', async () => {
    const order = await paidBook(s);
    s.everypay.breakApi('lost-answer', 1, REFUND_PATH);
    const lost = await s.refund(order.code, { amount: 5 });
    expectErrorBody(lost, 503, 'Service Unavailable');
    await s.everypay.callbacksIdle();
    const applied = await db()
      .selectFrom('order_payment')
      .select('refunded_cents')
      .where('reference', '=', order.reference)
      .executeTakeFirstOrThrow();
    expect(Number(applied.refunded_cents)).toBe(500);
    const retry = await s.refund(order.code, { amount: 5 });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toMatchObject({ payment: { refunded: 5 } });
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    expect(await refundRows(order.reference)).toEqual([{ state: 'refunded', amount_cents: 500 }]);
    // A second refund of the same sum soon after is told apart by an Idempotency-Key of its own.
    const next = await s.refund(order.code, { amount: 5 }, { 'idempotency-key': 'second-refund-of-5' });
    expect(next.statusCode, next.body).toBe(200);
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(1000);
  });

  it('the answer lost and no callback, then the same refund again: 200 with the first one, not a 409, refunded once', async () => {
    const order = await paidBook(s);
    s.everypay.holdCallbacks();
    s.everypay.breakApi('lost-answer', 1, REFUND_PATH);
    expectErrorBody(await s.refund(order.code, {}), 503, 'Service Unavailable');
    const retry = await s.refund(order.code, {});
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toMatchObject({ status: 'CANCELLED', payment: { state: 'refunded', refunded: order.totalCents / 100 } });
    await s.everypay.releaseCallbacks();
    await s.everypay.callbacksIdle();
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(order.totalCents);
    expect(await refundRows(order.reference)).toEqual([{ state: 'refunded', amount_cents: order.totalCents }]);
    expect((await s.refund(order.code, { amount: 1 })).statusCode).toBe(409);
  });

  it('a double click: the same refund again once the first was answered is that refund, not a second', async () => {
    const order = await paidBook(s);
    const first = await s.refund(order.code, { amount: 5 });
    expect(first.statusCode, first.body).toBe(200);
    const again = await s.refund(order.code, { amount: 5 });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ payment: { refunded: 5 } });
    expect(refundsAsked(s, order.reference)).toEqual([500]);
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    // Another sum is another refund.
    const other = await s.refund(order.code, { amount: 3 });
    expect(other.json()).toMatchObject({ payment: { refunded: 8 } });
    expect(refundsAsked(s, order.reference)).toEqual([500, 300]);
  });

  it('a double click on a refund of everything: the second answers the first, though nothing is left of the payment', async () => {
    const order = await paidBook(s);
    const first = await s.refund(order.code, {});
    expect(first.statusCode, first.body).toBe(200);
    await s.everypay.callbacksIdle();
    const again = await s.refund(order.code, {});
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(refundsAsked(s, order.reference)).toEqual([order.totalCents]);
    // Past the resubmit window it is no repeat: nothing is left to refund.
    await db()
      .updateTable('order_refund')
      .set({ created_at: Date.now() - 60 * 60_000, updated_at: Date.now() - 60 * 60_000 })
      .execute();
    expectErrorBody(await s.refund(order.code, {}), 409, 'Conflict');
    expect(refundsAsked(s, order.reference)).toEqual([order.totalCents]);
  });

  it('under an Idempotency-Key: a retry after the lost answer, and one after it was answered, answer the first refund', async () => {
    const order = await paidBook(s);
    const key = { 'idempotency-key': 'refund-of-complaint-4711' };
    s.everypay.breakApi('lost-answer', 1, REFUND_PATH);
    expectErrorBody(await s.refund(order.code, { amount: 5 }, key), 503, 'Service Unavailable');
    await s.everypay.callbacksIdle();
    const retry = await s.refund(order.code, { amount: 5 }, key);
    expect(retry.statusCode, retry.body).toBe(200);
    const again = await s.refund(order.code, { amount: 5 }, key);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ payment: { refunded: 5 } });
    expect(refundsAsked(s, order.reference)).toEqual([500]);
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    expectErrorBody(await s.refund(order.code, { amount: 5 }, { 'idempotency-key': 'bad key' }), 400, 'Bad Request');
  });

  it('a refund made under an Idempotency-Key, then the same sum again without one: that refund, not a second', async () => {
    const order = await paidBook(s);
    const first = await s.refund(order.code, { amount: 5 }, { 'idempotency-key': 'refund-of-complaint-4714' });
    expect(first.statusCode, first.body).toBe(200);
    const again = await s.refund(order.code, { amount: 5 });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ payment: { refunded: 5 } });
    expect(refundsAsked(s, order.reference)).toEqual([500]);
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    // A second refund of the sum is still told apart by a key of its own.
    const next = await s.refund(order.code, { amount: 5 }, { 'idempotency-key': 'refund-of-complaint-4715' });
    expect(next.json()).toMatchObject({ payment: { refunded: 10 } });
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(1000);
  });

  it('a 503 under an Idempotency-Key, then the same sum again without one: it finishes that refund, refunded once', async () => {
    const order = await paidBook(s);
    s.everypay.holdCallbacks();
    s.everypay.breakApi('lost-answer', 1, REFUND_PATH);
    expectErrorBody(
      await s.refund(order.code, { amount: 5 }, { 'idempotency-key': 'refund-of-complaint-4716' }),
      503,
      'Service Unavailable',
    );
    const retry = await s.refund(order.code, { amount: 5 });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toMatchObject({ payment: { refunded: 5 } });
    await s.everypay.releaseCallbacks();
    await s.everypay.callbacksIdle();
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    expect(await refundRows(order.reference)).toEqual([{ state: 'refunded', amount_cents: 500 }]);
  });

  it('an Idempotency-Key sent again with another sum is a 409 that refunds nothing, its refund answered or left unknown', async () => {
    const order = await paidBook(s);
    const key = { 'idempotency-key': 'refund-of-complaint-4712' };
    expect((await s.refund(order.code, { amount: 5 }, key)).statusCode).toBe(200);
    // Another refund under the key of one made: not that refund's 200, which reads as if 7.00 went back.
    for (const payload of [{ amount: 7 }, {}]) {
      const reused = expectErrorBody(await s.refund(order.code, payload, key), 409, 'Conflict');
      expect(reused.message).toContain('Idempotency-Key');
    }
    expect(refundsAsked(s, order.reference)).toEqual([500]);

    const lost = { 'idempotency-key': 'refund-of-complaint-4713' };
    s.everypay.breakApi('lost-answer', 1, REFUND_PATH);
    expectErrorBody(await s.refund(order.code, { amount: 2 }, lost), 503, 'Service Unavailable');
    await s.everypay.callbacksIdle();
    expectErrorBody(await s.refund(order.code, { amount: 3 }, lost), 409, 'Conflict');
    // The retry of the refund the key was sent with finishes it, once.
    const retry = await s.refund(order.code, { amount: 2 }, lost);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toMatchObject({ payment: { refunded: 7 } });
    expect(refundsAsked(s, order.reference)).toEqual([500, 200]);
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(700);
  });
});

describe('EveryPay refusing the refund and the look-ups after it (credentials changed at its end, say)', () => {
  it('503 with the refund left to be finished, not a 500 that holds it for a minute; the retry refunds once', async () => {
    const order = await paidBook(s);
    const unauthorised = { status: 401, body: '{"error":{"code":4010,"message":"Unauthorized"}}' };
    // Every call refused: the refund, then the resumed refund's look-up of the payment.
    s.everypay.breakApi(unauthorised);
    for (let i = 0; i < 2; i += 1) {
      const refused = await s.refund(order.code, { amount: 5 });
      expectErrorBody(refused, 503, 'Service Unavailable');
      expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(0);
      expect(await refundRows(order.reference)).toEqual([{ state: 'unknown', amount_cents: 500 }]);
    }
    s.everypay.breakApi(null);
    // EveryPay takes the shop's credentials again: the same refund is finished at once, once.
    const retry = await s.refund(order.code, { amount: 5 });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toMatchObject({ payment: { refunded: 5 } });
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    expect(await refundRows(order.reference)).toEqual([{ state: 'refunded', amount_cents: 500 }]);
  });
});

/** The 503 of a refund the gateway refused as the shop's setup: it tells the operator to put the settings right, not to wait. */
function expectShopRefused(response: LightMyRequestResponse): void {
  expectErrorBody(response, 503, 'Service Unavailable');
  expect(response.json<{ message: string }>().message).toContain('keeldus poe enda päringust');
}

describe('EveryPay throttling the refund (429: try later)', () => {
  it('503 with the refund left to be finished, not a 409 that records it refused; the retry refunds once', async () => {
    const order = await paidBook(s);
    s.everypay.breakApi({ status: 429, body: '{"error":{"code":4290,"message":"Too many requests"}}' }, 1, REFUND_PATH);
    const throttled = await s.refund(order.code, { amount: 5 });
    expectErrorBody(throttled, 503, 'Service Unavailable');
    expect(throttled.json<{ message: string }>().message).toContain('ei ole kättesaadav');
    expect(await refundRows(order.reference)).toEqual([{ state: 'unknown', amount_cents: 500 }]);
    const retry = await s.refund(order.code, { amount: 5 });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    expect(await refundRows(order.reference)).toEqual([{ state: 'refunded', amount_cents: 500 }]);
  });
});

// EveryPay's 401 refuses the shop's API username or secret, not the refund: the operator puts the
// credentials right and the same refund goes through. The look-up after it still answers (the
// payment settled, nothing refunded), which is not the refund refused: only a refusal of what was
// asked (422: the amount, the payment's state) is.
describe('EveryPay refusing the credentials for the refund alone (401), the look-up answered', () => {
  it('503 with the refund left unknown, not a 409 that records it refused; the retry refunds once', async () => {
    const order = await paidBook(s);
    s.everypay.breakApi({ status: 401, body: '{"error":{"code":4010,"message":"Unauthorized"}}' }, 1, REFUND_PATH);
    expectShopRefused(await s.refund(order.code, { amount: 5 }));
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(0);
    expect(await refundRows(order.reference)).toEqual([{ state: 'unknown', amount_cents: 500 }]);
    const retry = await s.refund(order.code, { amount: 5 });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toMatchObject({ payment: { refunded: 5 } });
    // The refused request and the one that made it, both under the refund's own key.
    expect(refundsAsked(s, order.reference)).toEqual([500, 500]);
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    expect(await refundRows(order.reference)).toEqual([{ state: 'refunded', amount_cents: 500 }]);
  });

  it('a refusal of the refund itself (422) is still its answer: a 409, recorded refused, nothing refunded', async () => {
    const order = await paidBook(s);
    s.everypay.breakApi(
      { status: 422, body: '{"error":{"code":4225,"message":"Refund amount exceeds the standing amount"}}' },
      1,
      REFUND_PATH,
    );
    expectErrorBody(await s.refund(order.code, { amount: 5 }), 409, 'Conflict');
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(0);
    expect(await refundRows(order.reference)).toEqual([{ state: 'refused', amount_cents: 500 }]);
  });
});

// EVERYPAY_API_URL with a wrong host or path: the refund reaches another service, whose 404 says
// nothing of the payment (EveryPay's own 404 carries its error object). Taken for EveryPay's refusal,
// the refund was recorded refused for good.
describe("EveryPay's API address wrong: the refund met by a 404 that is not EveryPay's", () => {
  it('503 with the refund left unknown, not a 409 that records it refused; the address put right, the retry refunds once', async () => {
    const order = await paidBook(s);
    s.everypay.breakApi(NOT_EVERYPAYS_404, 1, REFUND_PATH);
    expectShopRefused(await s.refund(order.code, { amount: 5 }));
    expect(await refundRows(order.reference)).toEqual([{ state: 'unknown', amount_cents: 500 }]);
    const retry = await s.refund(order.code, { amount: 5 });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(refundedAtEveryPay(order.reference, order.totalCents)).toBe(500);
    expect(await refundRows(order.reference)).toEqual([{ state: 'refunded', amount_cents: 500 }]);
  });
});
