import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/infra/passwords.js';
import { createAccountsTestApp, GOOD_PASSWORD, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { card, dateIn } from '../gift-cards/helpers.js';

// Login with a guest basket-token: what the gift cards keep per basket comes along with the lines,
// the cards put on the guest basket to pay with and the virtual gift card line's details (amount,
// recipient, message, delivery date).

let t: AccountsTestApp;
let book: number;
let voucher: number;
beforeAll(async () => {
  t = await createAccountsTestApp();
  const db = t.database.db;
  const shop = await createShop(db);
  book = await createProduct(db, { price: 10 });
  await setStock(db, book, shop, 100);
  voucher = await createProduct(db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
});
afterAll(() => t.close());

async function client() {
  const db = t.database.db;
  const customer = await createCustomer(db);
  const user = await db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['app_user.id', 'app_user.email'])
    .where('client_account.id', '=', customer.clientAccountId)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('app_user')
    .set({ password_hash: await hashPassword(GOOD_PASSWORD) })
    .where('id', '=', user.id)
    .execute();
  return { ...customer, email: user.email };
}

const post = (url: string, token: string | undefined, payload: unknown) =>
  t.app.inject({ method: 'POST', url, headers: { store: 'WEB', ...(token ? { 'basket-token': token } : {}) }, payload: payload as object });

describe('POST /auth/login with a basket-token and gift cards', () => {
  it("carries the guest's gift cards and the virtual gift card's details into the client's basket", async () => {
    const customer = await client();
    const code = await card(t, 5);
    const giftCard = {
      amount: 25,
      recipientName: 'Mari Maasikas',
      recipientEmail: 'mari@example.ee',
      message: 'Palju õnne!',
      deliveryDate: dateIn(3),
    };
    const first = await post('/basket/add-product', undefined, { productId: book, quantity: 1 });
    expect(first.statusCode, first.body).toBe(200);
    const token = first.headers['basket-token'] as string;
    expect((await post('/basket/add-product', token, { productId: voucher, quantity: 1, giftCard })).statusCode).toBe(200);
    const added = await post('/basket/add-gift-card', token, { code });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json().giftCards).toHaveLength(1);

    const login = await post('/auth/login', token, { email: customer.email, password: GOOD_PASSWORD, web_store_nav_code: 'WEB' });
    expect(login.statusCode, login.body).toBe(200);
    const { basket, accessToken } = login.json();
    expect(basket.giftCards).toEqual([expect.objectContaining({ amount: 5, balance: 5 })]);
    expect(basket.items).toContainEqual(
      expect.objectContaining({
        quantity: 1,
        unitPrice: 25,
        giftCard: expect.objectContaining({
          amount: 25,
          recipientName: 'Mari Maasikas',
          recipientEmail: 'mari@example.ee',
          message: 'Palju õnne!',
        }),
      }),
    );
    // The client's basket as the basket endpoint shows it afterwards.
    const stored = await t.app.inject({ method: 'GET', url: '/basket', headers: { store: 'WEB', authorization: `Bearer ${accessToken}` } });
    expect(stored.json().giftCards).toHaveLength(1);
    expect(stored.json().items.find((item: { giftCard?: unknown }) => item.giftCard)).toMatchObject({ giftCard: { amount: 25 } });
  });
});

describe("POST /auth/login with a basket-token when the client's basket holds the most gift cards it may", () => {
  it('leaves the guest cards that do not fit on the guest basket, says so, and a later login with room takes them', async () => {
    const customer = await client();
    const login = (token: string) =>
      post('/auth/login', token, { email: customer.email, password: GOOD_PASSWORD, web_store_nav_code: 'WEB' });
    const bearer = (accessToken: string) => ({ store: 'WEB', authorization: `Bearer ${accessToken}` });
    // The client's basket with five cards (the most), made as a guest basket and merged at a login.
    const full = await post('/basket/add-product', undefined, { productId: book, quantity: 1 });
    const fullToken = full.headers['basket-token'] as string;
    const fives = [await card(t, 1), await card(t, 1), await card(t, 1), await card(t, 1), await card(t, 1)];
    for (const code of fives) expect((await post('/basket/add-gift-card', fullToken, { code })).statusCode).toBe(200);
    const first = await login(fullToken);
    expect(first.json().basket.giftCards).toHaveLength(5);

    // A new guest basket with a sixth card.
    const guest = await post('/basket/add-product', undefined, { productId: book, quantity: 2 });
    const token = guest.headers['basket-token'] as string;
    const sixth = await card(t, 7);
    expect((await post('/basket/add-gift-card', token, { code: sixth })).statusCode).toBe(200);
    const second = await login(token);
    expect(second.statusCode, second.body).toBe(200);
    const { basket, accessToken } = second.json();
    expect(basket.giftCards).toHaveLength(5);
    expect(basket.messages).toEqual([{ code: 'MERGE_GIFT_CARDS_LEFT_OUT', message: expect.stringContaining('1') }]);
    // The card was not lost: it is still on the guest basket, whose lines went to the client's.
    const left = await t.app.inject({ method: 'GET', url: '/basket', headers: { store: 'WEB', 'basket-token': token } });
    expect(left.statusCode, left.body).toBe(200);
    expect(left.json().giftCards).toEqual([expect.objectContaining({ balance: 7 })]);
    expect(left.json().items).toEqual([]);

    // With room again (one card taken off), the next login with the same token takes it.
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/basket/remove-gift-card?code=${encodeURIComponent(fives[0]!)}`,
      headers: bearer(accessToken),
    });
    expect(removed.statusCode, removed.body).toBe(200);
    const third = await login(token);
    expect(third.json().basket.giftCards.map((c: { balance: number }) => c.balance)).toContain(7);
    expect(third.json().basket.messages).toBeUndefined();
  });
});
