import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginBasket } from '../../src/modules/basket/index.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { add, basketOf, call, read } from './helpers.js';

// A guest basket moving into a client's: POST /basket/merge, and loginBasket(), which the login
// answers call inside their own transaction. Quantities add up and are capped; nothing is lost,
// and a retried login or two tabs merging at once never double a line.

let t: TestApp;
const p = {} as Record<'book' | 'scarce' | 'ebook' | 'gone', number>;
let shop: number;
beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  shop = await createShop(db);
  p.book = await createProduct(db, { price: 10 });
  p.scarce = await createProduct(db, { price: 5 });
  p.ebook = await createProduct(db, { type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD', price: 8 });
  p.gone = await createProduct(db, { price: 3 });
  await setStock(db, p.book, shop, 500);
  await setStock(db, p.scarce, shop, 4);
  await setStock(db, p.gone, shop, 5);
});
afterAll(() => t.close());

async function guestWith(lines: Array<[number, number]>): Promise<string> {
  let token: string | undefined;
  for (const [id, quantity] of lines) token = (await add(t, token === undefined ? {} : { token }, id, quantity)).basketToken!;
  return token!;
}
const quantities = (basket: { items: Array<{ productId: number; quantity: number }> }) =>
  Object.fromEntries(basket.items.map((item) => [item.productId, item.quantity]));
const login = (client: TestCustomer, guestToken: string | undefined) =>
  t.database.db
    .transaction()
    .execute((trx) =>
      loginBasket(trx, { clientAccountId: client.clientAccountId, storeCode: 'WEB', guestToken, language: 'en', now: Date.now() }),
    );

