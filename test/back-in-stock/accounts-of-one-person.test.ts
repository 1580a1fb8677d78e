import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { askBackInStock, askConfirmed } from './helpers.js';

// A back-in-stock request belongs to the account that made it. One person (one login email) may
// hold a retail and a business account in a store; requests were one per store, product and email,
// so the business account asking for a product the retail one had asked for took the retail's
// request over: gone from the retail account's list (its DELETE a 404), listed as the business
// account's, and still told by the retail catalogue's visibility. A guest's request for the address
// becomes the first account's that asks (one mailbox is told once), never moves on from there.

let t: TestApp;
let smtp: SmtpCatcher;
let retail: TestCustomer;
let business: TestCustomer;
let soldOut: number;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({
    env: {
      SMTP_URL: smtp.url,
      BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h',
      BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '1000/1h',
      BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP: '1000/1m',
    },
  });
  retail = await createCustomer(t.database.db);
  // A business account (its own company) of the same user, in the same store, with a token of its own.
  business = await createCustomer(t.database.db, { kind: 'BUSINESS', ofUser: retail });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, who: TestCustomer, body?: object) =>
  t.app.inject({ method, url, headers: { authorization: `Bearer ${who.token}` }, ...(body ? { payload: body } : {}) });

const listed = async (who: TestCustomer) =>
  ((await call('GET', '/back-in-stock', who)).json() as Array<{ id: number; productId: number }>).map((item) => item.productId);

const rowsOf = (productId: number) =>
  t.database.db
    .selectFrom('back_in_stock_request')
    .select(['client_account_id', 'audience', 'confirmed_at'])
    .where('product_id', '=', productId)
    .orderBy('id')
    .execute();

describe("one person's retail and business accounts", () => {
  it('each keep their own request for a product: listed, withdrawn and told apart', async () => {
    soldOut = await createProduct(t.database.db, { name: 'Läbi müüdud', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const mine = await call('POST', '/back-in-stock', retail, { productId: soldOut });
    expect(mine.statusCode, mine.body).toBe(201);
    const theirs = await call('POST', '/back-in-stock', business, { productId: soldOut });
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect(theirs.json().id).not.toBe(mine.json().id);

    expect(await listed(retail)).toEqual([soldOut]);
    expect(await listed(business)).toEqual([soldOut]);
    expect(await rowsOf(soldOut)).toEqual([
      { client_account_id: retail.clientAccountId, audience: 'R', confirmed_at: expect.anything() },
      { client_account_id: business.clientAccountId, audience: 'B', confirmed_at: expect.anything() },
    ]);
    // Asking again re-arms each account's own.
    expect((await call('POST', '/back-in-stock', retail, { productId: soldOut })).statusCode).toBe(200);
    expect((await call('POST', '/back-in-stock', business, { productId: soldOut })).statusCode).toBe(200);
    expect(await rowsOf(soldOut)).toHaveLength(2);

    // The retail account withdraws its own; the business account's stays.
    expect((await call('DELETE', `/back-in-stock/${mine.json().id}`, retail)).statusCode).toBe(204);
    expect(await listed(retail)).toEqual([]);
    expect(await listed(business)).toEqual([soldOut]);
    expect((await call('DELETE', `/back-in-stock/${mine.json().id}`, business)).statusCode).toBe(404);
  });

  it("a guest's request for the address becomes the first account's that asks, and stays its", async () => {
    const product = await createProduct(t.database.db, { name: 'Tulekul', availability: 'COMING_SOON' });
    const email = await emailOf(t.database.db, retail);
    await askConfirmed(t, smtp, { productId: product, email });
    expect((await call('POST', '/back-in-stock', retail, { productId: product })).statusCode).toBe(200);
    expect((await call('POST', '/back-in-stock', business, { productId: product })).statusCode).toBe(201);
    expect(await rowsOf(product)).toEqual([
      { client_account_id: retail.clientAccountId, audience: 'R', confirmed_at: expect.anything() },
      { client_account_id: business.clientAccountId, audience: 'B', confirmed_at: expect.anything() },
    ]);
    expect(await listed(retail)).toContain(product);

    // A guest asking for the address again finds it asked as a client: no guest row, no mail.
    smtp.clear();
    expect((await askBackInStock(t, { productId: product, email })).statusCode).toBe(202);
    await t.drainJobs();
    expect(smtp.mails).toEqual([]);
    expect(await rowsOf(product)).toHaveLength(2);
  });

  it("a guest's request taken by the business account takes the business audience", async () => {
    const product = await createProduct(t.database.db, { name: 'Ärile', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const email = await emailOf(t.database.db, retail);
    await askConfirmed(t, smtp, { productId: product, email });
    expect((await call('POST', '/back-in-stock', business, { productId: product })).statusCode).toBe(200);
    expect(await rowsOf(product)).toEqual([
      { client_account_id: business.clientAccountId, audience: 'B', confirmed_at: expect.anything() },
    ]);
  });
});
