import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveOrder } from '../../src/modules/orders/order-states.js';
import { importLines } from '../basket/import-helpers.js';
import { card, ledger } from '../gift-cards/helpers.js';
import { firstHoldingThenSecond } from '../helpers/lock-waits.js';
import { reservedQuantity } from '../helpers/table-counts.js';
import type { TestApp } from '../helpers/test-app.js';
import { call, checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';

// Checkout and an order's status change take the same rows: the buyer's event stream, the products'
// stock, the discount code, the gift cards. Each takes them in one order (order-states.ts), so two of
// them never each hold a row the other waits for; on PostgreSQL such a deadlock failed one of them
// (40P01), a checkout with a 500. Each interleaving is forced: the first holds its first row and
// waits on a table the test holds, the second then takes what it takes before it waits too, and
// only then does the test let go. SQLite runs one write transaction at a time: there they run one
// after the other, and must pass all the same.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  ({ t } = await createListeningApp({
    env: { CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' },
  }));
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});

const db = () => t.database.db;
const status = async (orderId: number) =>
  (await db().selectFrom('customer_order').select('status').where('id', '=', orderId).executeTakeFirstOrThrow()).status;

async function addCard(who: Parameters<typeof call>[3], code: string) {
  const added = await call(t, 'POST', '/basket/add-gift-card', who, { code });
  expect(added.statusCode, added.body).toBe(200);
}

/** The sweep's cancel of an unpaid order (order-sweep.ts), in a transaction of its own. */
const cancelUnpaid = (orderId: number) =>
  db()
    .transaction()
    .execute((trx) =>
      moveOrder(trx, {
        orderId,
        from: ['NEW', 'PENDING_PAYMENT'],
        to: 'CANCELLED',
        cause: 'unpaid after 30 minutes',
        now: Date.now(),
      }),
    );

describe('two checkouts paying with the same two gift cards, added the other way round', () => {
  it('one is placed, the other is refused (409 or 422); neither is a 500', async () => {
    // 14.10 + 5.90 courier: each basket is 20.00; each card pays 10.00 of it, and has 10.00.
    const [x, y] = [await card(t, 10), await card(t, 10)];
    const one = await fill(t, { ip: '10.91.0.1' }, [[await stockedBook(t, shop, 5, 14.1), 1]]);
    const two = await fill(t, { ip: '10.91.0.2' }, [[await stockedBook(t, shop, 5, 14.1), 1]]);
    await addCard(one, x);
    await addCard(one, y);
    await addCard(two, y);
    await addCard(two, x);
    // The first has debited its first card and waits to write its hold; the second then debits its
    // first card (the other one) before it waits too.
    const answers = await firstHoldingThenSecond(
      db(),
      'gift_card_hold',
      () => checkout(t, one, checkoutForm(shop, { billingEmail: 'one@example.ee' })),
      () => checkout(t, two, checkoutForm(shop, { billingEmail: 'two@example.ee' })),
    );
    // The second is refused as the cards' race is: a 409 where it priced the cards before the first
    // took them (PostgreSQL here), a 422 (nothing left on them) where it priced after (SQLite here).
    expect(answers[0].statusCode, answers[0].body).toBe(200);
    expect([409, 422], answers[1].body).toContain(answers[1].statusCode);
    const placed = orderLink(answers[0].json().location).orderId;
    for (const code of [x, y]) {
      const after = await ledger(db(), code);
      expect(after.balanceCents).toBe(0);
      expect(after.holds).toEqual([{ orderId: placed, cents: 1000, state: 'HELD' }]);
    }
  });
});

describe('an unpaid order cancelled while its buyer checks out the same book again', () => {
  it('both go through: the order is cancelled, the new one placed, the stock held once', async () => {
    const book = await stockedBook(t, shop, 5);
    const form = checkoutForm(shop, { billingEmail: 'again@example.ee' });
    const first = await checkout(t, await fill(t, { ip: '10.91.1.1' }, [[book, 1]]), form);
    expect(first.statusCode, first.body).toBe(200);
    const unpaid = orderLink(first.json().location).orderId;
    const again = await fill(t, { ip: '10.91.1.2' }, [[book, 1]]);
    // The cancel has released the book's stock and waits to clear its lines' holds; the checkout then
    // writes the buyer's order.created event (the stream's row) before it waits too.
    const [cancelled, placed] = await firstHoldingThenSecond(
      db(),
      'order_line',
      () => cancelUnpaid(unpaid),
      () => checkout(t, again, form),
    );
    expect(cancelled).toBe(true);
    expect(placed.statusCode, placed.body).toBe(200);
    expect(await status(unpaid)).toBe('CANCELLED');
    expect(await reservedQuantity(db(), book)).toBe(1);
  });
});

describe('an order with a code and a gift card cancelled while another checkout uses both', () => {
  it('both go through: the cancel gives back the code and the card, the checkout takes them', async () => {
    expect((await importLines(t, 'discount-codes', [{ code: 'LUKK10', percent: 10 }])).statusCode).toBe(200);
    const x = await card(t, 100);
    const withCode = async (ip: string) => {
      const who = await fill(t, { ip }, [[await stockedBook(t, shop, 5, 14.1), 1]]);
      const added = await call(t, 'POST', '/basket/add-discount', who, {
        code: 'LUKK10',
      });
      expect(added.statusCode, added.body).toBe(200);
      await addCard(who, x);
      return who;
    };
    const first = await checkout(t, await withCode('10.91.2.1'), checkoutForm(shop, { billingEmail: 'first@example.ee' }));
    expect(first.statusCode, first.body).toBe(200);
    const unpaid = orderLink(first.json().location).orderId;
    const other = await withCode('10.91.2.2');
    // The cancel has credited the card and waits to write its ledger entry; the checkout then counts
    // the code's use before it waits too.
    const [cancelled, placed] = await firstHoldingThenSecond(
      db(),
      'gift_card_entry',
      () => cancelUnpaid(unpaid),
      () => checkout(t, other, checkoutForm(shop, { billingEmail: 'other@example.ee' })),
    );
    expect(cancelled).toBe(true);
    expect(placed.statusCode, placed.body).toBe(200);
    const used = await db().selectFrom('discount_code').select('used_count').where('code', '=', 'LUKK10').executeTakeFirstOrThrow();
    expect(Number(used.used_count)).toBe(1);
    const after = await ledger(db(), x);
    expect(after.holds.map((hold) => hold.state)).toEqual(['RELEASED', 'HELD']);
    expect(after.balanceCents).toBe(10000 - after.holds[1]!.cents);
  });
});
