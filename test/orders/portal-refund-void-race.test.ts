import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { balance, ledger } from '../gift-cards/helpers.js';
import { firstHoldingThenSecond } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { createForm } from './everypay-helpers.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook } from './helpers.js';
import { paidVirtualCard, startRefundShop, type RefundShop } from './refund-helpers.js';

// A refund of everything made in EveryPay's portal cancels the order, which voids the gift card it
// bought: what is left comes off and the card expires. Its recipient spends part of the card in a
// checkout at that moment. The void read the balance unlocked and emptied the card only while it
// still had that balance: on PostgreSQL a checkout that took its share between the read and the write
// left the card unvoided (the refund's take-off emptied it, but it never expired), so once that
// checkout's payment failed and its share came back, the card was spendable again although the
// buyer had been paid back all of it. The void now reads the card under its row's lock.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

describe.runIf(engine === 'postgres')('a portal refund of everything while the recipient spends the card the order bought', () => {
  it('voids the card all the same: the share that comes back later cannot be spent', async () => {
    const bought = await paidVirtualCard(s, 25);
    // The recipient spends all of it on a book of 40.00 (with the 5.90 courier, 45.90: 20.90 left to pay online).
    const book = await stockedBook(s.t, s.shop, 5, 40);
    const who = await fill(s.t, { ip: '10.0.6.1' }, [[book, 1]]);
    expect((await call(s.t, 'PUT', '/basket/delivery', who, { deliveryMethodId: s.shop.methods.COURIER })).statusCode).toBe(200);
    const added = await call(s.t, 'POST', '/basket/add-gift-card', who, { code: bought.cardCode });
    expect(added.statusCode, added.body).toBe(200);
    const form = checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY', billingEmail: 'recipient@example.ee' });

    // The checkout has taken its share off the card's balance and waits to write its hold; the refund's
    // void has read the balance and waits for the card's row.
    const [placed] = await firstHoldingThenSecond(
      db(),
      'gift_card_hold',
      () => checkout(s.t, who, form),
      () => s.everypay.refund(bought.reference, bought.totalCents),
    );
    await s.everypay.callbacksIdle();
    expect(placed.statusCode, placed.body).toBe(200);
    const order = await db().selectFrom('customer_order').select('status').where('id', '=', bought.orderId).executeTakeFirstOrThrow();
    expect(order.status).toBe('CANCELLED');
    expect(await ledger(db(), bought.cardCode)).toMatchObject({ balanceCents: 0, entrySumCents: 0 });

    // The recipient's payment is declined: the 25.00 held goes back to the card, which was voided.
    const link = orderLink(placed.json().location);
    const { reference } = await createForm(s, { ...link, code: '', totalCents: 0, productId: 0 });
    await s.everypay.shopper(reference, 'decline');
    await s.everypay.callbacksIdle();
    const spending = await db().selectFrom('customer_order').select('status').where('id', '=', link.orderId).executeTakeFirstOrThrow();
    expect(spending.status).toBe('PAYMENT_FAILED');
    expect((await balance(s.t, bought.cardCode)).json()).toMatchObject({ valid: false });
    const again = await fill(s.t, { ip: '10.0.6.2' }, [[book, 1]]);
    expect((await call(s.t, 'POST', '/basket/add-gift-card', again, { code: bought.cardCode })).statusCode).toBe(422);
  });
});
