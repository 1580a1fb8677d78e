import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RETURN_VALID_DAYS, returnValidUntil } from '../../src/modules/gift-cards/gift-card-ledger.js';
import { expireCards } from '../../src/modules/gift-cards/index.js';
import { call, type Who } from '../basket/helpers.js';
import { firstHoldingThenSecond } from '../helpers/lock-waits.js';
import { createForm } from '../orders/everypay-helpers.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook } from '../orders/helpers.js';
import { paidVirtualCard, startRefundShop, type RefundShop } from '../orders/refund-helpers.js';
import { balance, card, cardId, dateIn, importCards, ledger, setExpiry } from './helpers.js';

// Money given back to a gift card must be usable. An order a card paid, refunded in full after the
// card's date had passed, put the money back on the expired card and the next hourly expiry took it
// all off again (an EXPIRY entry): the shopper got nothing back. The same for the card's share of an
// order given up unpaid (a declined payment) released onto a card that expired while it was held.
// Now a refund to a card past its date or within RETURN_VALID_DAYS of it gives it until the end of
// that many days' last day; a released share, the time the card had left when the order held it. The
// entry that gave the money back records the date, the expiry leaves it, and a later import of the
// card's line with its old date does not cut the days short.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterEach(async () => {
  await s.everypay.callbacksIdle();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;
const DAY = 86_400_000;

