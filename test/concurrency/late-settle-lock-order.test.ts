import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, type Who } from '../basket/helpers.js';
import { card, ledger } from '../gift-cards/helpers.js';
import { firstHoldingThenSecond } from '../helpers/lock-waits.js';
import { reservedQuantity } from '../helpers/table-counts.js';
import { createForm, startEveryPayShop, type EveryPayShop } from '../orders/everypay-helpers.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook } from '../orders/helpers.js';

// A payment that settles after its order was given up revives the order: its stock is held again
// and its gift cards take their shares back. Checkout takes the same rows in the documented order
// (order-states.ts: the buyer's event stream, products, discount code, gift cards). The revival
// took the cards first, so on PostgreSQL a late settle and the same buyer's new checkout of the same
// book with the same card each held what the other waited for: a deadlock (40P01), failing one of
// them. The interleaving is forced as in order-lock-order.test.ts; on SQLite they run one after the other.

let s: EveryPayShop;
beforeAll(async () => {
  s = await startEveryPayShop();
});
afterEach(async () => {
  await s.everypay.callbacksIdle();
});
afterAll(async () => {
  await s?.close();
});
const db = () => s.t.database.db;
const status = async (orderId: number) =>
  (await db().selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status;

async function basketWith(book: number, code: string, ip: string): Promise<Who> {
  const who = await fill(s.t, { ip }, [[book, 1]]);
  expect((await call(s.t, 'PUT', '/basket/delivery', who, { deliveryMethodId: s.shop.methods.COURIER })).statusCode).toBe(200);
  expect((await call(s.t, 'POST', '/basket/add-gift-card', who, { code })).statusCode).toBe(200);
  return who;
}

describe('a late settle while the same buyer checks out the same book with the same gift card', () => {
  it('neither fails: the settled order is paid with the card, the new checkout finds the card taken', async () => {
    const book = await stockedBook(s.t, s.shop, 5, 20);
    const code = await card(s.t, 10);
    const form = checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY', billingEmail: 'late@example.ee' });
    const placed = await checkout(s.t, await basketWith(book, code, '10.92.0.1'), form);
    expect(placed.statusCode, placed.body).toBe(200);
    const link = orderLink(placed.json().location);
    const { reference } = await createForm(s, { ...link, code: '', totalCents: 0, productId: 0 });
    await s.everypay.shopper(reference, 'decline');
    await s.everypay.callbacksIdle();
    expect(await status(link.orderId)).toBe('PAYMENT_FAILED');
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 1000, holds: [{ state: 'RELEASED' }] });

    const again = await basketWith(book, code, '10.92.0.2');
    // The late settle has taken what it takes before writing the card's hold and waits there; the
    // checkout then takes what it takes before it waits too.
    const [settled, second] = await firstHoldingThenSecond(
      db(),
      'gift_card_hold',
      () => s.everypay.settle(reference),
      () => checkout(s.t, again, form),
    );
    expect(settled.map((callback) => callback.status)).toEqual([200]);
    expect(await status(link.orderId)).toBe('PENDING_PROCESSING');
    // The card's 10.00 went back to the settled order, so the new checkout has nothing to take from
    // it: refused (409 where it priced the card before the settle took it, 422 where after).
    expect([409, 422], second.body).toContain(second.statusCode);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 0, entrySumCents: 0, heldCents: 0, holds: [{ state: 'CAPTURED' }] });
    expect(await reservedQuantity(db(), book)).toBe(1);
  });
});
