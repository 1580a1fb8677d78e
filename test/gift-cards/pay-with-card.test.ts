import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { call, type Who } from '../basket/helpers.js';
import { createForm, pageOf, startEveryPayShop, type EveryPayShop } from '../orders/everypay-helpers.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook } from '../orders/helpers.js';
import { card, ledger, newCode, setExpiry } from './helpers.js';
import { MINUTE, keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow(10 * MINUTE);

// Paying with gift cards through HTTP, with card payments at the local EveryPay server: the basket
// shows each card's share and the rest to pay, checkout holds the shares on the cards' ledgers,
// payment takes them, a failed payment releases them, a refund gives them back, and an order the
// cards pay in full skips the gateway.

let s: EveryPayShop;
let key: string;
beforeAll(async () => {
  s = await startEveryPayShop();
  key = await createApiKey(s.t.database.db, 'back-office', Date.now());
});
afterEach(async () => {
  await s.everypay.callbacksIdle();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

/** A guest with a 20.00 book in the basket (25.90 with the courier); a fresh address each. */
let nextIp = 10;
async function shopper(price = 20): Promise<{ who: Who; book: number }> {
  const book = await stockedBook(s.t, s.shop, 50, price);
  const who = await fill(s.t, { ip: `10.0.0.${nextIp++}` }, [[book, 1]]);
  const delivery = await call(s.t, 'PUT', '/basket/delivery', who, { deliveryMethodId: s.shop.methods.COURIER });
  expect(delivery.statusCode, delivery.body).toBe(200);
  return { who, book };
}
const addCard = (who: Who, code: string) => call(s.t, 'POST', '/basket/add-gift-card', who, { code });

async function order(orderId: number) {
  const row = await db()
    .selectFrom('customer_order')
    .select(['status', 'code', 'total_cents', 'gift_card_cents'])
    .where('id', '=', orderId)
    .executeTakeFirstOrThrow();
  return { status: row.status, code: row.code!, totalCents: Number(row.total_cents), giftCardCents: Number(row.gift_card_cents) };
}

async function cardCheckout(who: Who) {
  const response = await checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }));
  expect(response.statusCode, response.body).toBe(200);
  return orderLink(response.json().location);
}

