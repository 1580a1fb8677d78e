import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { expectErrorBody } from '../helpers/http.js';
import { reservedQuantity, rowCount } from '../helpers/table-counts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, fill, orderLink, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { card, ledger } from './helpers.js';

// One card on two baskets, and another order spends it between the shopper's look at the basket and
// their checkout. The basket showed the card paying a share worked out from the balance the shopper
// saw when putting it on; a checkout where it would pay less is a 409 that changes nothing (the
// shopper would otherwise pay the rest online unawares). Read again, the basket shows the new share,
// and the next checkout holds that.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  t = await createTestApp({ env: { TEST_GATEWAY: 'on', CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' } });
  shop = await setUpShop(t);
});
afterAll(() => t?.close());

const db = () => t.database.db;
interface CardBasket {
  giftCards: Array<{ amount: number; balance: number }>;
  giftCardAmount: number;
  toPay: number;
  version: string;
}

/** A guest basket of one book (plus 5.90 courier) paid with the card; the answer as the shopper saw it. */
async function basketWithCard(code: string, bookPrice: number, ip: string) {
  const book = await stockedBook(t, shop, 10, bookPrice);
  const who = await fill(t, { ip }, [[book, 1]]);
  expect((await call(t, 'PUT', '/basket/delivery', who, { deliveryMethodId: shop.methods.COURIER })).statusCode).toBe(200);
  const added = await call(t, 'POST', '/basket/add-gift-card', who, { code });
  expect(added.statusCode, added.body).toBe(200);
  return { who, book, shown: added.json() as CardBasket };
}

const ordersOf = (ids: number[]) =>
  db().selectFrom('customer_order').select(['id', 'total_cents', 'gift_card_cents']).where('id', 'in', ids).execute();
const orderCount = () => rowCount(db(), 'customer_order');
const reserved = (id: number) => reservedQuantity(db(), id);

describe('a card another order spent after the shopper saw the basket', () => {
  it('is a 409 that changes nothing; read again, the basket shows the new share and the checkout holds it', async () => {
    const code = await card(t, 30);
    // 21.36 + 5.90 = 27.26 and 14.10 + 5.90 = 20.00: the card showed both baskets paid in full.
    const first = await basketWithCard(code, 21.36, '10.2.0.1');
    const second = await basketWithCard(code, 14.1, '10.2.0.2');
    expect([first.shown.giftCardAmount, first.shown.toPay, second.shown.giftCardAmount, second.shown.toPay]).toEqual([27.26, 0, 20, 0]);
    const placed = await checkout(t, first.who, checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
    expect((await ledger(db(), code)).balanceCents).toBe(274);

    const orders = await orderCount();
    const refused = await checkout(t, second.who, checkoutForm(shop), { 'x-app-language': 'en' });
    const body = expectErrorBody(refused, 409, 'Conflict');
    expect(body.message).toBe(`The balance of gift card …${code.replace(/-/g, '').slice(-4)} changed; look at the basket again.`);
    // Nothing changed: no order, the card's 2.74 untouched, the basket and its stock as they were.
    expect(await orderCount()).toBe(orders);
    const after = await ledger(db(), code);
    expect([after.balanceCents, after.entrySumCents, after.holds.length]).toEqual([274, 274, 1]);
    expect(await reserved(second.book)).toBe(0);
    const reread = (await call(t, 'GET', '/basket', second.who)).json() as CardBasket & { items: unknown[] };
    expect([reread.version, reread.items.length]).toEqual([second.shown.version, 1]);
    // The basket read again shows what the card pays now, and the checkout holds just that.
    expect([reread.giftCards[0]!.amount, reread.giftCardAmount, reread.toPay]).toEqual([2.74, 2.74, 17.26]);
    const retried = await checkout(t, second.who, checkoutForm(shop));
    expect(retried.statusCode, retried.body).toBe(200);
    const [order] = await ordersOf([orderLink(retried.json().location).orderId]);
    expect([Number(order!.gift_card_cents), Number(order!.total_cents)]).toEqual([274, 1726]);
    const spent = await ledger(db(), code);
    expect([spent.balanceCents, spent.entrySumCents, spent.holds.length]).toEqual([0, 0, 2]);
  });

  it('two checkouts at once: one holds its full share and the other is a 409 when both do not fit, both go when they do', async () => {
    for (const [balance, prices, fit] of [
      [30, [21.36, 14.1], false],
      [50, [14.1, 14.1], true],
    ] as const) {
      const code = await card(t, balance);
      const baskets = await Promise.all(prices.map((price, index) => basketWithCard(code, price, `10.3.${balance}.${index + 1}`)));
      const orders = await orderCount();
      const answers = await Promise.all(baskets.map(({ who }) => checkout(t, who, checkoutForm(shop))));
      const won = answers.flatMap((answer, index) => (answer.statusCode === 200 ? [index] : []));
      expect(won, JSON.stringify(answers.map((answer) => answer.body))).toHaveLength(fit ? 2 : 1);
      for (const [index, answer] of answers.entries()) if (!won.includes(index)) expectErrorBody(answer, 409, 'Conflict');
      expect(await orderCount()).toBe(orders + won.length);
      // Each order placed holds the card's whole share: what the basket showed, nothing left to pay.
      const placed = await ordersOf(won.map((index) => orderLink(answers[index]!.json().location).orderId));
      for (const order of placed) expect(Number(order.total_cents)).toBe(0);
      const shares = won.map((index) => Math.round(baskets[index]!.shown.giftCardAmount * 100));
      expect(placed.map((order) => Number(order.gift_card_cents)).sort()).toEqual([...shares].sort());
      // The ledger never goes below zero and adds up; a refused basket holds nothing and keeps its stock.
      const after = await ledger(db(), code);
      const held = shares.reduce((sum, cents) => sum + cents, 0);
      expect([after.balanceCents, after.entrySumCents, after.heldCents]).toEqual([balance * 100 - held, balance * 100 - held, held]);
      expect(after.balanceCents).toBeGreaterThanOrEqual(0);
      for (const [index, basket] of baskets.entries()) if (!won.includes(index)) expect(await reserved(basket.book)).toBe(0);
    }
  });
});
