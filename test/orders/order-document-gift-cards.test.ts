import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { call, type Who } from '../basket/helpers.js';
import { card } from '../gift-cards/helpers.js';
import { createForm, startEveryPayShop, type EveryPayShop } from './everypay-helpers.js';
import { checkout, checkoutForm, fill, orderLink, stockedBook } from './helpers.js';

// The whole order as the back office gets it (GET /admin/orders, the hand-off's POST, a refund's
// answer): its amounts say what gift cards paid, so that they add up to the total left to pay.
// Without it, an order a gift card paid in part came with a subtotal and delivery that did not make
// its total, and one the cards paid alone with a total of 0 and no payment: the back office could
// not tell the cards' money from goods given away.

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

let nextIp = 40;
/** A guest with a 20.00 book in the basket (25.90 with the courier) and a gift card of `balance` on it. */
async function shopperWithCard(balance: number): Promise<Who> {
  const book = await stockedBook(s.t, s.shop, 50, 20);
  const who = await fill(s.t, { ip: `10.0.1.${nextIp++}` }, [[book, 1]]);
  expect((await call(s.t, 'PUT', '/basket/delivery', who, { deliveryMethodId: s.shop.methods.COURIER })).statusCode).toBe(200);
  expect((await call(s.t, 'POST', '/basket/add-gift-card', who, { code: await card(s.t, balance) })).statusCode).toBe(200);
  return who;
}

async function cardCheckout(who: Who) {
  const response = await checkout(s.t, who, checkoutForm(s.shop, { paymentMethodId: 'EVERYPAY' }));
  expect(response.statusCode, response.body).toBe(200);
  const link = orderLink(response.json().location);
  const row = await s.t.database.db.selectFrom('customer_order').select('code').where('id', '=', link.orderId).executeTakeFirstOrThrow();
  return { ...link, code: row.code! };
}

type Amounts = { subtotal: number; discount: number; delivery: number; vat: number; vatIncluded: boolean; total: number };

async function documentInFeed(code: string): Promise<{ amounts: Amounts & Record<string, unknown>; payment: Record<string, unknown> }> {
  const since = encodeURIComponent(new Date(Date.now() - 60_000).toISOString());
  const feed = await s.t.app.inject({
    url: `/admin/orders?updatedSince=${since}&per-page=100`,
    headers: { authorization: `Bearer ${key}` },
  });
  expect(feed.statusCode, feed.body).toBe(200);
  const found = (feed.json() as Array<{ code: string }>).find((order) => order.code === code);
  expect(found, `order ${code} in the feed`).toBeDefined();
  return found as never;
}

describe("the back office's order document", () => {
  it('names what a gift card paid of an order paid by card for the rest, and its amounts add up to the total', async () => {
    const link = await cardCheckout(await shopperWithCard(10));
    const { reference } = await createForm(s, { ...link, totalCents: 0, productId: 0 });
    await s.everypay.shopper(reference, 'pay');
    await s.everypay.callbacksIdle();

    const { amounts, payment } = await documentInFeed(link.code);
    expect(amounts).toMatchObject({ subtotal: 20, discount: 0, delivery: 5.9, total: 15.9, giftCardAmount: 10 });
    expect(payment).toMatchObject({ amount: 15.9 });
    expect(amounts.subtotal - amounts.discount + amounts.delivery - Number(amounts.giftCardAmount)).toBeCloseTo(amounts.total, 2);
  });

  it('names what the gift cards paid of an order they paid alone, which has no payment and a total of 0', async () => {
    const link = await cardCheckout(await shopperWithCard(50));
    const form = await s.t.app.inject({ method: 'GET', url: link.path });
    expect(form.statusCode, form.body).toBe(200);

    const { amounts, payment } = await documentInFeed(link.code);
    expect(amounts).toMatchObject({ subtotal: 20, delivery: 5.9, total: 0, giftCardAmount: 25.9 });
    expect(payment).toMatchObject({ gateway: null, amount: null });
  });
});
