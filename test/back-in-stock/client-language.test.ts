import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer, userIdOf } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A client's request is stored in its account's language, whatever language the request was made
// in (the mail follows the account's language when it is sent; the stored one is what "your data"
// shows): on a new request, on asking again, and when it takes over a guest's request for its address.

let t: TestApp;
let ru: TestCustomer;
let en: TestCustomer;
let soldOut: number;

beforeAll(async () => {
  t = await createTestApp({ env: { BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h', BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '1000/1h' } });
  const db = t.database.db;
  ru = await createCustomer(db);
  en = await createCustomer(db);
  await setLanguage(ru, 'ru');
  await setLanguage(en, 'en');
  soldOut = await createProduct(db, { name: 'Läbi müüdud', availability: 'TEMPORARILY_OUT_OF_STOCK' });
});
afterAll(() => t.close());

async function setLanguage(who: TestCustomer, language: string): Promise<void> {
  await t.database.db
    .updateTable('app_user')
    .set({ language })
    .where('id', '=', await userIdOf(t.database.db, who))
    .execute();
}

async function emailOf(who: TestCustomer): Promise<string> {
  const user = await t.database.db
    .selectFrom('app_user')
    .select('email')
    .where('id', '=', await userIdOf(t.database.db, who))
    .executeTakeFirstOrThrow();
  return user.email;
}

const ask = (body: object, who?: TestCustomer, language = 'et') =>
  t.app.inject({
    method: 'POST',
    url: '/back-in-stock',
    payload: body,
    headers: { 'x-app-language': language, ...(who ? { authorization: `Bearer ${who.token}` } : {}) },
  });

const rowsFor = (email: string) =>
  t.database.db.selectFrom('back_in_stock_request').select(['client_account_id', 'language']).where('email', '=', email).execute();

describe("a client's back-in-stock request", () => {
  it("is stored in each client's own account language, not the request's", async () => {
    expect((await ask({ productId: soldOut }, ru, 'et')).statusCode).toBe(201);
    expect((await ask({ productId: soldOut }, en, 'ru')).statusCode).toBe(201);
    expect(await rowsFor(await emailOf(ru))).toEqual([{ client_account_id: ru.clientAccountId, language: 'ru' }]);
    expect(await rowsFor(await emailOf(en))).toEqual([{ client_account_id: en.clientAccountId, language: 'en' }]);
  });

  it("asked again, takes the account's language now", async () => {
    await setLanguage(en, 'ru');
    const again = await ask({ productId: soldOut }, en, 'et');
    expect(again.statusCode, again.body).toBe(200);
    expect(await rowsFor(await emailOf(en))).toEqual([{ client_account_id: en.clientAccountId, language: 'ru' }]);
  });

  it("taking over a guest's request for its address, takes the account's language", async () => {
    const other = await createProduct(t.database.db, { name: 'Teine', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const email = await emailOf(ru);
    expect((await ask({ productId: other, email }, undefined, 'en')).statusCode).toBe(202);
    const byProduct = () =>
      t.database.db
        .selectFrom('back_in_stock_request')
        .select(['client_account_id', 'language'])
        .where('email', '=', email)
        .where('product_id', '=', other)
        .execute();
    expect(await byProduct()).toEqual([{ client_account_id: null, language: 'en' }]);
    const taken = await ask({ productId: other }, ru, 'et');
    expect(taken.statusCode, taken.body).toBe(200);
    expect(await byProduct()).toEqual([{ client_account_id: ru.clientAccountId, language: 'ru' }]);
  });
});