let nextIp = 10;
/** A guest with a book of `price` in the basket (+5.90 courier) and the card on it. */
async function shopperWithCard(price: number, code: string): Promise<Who> {
  const book = await stockedBook(s.t, s.shop, 50, price);
  const who = await fill(s.t, { ip: `10.0.7.${nextIp++}` }, [[book, 1]]);
  expect((await call(s.t, 'PUT', '/basket/delivery', who, { deliveryMethodId: s.shop.methods.COURIER })).statusCode).toBe(200);
  expect((await call(s.t, 'POST', '/basket/add-gift-card', who, { code })).statusCode).toBe(200);
  return who;
}
async function cardCheckout(who: Who) {
  const response = await checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }));
  expect(response.statusCode, response.body).toBe(200);
  return orderLink(response.json().location);
}
/** A card of 50.00 that paid a whole order of 25.90 (a 20.00 book, courier): the order's code. */
async function paidByCard(code: string): Promise<string> {
  const link = await cardCheckout(await shopperWithCard(20, code));
  expect((await s.t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
  const row = await db().selectFrom('customer_order').select(['status', 'code']).where('id', '=', link.orderId).executeTakeFirstOrThrow();
  expect(row.status).toBe('PENDING_PROCESSING');
  return row.code!;
}
async function refundInFull(orderCode: string) {
  const whole = await s.refund(orderCode, {});
  expect(whole.statusCode, whole.body).toBe(200);
  expect(whole.json()).toMatchObject({ status: 'CANCELLED' });
}
/** The card's entries that gave money back, with the date each gave. */
async function givenBack(code: string) {
  return db()
    .selectFrom('gift_card_entry')
    .select(['kind', 'amount_cents', 'extended_to'])
    .where('gift_card_id', '=', await cardId(db(), code))
    .where('amount_cents', '>', 0)
    .where('kind', 'in', ['REFUND', 'RELEASE'])
    .orderBy('id')
    .execute();
}
async function expiresAt(code: string) {
  const row = await db()
    .selectFrom('gift_card')
    .select('expires_at')
    .where('id', '=', await cardId(db(), code))
    .executeTakeFirstOrThrow();
  return Number(row.expires_at);
}
/** Runs `act` and answers the dates a return during it may have given (Tallinn's midnight may fall in between). */
async function validUntilAround(act: () => Promise<unknown>): Promise<number[]> {
  const before = returnValidUntil(Date.now());
  await act();
  return [before, returnValidUntil(Date.now())];
}

describe('money given back to an expired gift card', () => {
  it('a whole refund after the card expired: usable for 30 days, the expiry leaves it, and takes it after', async () => {
    const code = await card(s.t, 50);
    const orderCode = await paidByCard(code);
    // The card's date passed (the hourly expiry took what was left on it) before the refund.
    await setExpiry(db(), code, Date.now() - DAY);
    await expireCards(db(), Date.now());
    expect((await balance(s.t, code)).json()).toMatchObject({ valid: false });
    const until = await validUntilAround(() => refundInFull(orderCode));
    const extended = await expiresAt(code);
    expect(until).toContain(extended);
    expect(extended - Date.now()).toBeGreaterThan(RETURN_VALID_DAYS * DAY - DAY);
    expect(await givenBack(code)).toEqual([{ kind: 'REFUND', amount_cents: 2590, extended_to: extended }]);
    expect((await balance(s.t, code)).json()).toEqual({
      valid: true,
      balance: 25.9,
      currency: 'EUR',
      expiresAt: new Date(extended).toISOString(),
    });
    await expireCards(db(), Date.now());
    expect(await ledger(db(), code)).toMatchObject({
      balanceCents: 2590,
      entrySumCents: 2590,
      kinds: ['IMPORT', 'RESERVE', 'CAPTURE', 'EXPIRY', 'REFUND'],
    });
    // Spendable: a basket takes it and pays with it.
    const who = await shopperWithCard(20, code);
    const basket = await call(s.t, 'GET', '/basket', who);
    expect(basket.json()).toMatchObject({ giftCards: [{ usable: true, amount: 25.9 }] });
    // Past the new date the expiry takes it as any other.
    await expireCards(db(), extended);
    expect((await ledger(db(), code)).balanceCents).toBe(0);
  });

  it('a refund to a card with months left changes its date not', async () => {
    const code = await card(s.t, 50, dateIn(200));
    const before = await expiresAt(code);
    await refundInFull(await paidByCard(code));
    expect(await expiresAt(code)).toBe(before);
    expect(await givenBack(code)).toEqual([{ kind: 'REFUND', amount_cents: 2590, extended_to: null }]);
    expect((await balance(s.t, code)).json()).toMatchObject({ valid: true, balance: 50, expiresAt: new Date(before).toISOString() });
  });

  it('a refund to a card ending within 30 days gives it the 30 days', async () => {
    const code = await card(s.t, 50);
    const orderCode = await paidByCard(code);
    await setExpiry(db(), code, Date.now() + 10 * DAY);
    const until = await validUntilAround(() => refundInFull(orderCode));
    expect(until).toContain(await expiresAt(code));
    expect((await balance(s.t, code)).json()).toMatchObject({ valid: true, balance: 50 });
  });

  /** A guest's order of a 20.00 book that `code`'s card paid 10.00 of, held since `heldAgo` ms, declined now. */
  async function declinedAfterHolding(code: string, heldAgo: number, expiresIn: number) {
    const link = await cardCheckout(await shopperWithCard(20, code));
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 0, holds: [{ state: 'HELD', cents: 1000 }] });
    await db()
      .updateTable('gift_card_hold')
      .set({ created_at: Date.now() - heldAgo })
      .where('order_id', '=', link.orderId)
      .execute();
    await setExpiry(db(), code, Date.now() + expiresIn);
    const { reference } = await createForm(s, { ...link, code: '', totalCents: 0, productId: 0 });
    const before = Date.now();
    await s.everypay.shopper(reference, 'decline');
    await s.everypay.callbacksIdle();
    const status = await db().selectFrom('customer_order').select('status').where('id', '=', link.orderId).executeTakeFirstOrThrow();
    expect(status.status).toBe('PAYMENT_FAILED');
    return { before, after: Date.now() };
  }

  it('an unpaid order given up (a declined payment): a card that expired while it held the share gets back the time it had left', async () => {
    const code = await card(s.t, 10);
    // Held three days ago, when the card had two days left; its date passed yesterday.
    const { before, after } = await declinedAfterHolding(code, 3 * DAY, -DAY);
    const extended = await expiresAt(code);
    expect(extended).toBeGreaterThanOrEqual(before + 2 * DAY);
    expect(extended).toBeLessThanOrEqual(after + 2 * DAY + 1000);
    expect(await givenBack(code)).toEqual([{ kind: 'RELEASE', amount_cents: 1000, extended_to: extended }]);
    await expireCards(db(), Date.now());
    expect((await balance(s.t, code)).json()).toMatchObject({ valid: true, balance: 10, expiresAt: new Date(extended).toISOString() });
  });

  it('a released share gives a card still valid no more time: an order left unpaid cannot keep a card alive', async () => {
    const code = await card(s.t, 10);
    // Held a day ago, the card ending in ten days: it lost nothing, and 30 days here would renew it each month.
    await declinedAfterHolding(code, DAY, 10 * DAY);
    const kept = await expiresAt(code);
    expect(kept - Date.now()).toBeLessThan(10 * DAY);
    expect(await givenBack(code)).toEqual([{ kind: 'RELEASE', amount_cents: 1000, extended_to: null }]);
    expect((await balance(s.t, code)).json()).toMatchObject({ valid: true, balance: 10 });
  });

  it("the back office's line imported again with the card's old date keeps the 30 days; a later date wins", async () => {
    const code = await card(s.t, 50, dateIn(5));
    const orderCode = await paidByCard(code);
    await setExpiry(db(), code, Date.now() - DAY);
    await refundInFull(orderCode);
    const extended = await expiresAt(code);
    // The same line again (its old date): nothing changes.
    expect(await importCards(s.t, [{ code, balance: 50, expiresAt: dateIn(5) }])).toMatchObject({ outcomes: { unchanged: 1 } });
    expect(await expiresAt(code)).toBe(extended);
    // More loaded on it, the date it had before it expired (or an earlier one): the value moves, the date stays.
    await importCards(s.t, [{ code, balance: 60, expiresAt: dateIn(-3) }]);
    expect(await expiresAt(code)).toBe(extended);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 6000, entrySumCents: 6000 });
    await expireCards(db(), Date.now());
    expect((await balance(s.t, code)).json()).toMatchObject({ valid: true, balance: 60, expiresAt: new Date(extended).toISOString() });
    // A later date from the back office is the card's.
    await importCards(s.t, [{ code, balance: 60, expiresAt: dateIn(200) }]);
    expect(await expiresAt(code)).toBeGreaterThan(extended + 100 * DAY);
  });
});

