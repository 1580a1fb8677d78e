import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { fill, setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { card } from './helpers.js';

// A card put on the basket again has its balance shown afresh (README: "again: refreshed"). On a
// basket holding the most cards (5), that was refused as a sixth card (422 "at most 5"), though the
// basket would still hold five: only a card not on the basket yet counts against the limit.

let t: TestApp;
let shop: Shop;
beforeAll(async () => {
  t = await createTestApp();
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
});

describe('POST /basket/add-gift-card of a card already on a basket of five', () => {
  it('refreshes it (200, still five cards); a sixth card is still a 422', async () => {
    const book = await stockedBook(t, shop, 5, 50);
    const who = await fill(t, { ip: '10.9.1.1' }, [[book, 1]]);
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) {
      codes.push(await card(t, 2));
      expect((await call(t, 'POST', '/basket/add-gift-card', who, { code: codes[i] })).statusCode).toBe(200);
    }
    const again = await call(t, 'POST', '/basket/add-gift-card', who, { code: codes[2]!.toLowerCase() });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().giftCards).toHaveLength(5);
    const sixth = await call(t, 'POST', '/basket/add-gift-card', who, { code: await card(t, 2) });
    expect(sixth.statusCode, sixth.body).toBe(422);
    expect((await call(t, 'GET', '/basket', who)).json().giftCards).toHaveLength(5);
  });
});