describe('POST /basket/merge', () => {
  it("adds the guest's lines to the client's, caps them by the rules, keeps every line and deletes the guest basket", async () => {
    const client = await createCustomer(t.database.db);
    await add(t, { bearer: client.token }, p.book, 2);
    await add(t, { bearer: client.token }, p.scarce, 3);
    await add(t, { bearer: client.token }, p.ebook, 1);
    const token = await guestWith([
      [p.book, 5],
      [p.scarce, 3],
      [p.ebook, 1],
      [p.gone, 2],
    ]);
    await t.database.db.updateTable('product').set({ availability: 'PERMANENTLY_OUT_OF_STOCK' }).where('id', '=', p.gone).execute();
    const merged = basketOf(await call(t, 'POST', '/basket/merge', { bearer: client.token, token }));
    expect(merged.basketToken).toBeNull();
    expect(quantities(merged)).toEqual({ [p.book]: 7, [p.scarce]: 4, [p.ebook]: 1, [p.gone]: 2 });
    expect(merged.items.find((item) => item.productId === p.gone)!.available).toBe(false);
    // 3 + 3 of a book with 4 in stock: the merge's cut is told, on this answer and on the next read.
    const cut = { quantity: 4, maxQuantity: 4, notice: { code: 'QUANTITY_CUT', message: 'Tellida saab ainult 4 tk; kogust vähendati.' } };
    expect(merged.items.find((item) => item.productId === p.scarce)).toMatchObject(cut);
    expect((await read(t, { bearer: client.token })).items.find((item) => item.productId === p.scarce)).toMatchObject(cut);
    expect(merged.items.filter((item) => item.notice?.code === 'QUANTITY_CUT').map((item) => item.productId)).toEqual([p.scarce]);
    // The e-book in both is kept once, and the answer says so.
    expect(merged.messages?.map((message) => message.code)).toEqual(['MERGE_DIGITAL_ONCE']);
    expect((await read(t, { token })).id).toBeNull();
    // A retry finds nothing more to merge.
    const retried = basketOf(await call(t, 'POST', '/basket/merge', { bearer: client.token, token }));
    expect([quantities(retried), retried.version]).toEqual([quantities(merged), merged.version]);
    await t.database.db.updateTable('product').set({ availability: 'AVAILABLE' }).where('id', '=', p.gone).execute();
  });

  it("tells the cuts by the line rules (999 of a product, one of a digital one) in the answer's messages, once", async () => {
    // A preorder is not limited by stock: only the rule of 999 cuts it.
    const preorder = await createProduct(t.database.db, { availability: 'COMING_SOON', deliveryTime: 'PREORDER', price: 1 });
    const told = {
      en: [
        'Products in both baskets whose quantities came to more than 999 together: 1; a basket holds at most 999 of one product, so they were cut to 999.',
        'Digital products in both baskets: 1; a digital product can be in the basket once only, so each is there once.',
      ],
      ru: [
        'Товаров, которые были в обеих корзинах и которых вместе оказалось больше 999 шт.: 1; одного товара в корзине может быть не более 999 шт., поэтому количество уменьшено до 999.',
        'Цифровых товаров, которые были в обеих корзинах: 1; цифровой товар можно положить в корзину только один раз, поэтому каждый из них в корзине один раз.',
      ],
    };
    for (const [language, [capped, once]] of Object.entries(told)) {
      const client = await createCustomer(t.database.db);
      await add(t, { bearer: client.token }, preorder, 400);
      await add(t, { bearer: client.token }, p.ebook, 1);
      const token = await guestWith([
        [preorder, 600],
        [p.ebook, 1],
      ]);
      const merged = basketOf(await call(t, 'POST', '/basket/merge', { bearer: client.token, token, language }));
      expect(quantities(merged)).toEqual({ [preorder]: 999, [p.ebook]: 1 });
      expect(merged.items.map((item) => item.notice)).toEqual([null, null]);
      expect(merged.messages).toEqual([
        { code: 'MERGE_QUANTITY_CAPPED', message: capped },
        { code: 'MERGE_DIGITAL_ONCE', message: once },
      ]);
      // The cut is done: the basket holds 999 and one, and later answers have nothing to tell.
      expect((await read(t, { bearer: client.token, language })).messages).toBeUndefined();
    }
  });

  it('needs a client (401 for a guest), refuses a malformed token (400), and merges nothing of another store', async () => {
    const token = await guestWith([[p.book, 1]]);
    expectErrorBody(await call(t, 'POST', '/basket/merge', { token }), 401, 'Unauthorized');
    const client = await createCustomer(t.database.db);
    expectErrorBody(await call(t, 'POST', '/basket/merge', { bearer: client.token, token: 'nope' }), 400, 'Bad Request');
    const web2 = await createCustomer(t.database.db, { store: 'WEB2' });
    const other = basketOf(await call(t, 'POST', '/basket/merge', { bearer: web2.token, token, store: 'WEB2' }));
    expect(other.items).toEqual([]);
    expect((await read(t, { token })).items).toHaveLength(1);
  });

  it('merges once when two tabs merge the same guest basket at once', async () => {
    const client = await createCustomer(t.database.db);
    await add(t, { bearer: client.token }, p.book, 1);
    const token = await guestWith([[p.book, 3]]);
    const responses = await Promise.all([1, 2, 3].map(() => call(t, 'POST', '/basket/merge', { bearer: client.token, token })));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    expect(quantities(await read(t, { bearer: client.token }))).toEqual({ [p.book]: 4 });
  });
});

