import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basketOf, call, type Who } from '../basket/helpers.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { fill, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { card } from './helpers.js';

// The basket lists its gift cards by their last four characters (the whole code is never stored),
// and that is all a front-end knows of them after a reload, on another device or after the login
// merged a guest's cards: DELETE /basket/remove-gift-card takes the code as the basket shows it
// too, when it names one card on the basket. The whole code works as before.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  t = await createTestApp();
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});

interface Cards {
  giftCards: Array<{ code: string; amount: number }>;
  giftCardAmount: number;
  toPay: number;
}
const cardsOf = async (who: Who) => basketOf(await call(t, 'GET', '/basket', who)) as unknown as Cards;

describe('DELETE /basket/remove-gift-card with the code the basket shows', () => {
  for (const kind of ['guest', 'client'] as const) {
    it(`takes the card off a ${kind}'s basket, and a second time is a 404`, async () => {
      const start: Who = kind === 'guest' ? { ip: '10.7.0.1' } : { bearer: (await createCustomer(t.database.db)).token };
      const who = await fill(t, start, [[await stockedBook(t, shop, 5, 20), 1]]);
      const first = await card(t, 5);
      const second = await card(t, 50);
      for (const code of [first, second]) expect((await call(t, 'POST', '/basket/add-gift-card', who, { code })).statusCode).toBe(200);
      const before = await cardsOf(who);
      expect(before.giftCards).toHaveLength(2);
      const shown = before.giftCards[0]!.code;
      expect(shown).toHaveLength(4);

      const removed = await call(t, 'DELETE', `/basket/remove-gift-card?code=${shown.toLowerCase()}`, who);
      expect(removed.statusCode, removed.body).toBe(200);
      expect((removed.json() as Cards).giftCards.map((c) => c.code)).toEqual([before.giftCards[1]!.code]);
      expect((await cardsOf(who)).giftCards).toHaveLength(1);
      expect((await call(t, 'DELETE', `/basket/remove-gift-card?code=${shown}`, who)).statusCode).toBe(404);
      // The whole code still takes the other one off.
      expect((await call(t, 'DELETE', `/basket/remove-gift-card?code=${encodeURIComponent(second)}`, who)).statusCode).toBe(200);
      expect((await cardsOf(who)).giftCards).toEqual([]);
    });
  }

  it('never takes a card off another basket, and four characters no card on the basket ends in are a 404', async () => {
    const owner = await fill(t, { ip: '10.7.0.2' }, [[await stockedBook(t, shop, 5, 20), 1]]);
    const code = await card(t, 5);
    expect((await call(t, 'POST', '/basket/add-gift-card', owner, { code })).statusCode).toBe(200);
    const shown = (await cardsOf(owner)).giftCards[0]!.code;
    const stranger = await fill(t, { ip: '10.7.0.3' }, [[await stockedBook(t, shop, 5, 20), 1]]);
    expect((await call(t, 'DELETE', `/basket/remove-gift-card?code=${shown}`, stranger)).statusCode).toBe(404);
    const other = shown === 'ZZZZ' ? 'YYYY' : 'ZZZZ';
    expect((await call(t, 'DELETE', `/basket/remove-gift-card?code=${other}`, owner)).statusCode).toBe(404);
    expect((await cardsOf(owner)).giftCards).toHaveLength(1);
  });
});
