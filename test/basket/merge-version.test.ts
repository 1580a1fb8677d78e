import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginBasket } from '../../src/modules/basket/index.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { card } from '../gift-cards/helpers.js';
import { add, basketOf, call, read, type BasketAnswer } from './helpers.js';

// A merge (POST /basket/merge, or a login's) writes the client's basket once it changes anything
// of it, the gift cards included: its version (the ETag a write's If-Match names) moves on exactly
// once, so a write based on the version before the merge is a 412; a merge that changes nothing
// keeps the version. The guest basket a merge leaves gets a new version too when it lost anything.

let t: TestApp;
let shop: number;
let book: number;
let other: number;
const fillers: number[] = [];
beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  shop = await createShop(db);
  book = await createProduct(db, { price: 10 });
  other = await createProduct(db, { price: 4 });
  await setStock(db, book, shop, 500);
  await setStock(db, other, shop, 500);
  for (let i = 0; i < 99; i += 1)
    fillers.push(await createProduct(db, { availability: 'COMING_SOON', deliveryTime: 'PREORDER', price: 1 }));
});
afterAll(() => t.close());

type Answer = Pick<BasketAnswer, 'version'> & { giftCards?: unknown[] };
const versionNumber = (basket: Answer) => Number(basket.version!.split('-')[1]);
const giftCardsOf = (basket: Answer) => basket.giftCards ?? [];

/** A client whose basket holds MAX_LINES (100) products: `book` and 99 fillers, none of which a guest has. */
async function fullClient(): Promise<TestCustomer> {
  const client = await createCustomer(t.database.db);
  const { id } = await add(t, { bearer: client.token }, book, 1);
  const now = Date.now();
  await t.database.db
    .insertInto('basket_line')
    .values(fillers.map((product_id, i) => ({ basket_id: id!, product_id, quantity: 1, seen_price_cents: 100, added_at: now + i })))
    .execute();
  return client;
}

/** A guest basket of `lines` with a new gift card of 5 euros on it; its token. */
async function guestWithCard(lines: number[]): Promise<string> {
  const first = basketOf(await call(t, 'POST', '/basket/add-gift-card', {}, { code: await card(t, 5) }));
  for (const id of lines) await add(t, { token: first.basketToken! }, id, 1);
  return first.basketToken!;
}

const merge = async (client: TestCustomer, token: string) =>
  basketOf(await call(t, 'POST', '/basket/merge', { bearer: client.token, token }));

describe('a merge none of whose guest lines fit, but whose gift cards move', () => {
  it('POST /basket/merge: the client basket gets a new version, and a write on the old one is a 412', async () => {
    const client = await fullClient();
    const before = await read(t, { bearer: client.token });
    expect(before.items).toHaveLength(100);
    const token = await guestWithCard([other]);
    const guestBefore = await read(t, { token });

    const merged = await merge(client, token);
    expect(merged.messages?.map((message) => message.code)).toEqual(['MERGE_LINES_LEFT_OUT']);
    expect(giftCardsOf(merged)).toHaveLength(1);
    expect(merged.items).toHaveLength(100);
    expect(versionNumber(merged)).toBe(versionNumber(before) + 1);
    expect(await read(t, { bearer: client.token })).toMatchObject({ version: merged.version });
    const stale = await call(
      t,
      'POST',
      '/basket/add-product',
      { bearer: client.token, ifMatch: `"${before.version}"` },
      { productId: book, quantity: 1 },
    );
    expectErrorBody(stale, 412, 'Precondition Failed');

    // The guest basket keeps its line for a merge with room, without the card it gave: a new version.
    const guest = await read(t, { token });
    expect([guest.items.map((item) => item.productId), giftCardsOf(guest)]).toEqual([[other], []]);
    expect(versionNumber(guest)).toBe(versionNumber(guestBefore) + 1);
    // A retry has nothing left to move: the version stays.
    expect((await merge(client, token)).version).toBe(merged.version);
  });

  it("a login's merge: the same", async () => {
    const client = await fullClient();
    const before = await read(t, { bearer: client.token });
    const token = await guestWithCard([other]);
    const merged = await t.database.db
      .transaction()
      .execute((trx) =>
        loginBasket(trx, { clientAccountId: client.clientAccountId, storeCode: 'WEB', guestToken: token, language: 'en', now: Date.now() }),
      );
    expect(giftCardsOf(merged)).toHaveLength(1);
    expect(versionNumber(merged)).toBe(versionNumber(before) + 1);
    expect((await read(t, { bearer: client.token })).version).toBe(merged.version);
  });
});

describe('the version after each kind of merge', () => {
  it('only gift cards: one new version', async () => {
    const client = await createCustomer(t.database.db);
    const before = await add(t, { bearer: client.token }, book, 1);
    const merged = await merge(client, await guestWithCard([]));
    expect(giftCardsOf(merged)).toHaveLength(1);
    expect(versionNumber(merged)).toBe(versionNumber(before) + 1);
  });

  it('only lines: one new version', async () => {
    const client = await createCustomer(t.database.db);
    const before = await add(t, { bearer: client.token }, book, 1);
    const guest = await add(t, {}, book, 2);
    await add(t, { token: guest.basketToken! }, other, 1);
    const merged = await merge(client, guest.basketToken!);
    expect(merged.items.map((item) => [item.productId, item.quantity])).toEqual([
      [book, 3],
      [other, 1],
    ]);
    expect(versionNumber(merged)).toBe(versionNumber(before) + 1);
  });

  it('lines and gift cards: one new version', async () => {
    const client = await createCustomer(t.database.db);
    const before = await add(t, { bearer: client.token }, book, 1);
    const merged = await merge(client, await guestWithCard([book, other]));
    expect([merged.items.length, giftCardsOf(merged).length]).toEqual([2, 1]);
    expect(versionNumber(merged)).toBe(versionNumber(before) + 1);
  });

  it('nothing to take (an emptied guest basket, or only a card the client has already): the version stays', async () => {
    const client = await createCustomer(t.database.db);
    const before = await add(t, { bearer: client.token }, book, 1);
    const emptied = await add(t, {}, other, 1);
    await call(t, 'DELETE', `/basket/remove-product?productId=${other}`, { token: emptied.basketToken! });
    expect((await read(t, { token: emptied.basketToken! })).items).toEqual([]);
    const merged = await merge(client, emptied.basketToken!);
    expect(merged.version).toBe(before.version);
    expect((await read(t, { token: emptied.basketToken! })).id).toBeNull();

    const code = await card(t, 5);
    const withCard = basketOf(await call(t, 'POST', '/basket/add-gift-card', { bearer: client.token }, { code }));
    const guest = basketOf(await call(t, 'POST', '/basket/add-gift-card', {}, { code }));
    const again = await merge(client, guest.basketToken!);
    expect([again.version, giftCardsOf(again).length]).toEqual([withCard.version, 1]);
  });
});
