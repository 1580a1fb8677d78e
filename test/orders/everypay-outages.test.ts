import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import {
  createForm,
  pageOf,
  placeCardOrder,
  settleEveryPay,
  shopperReturns,
  startEveryPayShop,
  viewOrder,
  type EveryPayShop,
  type PlacedOrder,
} from './everypay-helpers.js';

// EveryPay down at each step of a card purchase (the order stays where it was and can go on when
// EveryPay is back), and an operator's refunds through EveryPay. Real HTTP both ways.

let s: EveryPayShop;
beforeAll(async () => {
  // A look-up that meets EveryPay down pauses the callbacks' and returns' look-ups; a second here (callback-outage-pause.test.ts).
  s = await startEveryPayShop({ PAYMENT_CALLBACK_GATEWAY_PAUSE: '1s' });
});
const waitOutPause = () => sleep(1100);
afterEach(() => settleEveryPay(s));
afterAll(async () => {
  await s?.close();
});

const view = (order: PlacedOrder) => viewOrder(s.t, order);

describe('EveryPay down', () => {
  for (const [what, breakage] of [
    ['a 503', { status: 503 }],
    ['no answer', 'hang'],
    ['an answer that is not JSON', 'bad-json'],
  ] as const)
    it(`create-form with ${what} from EveryPay is a 503; the order is back in NEW and a retry pays`, async () => {
      const order = await placeCardOrder(s);
      s.everypay.breakApi(breakage, 1);
      const down = await fetch(`${s.origin}${order.path}`);
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toBe('30');
      expect(await view(order)).toMatchObject({ status: 'NEW', moves: ['NEW', 'PENDING_PAYMENT', 'NEW'], reserved: 1 });
      expect(s.everypay.paymentsFor(order.code)).toEqual([]);

      const { reference } = await createForm(s, order);
      expect(s.everypay.paymentsFor(`${order.code}-2`).map((payment) => payment.reference)).toEqual([reference]);
      await s.everypay.settle(reference);
      expect(await view(order)).toMatchObject({
        status: 'PENDING_PROCESSING',
        moves: ['NEW', 'PENDING_PAYMENT', 'NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING'],
        jobs: 1,
      });
    });

  it('a payment EveryPay made but whose answer was lost: the retry is a new attempt under its own order reference, and it pays', async () => {
    const order = await placeCardOrder(s);
    s.everypay.breakApi('lost-answer', 1);
    const lost = await fetch(`${s.origin}${order.path}`);
    expect(lost.status).toBe(503);
    // EveryPay holds a payment under the order's code that the shop never heard of.
    expect(s.everypay.paymentsFor(order.code)).toHaveLength(1);
    expect(await view(order)).toMatchObject({ status: 'NEW' });

    const { reference } = await createForm(s, order);
    const retried = s.everypay.paymentsFor(`${order.code}-2`);
    expect(retried.map((payment) => payment.reference)).toEqual([reference]);
    await s.everypay.settle(reference);
    expect(await view(order)).toMatchObject({ status: 'PENDING_PROCESSING', jobs: 1 });
  });

  it("a callback EveryPay's API cannot confirm is a 503 and changes nothing; EveryPay's retry applies it", async () => {
    const order = await placeCardOrder(s);
    const { reference } = await createForm(s, order);
    s.everypay.holdCallbacks();
    await s.everypay.shopper(reference, 'pay');
    s.everypay.breakApi({ status: 502 });
    const [refused] = await s.everypay.releaseCallbacks();
    expect(refused!.status).toBe(503);
    expect(await view(order)).toMatchObject({ status: 'PENDING_PAYMENT', moves: ['NEW', 'PENDING_PAYMENT'], jobs: 0, inbox: [] });

    // EveryPay retries once the shop's pause of its look-ups is over.
    s.everypay.breakApi(null);
    await waitOutPause();
    const [retried] = await s.everypay.notify(reference);
    expect(retried!.status).toBe(200);
    expect(await view(order)).toMatchObject({ status: 'PENDING_PROCESSING', moves: ['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING'] });
  });

  // Before, each return asked EveryPay whatever the callbacks had met, limited only per address.
  it("returns and callbacks share the pause of EveryPay's look-ups; a return during it asks nothing and lands on the finished page", async () => {
    const order = await placeCardOrder(s);
    const { reference } = await createForm(s, order);
    const lookUps = () => s.everypay.requests.filter((request) => request.path === `/api/v4/payments/${reference}`).length;
    s.everypay.holdCallbacks();
    const back = await s.everypay.shopper(reference, 'pay');
    s.everypay.breakApi({ status: 502 });
    // The callback meets EveryPay down: a 503, and the look-ups pause.
    const [callback] = await s.everypay.releaseCallbacks();
    expect(callback!.status).toBe(503);
    expect(lookUps()).toBe(1);

    // The shopper's return during the pause asks nothing: the finished page, which shows the payment pending.
    const returned = await shopperReturns(back);
    expect(returned.status).toBe(303);
    expect(pageOf(s.t, returned.location)).toBe('finished');
    const result = await s.t.app.inject({
      method: 'POST',
      url: '/bank/payment-result',
      payload: { orderId: order.orderId, checksum: order.checksum },
    });
    expect(result.json()).toMatchObject({ result: 'PENDING' });
    // A silent ping gets its empty 200, asking nothing either.
    const ping = await fetch(`${back}&VK_AUTO=Y`, { redirect: 'manual' });
    expect([ping.status, await ping.text()]).toEqual([200, '']);
    expect(lookUps()).toBe(1);

    // After the pause, still down: the return's own look-up meets the outage, redirects all the same,
    // and pauses the look-ups again, the callbacks' too: EveryPay's retry is a 503 that asks nothing.
    await waitOutPause();
    const again = await shopperReturns(back);
    expect([again.status, pageOf(s.t, again.location)]).toEqual([303, 'finished']);
    expect(lookUps()).toBe(2);
    const [retried] = await s.everypay.notify(reference);
    expect(retried!.status).toBe(503);
    expect(lookUps()).toBe(2);
    expect(await view(order)).toMatchObject({ status: 'PENDING_PAYMENT', moves: ['NEW', 'PENDING_PAYMENT'], jobs: 0, inbox: [] });

    // EveryPay back and the pause over: the return settles the order, once; the later return and callback change nothing.
    s.everypay.breakApi(null);
    await waitOutPause();
    const settled = await shopperReturns(back);
    expect([settled.status, pageOf(s.t, settled.location)]).toEqual([303, 'finished']);
    expect(lookUps()).toBe(3);
    expect((await shopperReturns(back)).status).toBe(303);
    expect(lookUps()).toBe(3);
    const [late] = await s.everypay.notify(reference);
    expect(late!.status).toBe(200);
    expect(await view(order)).toMatchObject({
      status: 'PENDING_PROCESSING',
      moves: ['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING'],
      jobs: 1,
      inbox: [{ reference, state: 'settled', outcome: 'applied', received: 2 }],
    });
  });
});