describe('a card voided with the order that bought it', () => {
  it('stays expired when a share it paid comes back: its buyer was paid back all of it', async () => {
    const bought = await paidVirtualCard(s, 25);
    // The recipient puts all of it on a book of 40.00 (45.90 with the courier: 20.90 left to pay online).
    const book = await stockedBook(s.t, s.shop, 5, 40);
    const who = await fill(s.t, { ip: '10.0.8.1' }, [[book, 1]]);
    expect((await call(s.t, 'PUT', '/basket/delivery', who, { deliveryMethodId: s.shop.methods.COURIER })).statusCode).toBe(200);
    expect((await call(s.t, 'POST', '/basket/add-gift-card', who, { code: bought.cardCode })).statusCode).toBe(200);
    const link = await cardCheckout(who);
    // A refund of everything in the gateway's portal cancels the buyer's order and voids the card.
    await s.everypay.refund(bought.reference, bought.totalCents);
    await s.everypay.callbacksIdle();
    const order = await db().selectFrom('customer_order').select('status').where('id', '=', bought.orderId).executeTakeFirstOrThrow();
    expect(order.status).toBe('CANCELLED');
    // The recipient's payment is declined: the 25.00 held goes back to the voided card, which stays expired.
    const { reference } = await createForm(s, { ...link, code: '', totalCents: 0, productId: 0 });
    await s.everypay.shopper(reference, 'decline');
    await s.everypay.callbacksIdle();
    expect(await givenBack(bought.cardCode)).toEqual([{ kind: 'RELEASE', amount_cents: 2500, extended_to: null }]);
    expect((await balance(s.t, bought.cardCode)).json()).toMatchObject({ valid: false });
    const again = await fill(s.t, { ip: '10.0.8.2' }, [[book, 1]]);
    expect((await call(s.t, 'POST', '/basket/add-gift-card', again, { code: bought.cardCode })).statusCode).toBe(422);
  });
});

describe('a refund and the expiry at the same moment', () => {
  // The expiry reads the cards past their date, then takes each one's balance by a conditional
  // update; the refund credits the card and moves its date in one transaction. Either order, the
  // money given back stays on the card and the card stays valid.
  for (const refundFirst of [true, false]) {
    it(refundFirst ? 'the refund holds the card when the expiry comes' : 'the expiry holds the card when the refund comes', async () => {
      const code = await card(s.t, 50);
      const orderCode = await paidByCard(code);
      // 24.10 left on it when its date passed; the expiry has not run yet.
      await setExpiry(db(), code, Date.now() - DAY);
      const expiry = () => expireCards(db(), Date.now());
      if (refundFirst) await firstHoldingThenSecond(db(), 'gift_card_entry', () => refundInFull(orderCode), expiry);
      else await firstHoldingThenSecond(db(), 'gift_card_entry', expiry, () => refundInFull(orderCode));
      // Refund first: the expiry's update finds neither the balance nor the date it read, and takes
      // nothing; expiry first: it takes the 24.10 that had expired, and the refund's 25.90 stays.
      const keptCents = refundFirst ? 5000 : 2590;
      const kinds = ['IMPORT', 'RESERVE', 'CAPTURE', ...(refundFirst ? [] : ['EXPIRY']), 'REFUND'];
      expect(await ledger(db(), code)).toMatchObject({ balanceCents: keptCents, entrySumCents: keptCents, kinds });
      await expireCards(db(), Date.now());
      expect((await balance(s.t, code)).json()).toMatchObject({ valid: true, balance: keptCents / 100 });
    });
  }
});
