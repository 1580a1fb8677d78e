import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { scanBackInStock } from '../../src/modules/back-in-stock/index.js';
import { importLines } from '../basket/import-helpers.js';
import { changeEmailConfirmed, createAccountsTestApp, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct, createShop } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { askBackInStock, askConfirmed, confirmationMailTo, recipientsOf } from './helpers.js';

// A logged-in client's back-in-stock requests follow a confirmed change of the login email, in the
// change's transaction: the requests of every client account of the person move to the new address,
// and one the person had made there as a guest for the same product merges into the client's (one
// mailbox, one mail). Before, the client's requests kept the old address: the list showed it, a
// guest request the person had made with the new address was told as well (two mails), and whoever
// owns the old address next could not ask for that product as a guest (the address was "asked by a
// client already"). Guest requests made with the old address stay as they were: not the client's.

let t: AccountsTestApp;
let shopCode: string;

beforeAll(async () => {
  t = await createAccountsTestApp({
    env: {
      BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h',
      BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '1000/1h',
      BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP: '1000/1m',
    },
  });
  shopCode = `BISM${Date.now().toString(36)}`;
  await createShop(t.database.db, { code: shopCode });
});
afterAll(async () => t?.close());
beforeEach(() => t.smtp.clear());

const db = () => t.database.db;
const asClient = (token: string) => ({ authorization: `Bearer ${token}` });
const soldOut = (name: string) => createProduct(db(), { name, availability: 'TEMPORARILY_OUT_OF_STOCK' });

/** Makes the products available by a stock import and runs the scan and the outbox; the mails sent before are forgotten. */
async function restock(productIds: number[]) {
  await t.drainJobs();
  t.smtp.clear();
  const codes = await db().selectFrom('product').select('code').where('id', 'in', productIds).execute();
  const imported = await importLines(
    t,
    'stock',
    codes.map((row) => ({ product: row.code, shop: shopCode, quantity: 3 })),
  );
  expect(imported.statusCode, imported.body).toBe(200);
  await scanBackInStock(db(), Date.now());
  await t.drainJobs();
}

/** The subjects of the mails to `email` since the mails were last cleared (the restock's: they name the product). */
const subjectsTo = (email: string) =>
  t.smtp.mails
    .filter((mail) => recipientsOf(mail).includes(email))
    .map((mail) => mail.subject ?? '')
    .sort();

const rowsOf = (productId: number) =>
  db()
    .selectFrom('back_in_stock_request')
    .select(['email', 'client_account_id'])
    .where('product_id', '=', productId)
    .orderBy('id')
    .execute();

async function clientAccountIdOf(email: string): Promise<number> {
  const row = await db()
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select('client_account.id')
    .where('app_user.email', '=', email)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

describe('a confirmed email change and the back-in-stock requests', () => {
  it("moves the client's request to the new address, merged with the person's guest request there: one mail, to the new address", async () => {
    const oldEmail = uniqueEmail('bis-old');
    const newEmail = uniqueEmail('bis-new');
    const access = await registerVerified(t, oldEmail);
    const retailId = await clientAccountIdOf(oldEmail);
    const product = await soldOut('Kolinud lugeja');
    // Someone else, who holds the old address as a guest, asked for another product: that stays theirs.
    const othersProduct = await soldOut('Vana aadressi raamat');
    await askConfirmed(t, t.smtp, { productId: othersProduct, email: oldEmail });
    // The person, as a guest with the new address (confirmed from that mailbox), and then as a client.
    await askConfirmed(t, t.smtp, { productId: product, email: newEmail });
    expect((await askBackInStock(t, { productId: product }, asClient(access))).statusCode).toBe(201);

    await changeEmailConfirmed(t, access, newEmail);

    expect(await rowsOf(product)).toEqual([{ email: newEmail, client_account_id: retailId }]);
    expect(await rowsOf(othersProduct)).toEqual([{ email: oldEmail, client_account_id: null }]);
    const listed = await t.app.inject({ url: '/back-in-stock', headers: asClient(access) });
    expect(listed.json()).toEqual([expect.objectContaining({ productId: product, email: newEmail, notifiedAt: null })]);

    await restock([product, othersProduct]);
    expect(subjectsTo(newEmail)).toEqual([expect.stringMatching(/^Kolinud lugeja /)]);
    expect(subjectsTo(oldEmail)).toEqual([expect.stringMatching(/^Vana aadressi raamat /)]);
  });

  it("frees the old address: its next owner's guest request for the product is asked and told there", async () => {
    const oldEmail = uniqueEmail('bis-freed');
    const newEmail = uniqueEmail('bis-moved');
    const access = await registerVerified(t, oldEmail);
    const product = await soldOut('Vabanenud aadress');
    expect((await askBackInStock(t, { productId: product }, asClient(access))).statusCode).toBe(201);
    await changeEmailConfirmed(t, access, newEmail);

    t.smtp.clear();
    expect((await askBackInStock(t, { productId: product, email: oldEmail })).statusCode).toBe(202);
    await confirmationMailTo(t, t.smtp, oldEmail);
  });

  it('moves the requests of the person’s other account too (here the business one)', async () => {
    const oldEmail = uniqueEmail('bis-two-old');
    const newEmail = uniqueEmail('bis-two-new');
    const access = await registerVerified(t, oldEmail);
    const retailId = await clientAccountIdOf(oldEmail);
    const business = await createCustomer(db(), { kind: 'BUSINESS', ofUser: { clientAccountId: retailId } });
    const product = await soldOut('Äriklient kolib');
    expect((await askBackInStock(t, { productId: product }, asClient(business.token))).statusCode).toBe(201);

    await changeEmailConfirmed(t, access, newEmail);

    expect(await rowsOf(product)).toEqual([{ email: newEmail, client_account_id: business.clientAccountId }]);
    await restock([product]);
    expect(subjectsTo(newEmail)).toEqual([expect.stringMatching(/^Äriklient kolib /)]);
    expect(subjectsTo(oldEmail)).toEqual([]);
  });
});
