import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { card, ledger } from './helpers.js';

// No cent spent twice: the same card on 20 baskets checked out at once. Each checkout holds its
// share with a conditional write on the card's balance, so what the orders hold never passes what
// the card had, the balance never goes below zero, and it is always the sum of the entries; and
// no order holds less of the card than its basket showed.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  ({ t } = await createListeningApp({ env: { CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' } }));
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});

describe('the same card from 20 baskets at once', () => {
  it('never holds more than the card has; the losers get a 409 or a 422 and keep their basket', async () => {
    const code = await card(t, 50);
    // 14.10 + 5.90 courier: every basket is 20.00, so the card covers two and a half of them.
    const book = await stockedBook(t, shop, 100, 14.1);
    const shoppers = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const who = await fill(t, { ip: `10.1.0.${index + 1}` }, [[book, 1]]);
        const added = await call(t, 'POST', '/basket/add-gift-card', who, { code });
        expect(added.statusCode, added.body).toBe(200);
        expect(added.json()).toMatchObject({ giftCardAmount: 14.1 });
        return who;
      }),
    );
    const answers = await Promise.all(shoppers.map((who) => checkout(t, who, checkoutForm(shop))));
    const statuses = answers.map((answer) => answer.statusCode);
    for (const status of statuses) expect([200, 409, 422]).toContain(status);
    const placed = answers.filter((answer) => answer.statusCode === 200).map((answer) => orderLink(answer.json().location).orderId);
    // Two fit whole; a third that priced after the second committed would take the last 10.00 while
    // its basket showed the card paying 20.00: it is a 409 like the others.
    expect(placed).toHaveLength(2);

    const after = await ledger(t.database.db, code);
    const held = after.holds.reduce((sum, hold) => sum + hold.cents, 0);
    expect(held).toBeLessThanOrEqual(5000);
    expect(after.balanceCents).toBe(5000 - held);
    expect(after.balanceCents).toBeGreaterThanOrEqual(0);
    expect(after.entrySumCents).toBe(after.balanceCents);
    expect(after.heldCents).toBe(held);
    expect(after.holds.map((hold) => hold.orderId).sort()).toEqual([...placed].sort());
    // Each order: what the card paid and what is left to pay make its 20.00.
    const orders = await t.database.db
      .selectFrom('customer_order')
      .select(['id', 'total_cents', 'gift_card_cents'])
      .where('id', 'in', placed)
      .execute();
    for (const row of orders) expect([Number(row.total_cents), Number(row.gift_card_cents)]).toEqual([0, 2000]);
    expect(orders.reduce((sum, row) => sum + Number(row.gift_card_cents), 0)).toBe(held);
    // A refused shopper keeps the basket (and the card on it).
    const loser = shoppers[statuses.findIndex((status) => status !== 200)]!;
    expect((await call(t, 'GET', '/basket', loser)).json()).toMatchObject({ items: [{ quantity: 1 }] });
  });
});
