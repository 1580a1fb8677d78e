import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { ledger } from '../gift-cards/helpers.js';
import { firstHoldingThenSecond } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, stockedBook } from './helpers.js';
import { paidVirtualCard, startRefundShop, type RefundShop } from './refund-helpers.js';

// A refund of everything made in EveryPay's portal reaches the shop by its callback: the value left
// on the gift card the order bought comes off it, and the order is cancelled. Its buyer may be
// spending that card in a checkout at that moment. The status change takes the order's rows in
// order-states.ts's lock order (the order, the buyer's event stream, stock, code, gift cards last), as
// checkout does; the card's share was taken off before all of them, so on PostgreSQL the callback
// held the card and waited for the buyer's stream while the checkout held the stream and waited for
// the card: a deadlock, and the checkout a 500. The checkout is now the 409 of a card that pays
// less than the basket showed.

let s: RefundShop;
beforeAll(async () => {
  s = await startRefundShop();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;

describe.runIf(engine === 'postgres')("a portal refund of everything while the order's buyer spends the card it bought", () => {
  it('the checkout is a 409, not a 500; the order is cancelled and the card emptied once', async () => {
    const bought = await paidVirtualCard(s, 10);
    // The buyer spends the card on another book (the same billing email: the same event stream).
    const book = await stockedBook(s.t, s.shop, 5, 20);
    const who = await fill(s.t, { ip: '10.0.7.1' }, [[book, 1]]);
    const added = await call(s.t, 'POST', '/basket/add-gift-card', who, { code: bought.cardCode });
    expect(added.statusCode, added.body).toBe(200);

    const [, placed] = await firstHoldingThenSecond(
      db(),
      'gift_card_entry',
      () => s.everypay.refund(bought.reference, bought.totalCents),
      () => checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' })),
    );
    await s.everypay.callbacksIdle();

    expect(placed.statusCode, placed.body).toBe(409);
    const order = await db().selectFrom('customer_order').select('status').where('id', '=', bought.orderId).executeTakeFirstOrThrow();
    expect(order.status).toBe('CANCELLED');
    expect(await ledger(db(), bought.cardCode)).toMatchObject({ balanceCents: 0, entrySumCents: 0 });
  });
});