describe('merging into a basket of 100 products', () => {
  it('adds what fits, keeps the guest lines that do not in the guest basket and says so; a retry doubles nothing', async () => {
    const db = t.database.db;
    const preorder = { availability: 'COMING_SOON' as const, deliveryTime: 'PREORDER' as const, price: 1 };
    const fillers: number[] = [];
    for (let i = 0; i < 99; i += 1) fillers.push(await createProduct(db, preorder));
    const client = await createCustomer(db);
    await add(t, { bearer: client.token }, p.book, 1);
    for (const id of fillers) await add(t, { bearer: client.token }, id, 1);
    // The guest has one product the client has (it merges) and two new ones (no room for them).
    const token = await guestWith([
      [p.scarce, 1],
      [p.book, 2],
      [p.ebook, 1],
    ]);
    const merged = basketOf(await call(t, 'POST', '/basket/merge', { bearer: client.token, token }));
    expect(merged.items).toHaveLength(100);
    expect(quantities(merged)[p.book]).toBe(3);
    expect(merged.messages).toEqual([{ code: 'MERGE_LINES_LEFT_OUT', message: expect.stringContaining('2') }]);
    expect(quantities(await read(t, { token }))).toEqual({ [p.scarce]: 1, [p.ebook]: 1 });
    // A retried merge (or login) finds no room either: nothing moves, nothing doubles, it says so again.
    const retried = basketOf(await call(t, 'POST', '/basket/merge', { bearer: client.token, token }));
    expect([quantities(retried), retried.version]).toEqual([quantities(merged), merged.version]);
    expect((await login(client, token)).messages).toHaveLength(1);
    // With room made, the next merge (a login) takes the rest and the guest basket is gone.
    await call(t, 'DELETE', `/basket/remove-product?productId=${fillers[0]}`, { bearer: client.token });
    await call(t, 'DELETE', `/basket/remove-product?productId=${fillers[1]}`, { bearer: client.token });
    const after = await login(client, token);
    expect(after.items).toHaveLength(100);
    expect([quantities(after)[p.scarce], quantities(after)[p.ebook], after.messages]).toEqual([1, 1, undefined]);
    expect((await read(t, { token })).id).toBeNull();
  });
});

describe('loginBasket (for the login answers)', () => {
  it("answers the client's basket, merging the guest basket first, and a retried login merges nothing more", async () => {
    const client = await createCustomer(t.database.db, { discountPercent: 20 });
    await add(t, { bearer: client.token }, p.book, 1);
    const token = await guestWith([
      [p.book, 2],
      [p.scarce, 1],
    ]);
    const first = await login(client, token);
    expect(quantities(first)).toEqual({ [p.book]: 3, [p.scarce]: 1 });
    // Priced for the client: their own 20 % off.
    expect(first.items.find((item) => item.productId === p.book)!.unitPrice).toBe(8);
    expect(first.basketToken).toBeNull();
    const retried = await login(client, token);
    expect([quantities(retried), retried.version]).toEqual([quantities(first), first.version]);
    expect(quantities(await read(t, { bearer: client.token }))).toEqual({ [p.book]: 3, [p.scarce]: 1 });
  });

  it('merges nothing when the login is rolled back, so the retry merges it once', async () => {
    const client = await createCustomer(t.database.db);
    const token = await guestWith([[p.book, 2]]);
    await expect(
      t.database.db.transaction().execute(async (trx) => {
        await loginBasket(trx, {
          clientAccountId: client.clientAccountId,
          storeCode: 'WEB',
          guestToken: token,
          language: 'et',
          now: Date.now(),
        });
        throw new Error('the login failed after the merge');
      }),
    ).rejects.toThrow('the login failed');
    expect((await read(t, { token })).items).toHaveLength(1);
    expect(quantities(await login(client, token))).toEqual({ [p.book]: 2 });
  });

  it('merges once when two logins with the same guest token run at once', async () => {
    const client = await createCustomer(t.database.db);
    const token = await guestWith([[p.book, 2]]);
    await Promise.all([login(client, token), login(client, token), login(client, token)]);
    expect(quantities(await read(t, { bearer: client.token }))).toEqual({ [p.book]: 2 });
  });

  it('answers the empty basket without writing for a client with none and no guest basket, and ignores a malformed token', async () => {
    const client = await createCustomer(t.database.db);
    const answer = await login(client, 'not a token');
    expect([answer.id, answer.items, answer.total]).toEqual([null, [], 0]);
    const count = await t.database.db.selectFrom('basket').select('id').where('client_account_id', '=', client.clientAccountId).execute();
    expect(count).toEqual([]);
  });
});
