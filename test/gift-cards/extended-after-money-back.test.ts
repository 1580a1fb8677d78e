import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expireCards } from '../../src/modules/gift-cards/index.js';
import { call, type Who } from '../basket/helpers.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook } from '../orders/helpers.js';
import { startRefundShop, type RefundShop } from '../orders/refund-helpers.js';
import { balance, card, dateIn, importCards, ledger, setExpiry } from './helpers.js';

// An expired physical card the back office gives a later date gets back what the hourly expiry took
// (expired-then-extended.test.ts). That was judged from the card's date as it stood: an order refunded
// onto the expired card first (money back gives it 30 days) made the card look valid, and the back
// office's later date then brought back nothing of what the expiry took. The same card, the same
// lines, ended with 25.90 or with 50.00 depending on whether the refund or the import came first.

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
/** A card of 50.00 that paid a whole order of 25.90 (a 20.00 book, courier): the order's code. */
async function paidByCard(code: string): Promise<string> {
  const book = await stockedBook(s.t, s.shop, 50, 20);
  const who: Who = await fill(s.t, { ip: `10.0.8.${nextIp++}` }, [[book, 1]]);
  expect((await call(s.t, 'PUT', '/basket/delivery', who, { deliveryMethodId: s.shop.methods.COURIER })).statusCode).toBe(200);
  expect((await call(s.t, 'POST', '/basket/add-gift-card', who, { code })).statusCode).toBe(200);
  const response = await checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }));
  expect(response.statusCode, response.body).toBe(200);
  const link = orderLink(response.json().location);
  expect((await s.t.app.inject({ method: 'GET', url: link.path })).statusCode).toBe(200);
  const row = await db().selectFrom('customer_order').select(['status', 'code']).where('id', '=', link.orderId).executeTakeFirstOrThrow();
  expect(row.status).toBe('PENDING_PROCESSING');
  return row.code!;
}

/** A card of 50.00 that paid 25.90 of an order, then passed its date; the hourly expiry took the 24.10 left. */
async function expiredAfterPaying(): Promise<{ code: string; orderCode: string }> {
  const code = await card(s.t, 50);
  const orderCode = await paidByCard(code);
  await setExpiry(db(), code, Date.now() - DAY);
  expect(await expireCards(db(), Date.now())).toBe(1);
  expect(await ledger(db(), code)).toMatchObject({ balanceCents: 0, entrySumCents: 0 });
  return { code, orderCode };
}

async function refundInFull(orderCode: string) {
  const whole = await s.refund(orderCode, {});
  expect(whole.statusCode, whole.body).toBe(200);
}

describe('an expired card given a later date by the back office, and money given back to it', () => {
  it('the import first, then the refund: the card holds its whole 50.00', async () => {
    const { code, orderCode } = await expiredAfterPaying();
    await importCards(s.t, [{ code, balance: 50, expiresAt: dateIn(200) }]);
    await refundInFull(orderCode);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 5000, entrySumCents: 5000 });
  });

  it('the refund first, then the import: the same 50.00, what the expiry took comes back once', async () => {
    const { code, orderCode } = await expiredAfterPaying();
    await refundInFull(orderCode);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 2590, entrySumCents: 2590 });
    await importCards(s.t, [{ code, balance: 50, expiresAt: dateIn(200) }]);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 5000, entrySumCents: 5000 });
    expect((await balance(s.t, code)).json()).toMatchObject({ valid: true, balance: 50 });
    // The line again, or a later date still, gives nothing more.
    await importCards(s.t, [{ code, balance: 50, expiresAt: dateIn(200) }]);
    await importCards(s.t, [{ code, balance: 50, expiresAt: dateIn(300) }]);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 5000, entrySumCents: 5000 });
  });

  it('a date of its own still to come but before the 30 days the refund gave: the value comes back, the 30 days stay', async () => {
    const { code, orderCode } = await expiredAfterPaying();
    await refundInFull(orderCode);
    const extended = (await balance(s.t, code)).json().expiresAt;
    expect(await importCards(s.t, [{ code, balance: 50, expiresAt: dateIn(10) }])).toMatchObject({ outcomes: { updated: 1 } });
    expect((await balance(s.t, code)).json()).toMatchObject({ valid: true, balance: 50, expiresAt: extended });
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 5000, entrySumCents: 5000 });
  });

  // Two imports of one kind never run at once (the second is a 409): the import's lock.
  it('the refund and the import at once: 50.00, the ledger adding up', async () => {
    const { code, orderCode } = await expiredAfterPaying();
    await Promise.all([refundInFull(orderCode), importCards(s.t, [{ code, balance: 50, expiresAt: dateIn(200) }])]);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 5000, entrySumCents: 5000, heldCents: 0 });
  });

  it("the card's line with its old date after the refund gives back nothing: the back office did not extend it", async () => {
    const { code, orderCode } = await expiredAfterPaying();
    await refundInFull(orderCode);
    await importCards(s.t, [{ code, balance: 50, expiresAt: dateIn(-1) }]);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 2590, entrySumCents: 2590 });
  });
});