describe('the basket with gift cards', () => {
  it('shows what each card pays and the rest; cards pay in the order they were added; a card comes off again', async () => {
    const { who } = await shopper();
    const small = await card(s.t, 5);
    const big = await card(s.t, 100);
    expect((await addCard(who, small)).statusCode).toBe(200);
    const answer = await addCard(who, big.toLowerCase());
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toMatchObject({
      total: 25.9,
      giftCards: [
        { code: small.replace(/-/g, '').slice(-4), amount: 5, balance: 5, usable: true },
        { code: big.replace(/-/g, '').slice(-4), amount: 20.9, balance: 100, usable: true },
      ],
      giftCardAmount: 25.9,
      toPay: 0,
    });
    // Adding the same card twice keeps one.
    expect((await addCard(who, small)).json().giftCards).toHaveLength(2);
    const removed = await call(s.t, 'DELETE', `/basket/remove-gift-card?code=${encodeURIComponent(small)}`, who);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toMatchObject({ giftCards: [{ amount: 25.9 }], giftCardAmount: 25.9, toPay: 0 });
    expect((await call(s.t, 'GET', '/basket', who)).json().giftCards).toHaveLength(1);
    // Not on the basket (any more): 404.
    expect((await call(s.t, 'DELETE', `/basket/remove-gift-card?code=${encodeURIComponent(small)}`, who)).statusCode).toBe(404);
    expect((await call(s.t, 'DELETE', `/basket/remove-gift-card?code=${encodeURIComponent(newCode())}`, who)).statusCode).toBe(404);
  });

  it('refuses unknown and expired codes alike (422), more than five cards, and bad input with a 4xx', async () => {
    const { who } = await shopper();
    const expired = await card(s.t, 10, '2020-01-01');
    const unknown = await addCard(who, newCode());
    const old = await addCard(who, expired);
    expect(unknown.statusCode).toBe(422);
    expect(old.statusCode).toBe(422);
    expect(old.json()).toEqual(unknown.json());
    for (let i = 0; i < 5; i++) expect((await addCard(who, await card(s.t, 1))).statusCode).toBe(200);
    expect((await addCard(who, await card(s.t, 1))).statusCode).toBe(422);
    for (const body of [{}, { code: 5 }, { code: '' }, { code: 'A\u0000BCDEFGH' }, { code: 'x'.repeat(65) }, { code: 'ABCD/EFGH' }, []]) {
      const response = await call(s.t, 'POST', '/basket/add-gift-card', who, body);
      expect(response.statusCode, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
    }
    expect((await call(s.t, 'DELETE', '/basket/remove-gift-card', who)).statusCode).toBe(400);
  });

  it('wrong codes from one address are rate-limited like discount codes', async () => {
    const { who } = await shopper();
    const right = await card(s.t, 3);
    for (let i = 0; i < 10; i++) expect((await addCard(who, newCode())).statusCode).toBe(422);
    const refused = await addCard(who, right);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
  });
});

describe('checkout and the ledger', () => {
  it('paid by card for the rest: the share is held at checkout and taken when EveryPay settles', async () => {
    const { who } = await shopper();
    const code = await card(s.t, 10);
    await addCard(who, code);
    const link = await cardCheckout(who);
    expect(await order(link.orderId)).toMatchObject({ status: 'NEW', totalCents: 1590, giftCardCents: 1000 });
    expect(await ledger(db(), code)).toMatchObject({
      balanceCents: 0,
      entrySumCents: 0,
      heldCents: 1000,
      holds: [{ orderId: link.orderId, cents: 1000, state: 'HELD' }],
    });
    // The basket is empty, gift cards too.
    expect((await call(s.t, 'GET', '/basket', who)).json()).toMatchObject({ items: [], giftCards: [] });
    const { reference } = await createForm(s, { ...link, code: '', totalCents: 0, productId: 0 });
    expect(s.everypay.payment(reference)).toMatchObject({ initialCents: 1590 });
    await s.everypay.shopper(reference, 'pay');
    await s.everypay.callbacksIdle();
    expect((await order(link.orderId)).status).toBe('PENDING_PROCESSING');
    expect(await ledger(db(), code)).toMatchObject({
      balanceCents: 0,
      heldCents: 0,
      kinds: ['IMPORT', 'RESERVE', 'CAPTURE'],
      holds: [{ state: 'CAPTURED' }],
    });

    // A full refund through EveryPay cancels the order and gives the card its share back.
    const refund = await s.t.app.inject({
      method: 'POST',
      url: `/admin/orders/${(await order(link.orderId)).code}/refund`,
      headers: { authorization: `Bearer ${key}` },
      payload: {},
    });
    expect(refund.statusCode, refund.body).toBe(200);
    expect(refund.json()).toMatchObject({ status: 'CANCELLED' });
    expect(await ledger(db(), code)).toMatchObject({
      balanceCents: 1000,
      entrySumCents: 1000,
      heldCents: 0,
      kinds: ['IMPORT', 'RESERVE', 'CAPTURE', 'REFUND'],
      holds: [{ state: 'REFUNDED' }],
    });
  });

  it('a declined payment releases the held share', async () => {
    const { who } = await shopper();
    const code = await card(s.t, 30);
    await addCard(who, code);
    const link = await cardCheckout(who);
    // 30.00 covers 25.90: nothing to pay online, so EVERYPAY is not even asked (below). Here: part.
    expect(await order(link.orderId)).toMatchObject({ totalCents: 0, giftCardCents: 2590 });
    const partial = await shopper(40);
    const second = await card(s.t, 15);
    await addCard(partial.who, second);
    const declined = await cardCheckout(partial.who);
    expect(await order(declined.orderId)).toMatchObject({ totalCents: 4590 - 1500, giftCardCents: 1500 });
    const { reference } = await createForm(s, { ...declined, code: '', totalCents: 0, productId: 0 });
    await s.everypay.shopper(reference, 'decline');
    await s.everypay.callbacksIdle();
    expect((await order(declined.orderId)).status).toBe('PAYMENT_FAILED');
    expect(await ledger(db(), second)).toMatchObject({
      balanceCents: 1500,
      entrySumCents: 1500,
      heldCents: 0,
      kinds: ['IMPORT', 'RESERVE', 'RELEASE'],
      holds: [{ state: 'RELEASED' }],
    });
  });

  it('nothing left to pay: create-form skips the gateway, the order is paid through the state machine, the share taken', async () => {
    const { who } = await shopper();
    const code = await card(s.t, 50);
    await addCard(who, code);
    const link = await cardCheckout(who);
    const calls = s.everypay.requests.length;
    const form = await s.t.app.inject({ method: 'GET', url: link.path });
    expect(form.statusCode, form.body).toBe(200);
    expect(pageOf(s.t, form.json().url)).toBe('finished');
    expect(s.everypay.requests.length).toBe(calls);
    expect(await order(link.orderId)).toMatchObject({ status: 'PENDING_PROCESSING', totalCents: 0, giftCardCents: 2590 });
    const history = await db()
      .selectFrom('order_status_change')
      .select('to_status')
      .where('order_id', '=', link.orderId)
      .orderBy('id')
      .execute();
    expect(history.map((row) => row.to_status)).toEqual(['NEW', 'PENDING_PROCESSING']);
    expect(await ledger(db(), code)).toMatchObject({
      balanceCents: 2410,
      entrySumCents: 2410,
      heldCents: 0,
      holds: [{ state: 'CAPTURED' }],
    });
    // Partial use: the rest stays on the card for the next basket.
    const next = await shopper(10);
    expect((await addCard(next.who, code)).json()).toMatchObject({ giftCards: [{ amount: 15.9, balance: 24.1 }], toPay: 0 });
  });

  it('a card that expired since it went on the basket refuses checkout (422) and writes nothing', async () => {
    const { who } = await shopper();
    const code = await card(s.t, 10);
    await addCard(who, code);
    await setExpiry(db(), code, Date.now() - 1000);
    expect((await call(s.t, 'GET', '/basket', who)).json()).toMatchObject({
      giftCards: [{ amount: 0, balance: 0, usable: false }],
      toPay: 25.9,
    });
    const response = await checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }));
    expect(response.statusCode, response.body).toBe(422);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 1000, kinds: ['IMPORT'], holds: [] });
    expect((await call(s.t, 'GET', '/basket', who)).json().items).toHaveLength(1);
  });
});