describe("an order's payment started again and again while EveryPay refuses it", () => {
  it('ten starts an hour, each asking EveryPay once; then a 429 that asks nothing and writes nothing; an hour on, it pays', async () => {
    const order = await placeCardOrder(s);
    // EveryPay refuses every payment of the order (over the account's limit, say): each start puts it back in NEW.
    s.everypay.breakApi({ status: 422, body: '{"error":{"code":4999,"message":"Amount over the limit"}}' });
    const asked = () => s.everypay.requests.filter((request) => request.path === '/api/v4/payments/oneoff').length;
    const before = asked();
    for (let start = 1; start <= 10; start += 1) expect((await fetch(`${s.origin}${order.path}`)).status).toBe(503);
    expect(asked() - before).toBe(10);
    const started = await view(order);
    expect(started.moves).toHaveLength(21);

    const refused = await fetch(`${s.origin}${order.path}`);
    expect(refused.status, await refused.clone().text()).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect((await refused.json()) as object).toMatchObject({ status: 429 });
    expect(asked() - before).toBe(10);
    expect(await view(order)).toEqual(started);

    // An hour later (the attempts made an hour earlier), with EveryPay taking it again.
    s.everypay.breakApi(null);
    await s.t.database.db
      .updateTable('order_payment')
      .set((eb) => ({ created_at: eb('created_at', '-', 3_600_000) }))
      .where('order_id', '=', order.orderId)
      .execute();
    const { reference } = await createForm(s, order);
    await s.everypay.settle(reference);
    expect(await view(order)).toMatchObject({ status: 'PENDING_PROCESSING', jobs: 1 });
  });
});

describe('an operator refunds through EveryPay', () => {
  it('part, then the rest: EveryPay refunds each sum once, the full refund cancels the order, its callbacks change nothing more', async () => {
    const key = await createApiKey(s.t.database.db, 'back-office', Date.now());
    const refund = (body: object) =>
      fetch(`${s.origin}/admin/orders/${order.code}/refund`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const order = await placeCardOrder(s);
    const { reference } = await createForm(s, order);
    await s.everypay.settle(reference);
    await s.t.drainJobs();
    const processed = (await view(order)).status;
    expect(['PROCESSING', 'PENDING_NAV_PROCESSING', 'COMPLETED']).toContain(processed);

    const part = await refund({ amount: 5.5 });
    expect(part.status).toBe(200);
    expect(await part.json()).toMatchObject({ payment: { state: 'refunded', refunded: 5.5 }, status: processed });
    await s.everypay.callbacksIdle();
    expect(s.everypay.payment(reference)!.standingCents).toBe(order.totalCents - 550);
    const refunds = () => s.everypay.requests.filter((request) => request.path === '/api/v4/payments/refund');
    expect(refunds().map((request) => request.rawBody)).toEqual([expect.stringContaining('"amount":5.50')]);

    expect((await refund({ amount: 100 })).status).toBe(409);
    const rest = await refund({});
    expect(rest.status).toBe(200);
    expect(await rest.json()).toMatchObject({ payment: { refunded: order.totalCents / 100 }, status: 'CANCELLED' });
    await s.everypay.callbacksIdle();
    expect(s.everypay.payment(reference)!.standingCents).toBe(0);
    // Nothing left (the same refund again at once would be a double click, answered with the rest's).
    expect((await refund({ amount: 1 })).status).toBe(409);
    expect(refunds()).toHaveLength(2);

    const after = await view(order);
    expect(after.moves.filter((move) => move === 'CANCELLED')).toHaveLength(1);
    expect(after.moves.at(-1)).toBe('CANCELLED');
    expect(after.inbox.map(({ state, outcome }) => [state, outcome])).toEqual([
      [`refunded:${order.totalCents}`, 'applied'],
      ['refunded:550', 'applied'],
      ['settled', 'applied'],
    ]);
    // EveryPay's own refund callbacks came too, and were recorded as repeats.
    expect(after.inbox.filter((entry) => entry.state.startsWith('refunded')).map((entry) => entry.received)).toEqual([2, 2]);
  });
});
