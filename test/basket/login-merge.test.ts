import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountType } from '../../src/db/schema.js';
import { hashPassword } from '../../src/infra/passwords.js';
import { createAccountsTestApp, GOOD_PASSWORD, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectFieldErrors } from '../helpers/http.js';
import { add, read, type BasketAnswer } from './helpers.js';

// POST /auth/login answers with the client's basket for the store, the guest basket of the
// basket-token header merged in first, in the login's transaction: quantities add and are capped,
// the guest basket is gone, a retried login or two tabs logging in at once never double a line,
// and a login that fails (or answers the roles to choose from) merges nothing.

let t: AccountsTestApp;
let passwordHash: string;
const p = {} as Record<'book' | 'scarce' | 'ebook' | 'both', number>;
beforeAll(async () => {
  t = await createAccountsTestApp();
  const db = t.database.db;
  passwordHash = await hashPassword(GOOD_PASSWORD);
  const shop = await createShop(db);
  p.book = await createProduct(db, { price: 10, wholesalePrice: 6 });
  p.scarce = await createProduct(db, { price: 5 });
  p.ebook = await createProduct(db, { type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD', price: 8 });
  p.both = await createProduct(db, { price: 7, stores: ['WEB', 'WEB2'] });
  await setStock(db, p.book, shop, 2000);
  await setStock(db, p.scarce, shop, 4);
  await setStock(db, p.both, shop, 50);
});
afterAll(() => t.close());

/** A client with one account of `kind` in `store`, and a password to log in with. */
async function clientWithPassword(options: { kind?: AccountType; store?: string } = {}) {
  const db = t.database.db;
  const customer = await createCustomer(db, options);
  const user = await db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['app_user.id', 'app_user.email'])
    .where('client_account.id', '=', customer.clientAccountId)
    .executeTakeFirstOrThrow();
  await db.updateTable('app_user').set({ password_hash: passwordHash }).where('id', '=', user.id).execute();
  return { ...customer, userId: user.id, email: user.email };
}

function login(
  email: string,
  guestToken: string | undefined,
  options: { store?: string; role?: AccountType; password?: string; ip?: string } = {},
) {
  const store = options.store ?? 'WEB';
  return t.app.inject({
    method: 'POST',
    url: '/auth/login',
    remoteAddress: options.ip,
    headers: { store, ...(guestToken === undefined ? {} : { 'basket-token': guestToken }) },
    payload: {
      email,
      password: options.password ?? GOOD_PASSWORD,
      web_store_nav_code: store,
      ...(options.role ? { role: options.role } : {}),
    },
  });
}

async function loggedIn(response: Awaited<ReturnType<typeof login>>): Promise<{ accessToken: string; basket: BasketAnswer }> {
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

async function guestWith(lines: Array<[number, number]>, store = 'WEB'): Promise<string> {
  let token: string | undefined;
  for (const [id, quantity] of lines)
    token = (await add(t, { store, ...(token === undefined ? {} : { token }) }, id, quantity)).basketToken!;
  return token!;
}

const quantities = (basket: BasketAnswer) => Object.fromEntries(basket.items.map((item) => [item.productId, item.quantity]));
const guestBasketRows = (store = 'WEB') =>
  t.database.db.selectFrom('basket').select('id').where('client_account_id', 'is', null).where('store_code', '=', store).execute();

describe('POST /auth/login with a basket-token', () => {
  it("merges the guest's lines into the client's basket (added, then capped) and the guest token starts afresh", async () => {
    const client = await clientWithPassword();
    await add(t, { bearer: client.token }, p.book, 5);
    await add(t, { bearer: client.token }, p.scarce, 3);
    await add(t, { bearer: client.token }, p.ebook, 1);
    const token = await guestWith([
      [p.book, 999],
      [p.scarce, 3],
      [p.ebook, 1],
      [p.both, 2],
    ]);
    const { accessToken, basket } = await loggedIn(await login(client.email, token));
    // 999 is the most of a line, the web stock of 4 caps the scarce one, an e-book is 1.
    expect(quantities(basket)).toEqual({ [p.book]: 999, [p.scarce]: 4, [p.ebook]: 1, [p.both]: 2 });
    expect([basket.basketToken, basket.itemCount, basket.total]).toEqual([null, 1006, 9990 + 20 + 8 + 14]);
    // The cut to the stock is told on its line, and the rules' caps of 999 and 1 in the answer's messages.
    expect(basket.items.filter((item) => item.notice !== null).map((item) => [item.productId, item.notice!.code])).toEqual([
      [p.scarce, 'QUANTITY_CUT'],
    ]);
    expect(basket.messages).toEqual([
      {
        code: 'MERGE_QUANTITY_CAPPED',
        message:
          'Mõlemas korvis olnud tooteid, mille kogus oli kokku üle 999 tk: 1; ühte toodet saab korvis olla kuni 999 tk, seega vähendati kogus 999 tk-ni.',
      },
      {
        code: 'MERGE_DIGITAL_ONCE',
        message:
          'Mõlemas korvis olnud digitaalseid tooteid: 1; digitaalset toodet saab korvi panna ainult ühe, seega on igaüks korvis üks kord.',
      },
    ]);
    // The answer is the client's basket as the basket endpoints show it, for either token.
    const stored = await read(t, { bearer: accessToken });
    expect([stored.id, stored.version, quantities(stored)]).toEqual([basket.id, basket.version, quantities(basket)]);
    expect((await read(t, { bearer: client.token })).id).toBe(basket.id);
    // The guest basket is gone: its token now reads an empty basket, and a write starts a new one.
    expect(await read(t, { token })).toMatchObject({ id: null, items: [] });
    const fresh = await add(t, { token }, p.book, 1);
    expect(fresh.id).not.toBe(basket.id);
    expect(quantities(fresh)).toEqual({ [p.book]: 1 });
  });

  it("answers the client's stored basket without a header, and a basket for a client who has none", async () => {
    const client = await clientWithPassword();
    const empty = (await loggedIn(await login(client.email, undefined))).basket;
    expect(empty).toMatchObject({ id: null, items: [], itemCount: 0, total: 0, currency: 'EUR', vatIncluded: true });
    await add(t, { bearer: client.token }, p.book, 2);
    const { basket } = await loggedIn(await login(client.email, undefined));
    expect([quantities(basket), basket.total]).toEqual([{ [p.book]: 2 }, 20]);
  });

  it('never doubles a line when the login is retried with the same guest token', async () => {
    const client = await clientWithPassword();
    await add(t, { bearer: client.token }, p.book, 1);
    const token = await guestWith([
      [p.book, 2],
      [p.scarce, 1],
    ]);
    const first = (await loggedIn(await login(client.email, token))).basket;
    const retried = (await loggedIn(await login(client.email, token))).basket;
    expect(quantities(first)).toEqual({ [p.book]: 3, [p.scarce]: 1 });
    expect([quantities(retried), retried.version]).toEqual([quantities(first), first.version]);
  });

  it('merges once when two tabs log in with the same guest token at once', async () => {
    const client = await clientWithPassword();
    await add(t, { bearer: client.token }, p.book, 1);
    const token = await guestWith([
      [p.book, 3],
      [p.ebook, 1],
    ]);
    const answers = await Promise.all([1, 2, 3].map(() => login(client.email, token)));
    const baskets = await Promise.all(answers.map(async (answer) => (await loggedIn(answer)).basket));
    for (const basket of baskets) expect(quantities(basket)).toEqual({ [p.book]: 4, [p.ebook]: 1 });
    expect(quantities(await read(t, { bearer: client.token }))).toEqual({ [p.book]: 4, [p.ebook]: 1 });
    expect(await read(t, { token })).toMatchObject({ id: null, items: [] });
  });

  it('merges once when tabs of a retail customer log in to the other store for the first time at once (one account is made there)', async () => {
    const client = await clientWithPassword();
    const token = await guestWith([[p.both, 2]], 'WEB2');
    const answers = await Promise.all([1, 2, 3, 4].map(() => login(client.email, token, { store: 'WEB2' })));
    const baskets = await Promise.all(answers.map(async (answer) => (await loggedIn(answer)).basket));
    for (const basket of baskets) expect(quantities(basket)).toEqual({ [p.both]: 2 });
    const accounts = await t.database.db.selectFrom('client_account').select('store_code').where('user_id', '=', client.userId).execute();
    expect(accounts.map((account) => account.store_code).sort()).toEqual(['WEB', 'WEB2']);
  });

  it('merges nothing when the login fails: wrong password, unknown email, no account in the store', async () => {
    const client = await clientWithPassword();
    await add(t, { bearer: client.token }, p.book, 1);
    const token = await guestWith([[p.book, 2]]);
    const before = await read(t, { token });
    expect(expectFieldErrors(await login(client.email, token, { password: 'Wrong-password-123' }))).toEqual(['password']);
    expect(expectFieldErrors(await login('nobody@example.ee', token))).toEqual(['password']);
    const business = await clientWithPassword({ kind: 'BUSINESS' });
    expect(expectFieldErrors(await login(business.email, token, { store: 'WEB2' }))).toEqual(['web_store_nav_code']);
    const after = await read(t, { token });
    expect([after.id, after.version, quantities(after)]).toEqual([before.id, before.version, { [p.book]: 2 }]);
    expect(quantities(await read(t, { bearer: client.token }))).toEqual({ [p.book]: 1 });
    // The retry with the right password merges it once.
    expect(quantities((await loggedIn(await login(client.email, token))).basket)).toEqual({ [p.book]: 3 });
  });

  it('merges nothing while the roles are answered, then into the account of the role chosen', async () => {
    const business = await clientWithPassword({ kind: 'BUSINESS' });
    const simple = await t.database.db
      .insertInto('client_account')
      .values({
        code: `WS${business.clientAccountId}`,
        user_id: business.userId,
        store_code: 'WEB',
        type: 'SIMPLE',
        company_id: null,
        role: 'customer',
        created_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const token = await guestWith([[p.book, 2]]);
    const roles = await login(business.email, token);
    expect([roles.statusCode, roles.json()]).toEqual([200, { roles: ['SIMPLE', 'BUSINESS'] }]);
    expect(quantities(await read(t, { token }))).toEqual({ [p.book]: 2 });
    const { basket } = await loggedIn(await login(business.email, token, { role: 'BUSINESS' }));
    expect(quantities(basket)).toEqual({ [p.book]: 2 });
    expect(quantities(await read(t, { bearer: business.token }))).toEqual({ [p.book]: 2 });
    const retail = await t.database.db.selectFrom('basket').select('id').where('client_account_id', '=', simple.id).execute();
    expect(retail).toEqual([]);
  });

  it("merges a wholesale login into the wholesale account's basket, priced without VAT", async () => {
    const wholesale = await clientWithPassword({ kind: 'WHOLESALE' });
    const token = await guestWith([[p.book, 3]]);
    const { basket } = await loggedIn(await login(wholesale.email, token));
    expect([quantities(basket), basket.vatIncluded, basket.items[0]!.unitPrice]).toEqual([{ [p.book]: 3 }, false, 6]);
    const stored = await read(t, { bearer: wholesale.token });
    expect([stored.id, quantities(stored), stored.total]).toEqual([basket.id, { [p.book]: 3 }, basket.total]);
  });

  it("never merges a guest basket of one store into the client's basket of another", async () => {
    const client = await clientWithPassword({ store: 'WEB2' });
    const token = await guestWith([[p.both, 2]], 'WEB');
    const { basket } = await loggedIn(await login(client.email, token, { store: 'WEB2' }));
    expect(basket.items).toEqual([]);
    expect(quantities(await read(t, { token }))).toEqual({ [p.both]: 2 });
    // A guest basket of WEB2 does merge there.
    const web2Token = await guestWith([[p.both, 1]], 'WEB2');
    expect(quantities((await loggedIn(await login(client.email, web2Token, { store: 'WEB2' }))).basket)).toEqual({ [p.both]: 1 });
  });

  it('logs in and merges nothing when the header is not a basket token, or an unknown one', async () => {
    const client = await clientWithPassword();
    const rowsBefore = (await guestBasketRows()).length;
    for (const header of ['not-a-token', 'A'.repeat(43), 'x'.repeat(500)]) {
      expect((await loggedIn(await login(client.email, header))).basket).toMatchObject({ id: null, items: [] });
    }
    expect((await guestBasketRows()).length).toBe(rowsBefore);
  });
});
