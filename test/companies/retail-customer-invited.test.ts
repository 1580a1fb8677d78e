import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  login,
  mailTo,
  me,
  register,
  registerVerified,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { createCustomer, emailOf } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { call, companyMaster, invite, seenBy, useAccount } from './fixtures.js';

// A person may hold a client account of each kind in a store (docs: "a user can hold several client
// accounts, per store and per kind; login asks which role"). An invitation of someone who had a
// retail account here, verified or not, was a 409 that blocked the invitation and told the company's
// master that the address was a customer of the shop. Now it gives them a company account beside the
// retail one, which keeps its own basket, orders, addresses and wishlist. Only a company account of
// theirs here (in use, another company's invitation, waiting for the back office) still refuses an invitation;
// the company's own invitation not yet accepted is renewed (invitation-renewal.test.ts).

let t: AccountsTestApp;
let shop: Shop;
let book: number;
beforeAll(async () => {
  t = await createAccountsTestApp();
  shop = await setUpShop(t);
  book = await stockedBook(t, shop, 1000);
});
afterAll(() => t.close());

const INVITATION = /Teid kutsuti/;
const VERIFICATION = /Kinnitage oma e-posti aadress/;

async function followed(token: string): Promise<string> {
  const verified = await verify(t, token);
  expect(verified.statusCode, verified.body).toBe(200);
  return verified.json().accessToken as string;
}

async function loggedInAs(email: string, role: 'SIMPLE' | 'BUSINESS'): Promise<string> {
  const response = await login(t, email, GOOD_PASSWORD, 'WEB', role);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().accessToken as string;
}

describe('inviting a retail customer of the store', () => {
  it('invites someone who registered here and never verified; both links work, and login asks which role', async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('pending-retail');
    expect((await register(t, email)).statusCode).toBe(200);
    const registration = tokenFromMail(await mailTo(t, email, VERIFICATION), 'verificationToken');
    const invited = await invite(t, master.token, email);
    // The company sees the names it typed, not those of the registration (Mari Maasikas).
    expect(invited).toMatchObject({ firstName: 'Tiit', lastName: 'Töötaja', status: 'INVITED' });
    const invitation = tokenFromMail(await mailTo(t, email, INVITATION), 'verificationToken');

    expect((await me(t, await followed(registration))).json()).toMatchObject({ role: 'SIMPLE', webStoreNavCode: 'WEB' });
    expect((await me(t, await followed(invitation))).json()).toMatchObject({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
    expect((await login(t, email)).json()).toEqual({ roles: ['SIMPLE', 'BUSINESS'] });
  });

  it("gives a verified customer a company account beside the retail one, whose basket, orders, addresses and wishlist stay the retail account's", async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('retail');
    const retail = await registerVerified(t, email);
    const order = await useAccount(t, shop, book, retail, 'Rüütli 1', 'CASH_ON_DELIVERY');
    const before = await seenBy(t, retail);
    expect(before).toMatchObject({ orders: [order], addresses: ['Rüütli 1'], wishlist: 1, basketLines: 1 });

    await invite(t, master.token, email);
    // Until they accept, the retail account is their only one here: login opens it without asking.
    expect((await login(t, email)).json()).toMatchObject({ accessToken: expect.any(String) });
    const employee = await followed(tokenFromMail(await mailTo(t, email, INVITATION), 'verificationToken'));

    const atCompany = await seenBy(t, employee);
    expect((await me(t, employee)).json()).toMatchObject({ role: 'BUSINESS', webStoreNavCode: 'WEB' });
    expect(atCompany).toEqual({ clientCode: expect.any(String), orders: [], addresses: [], wishlist: 0, basketLines: 0 });
    expect(atCompany.clientCode).not.toBe(before.clientCode);
    expect((await login(t, email)).json()).toEqual({ roles: ['SIMPLE', 'BUSINESS'] });
    expect(await seenBy(t, await loggedInAs(email, 'SIMPLE'))).toEqual(before);
    expect((await seenBy(t, await loggedInAs(email, 'BUSINESS'))).clientCode).toBe(atCompany.clientCode);
    expect((await call(t, 'GET', '/company-user?per-page=100', master.token)).json()).toContainEqual(
      expect.objectContaining({ email, clientCode: atCompany.clientCode, status: 'ACTIVE' }),
    );
  });
});

describe('an invitation still refused with a 409', () => {
  it("for someone with a company account here, of either kind, or another company's invitation", async () => {
    const master = await companyMaster(t, 'BUSINESS');
    const other = await companyMaster(t, 'BUSINESS');
    const invited = uniqueEmail('invited');
    await invite(t, other.token, invited);
    const businessCustomer = await emailOf(t.database.db, await createCustomer(t.database.db, { kind: 'BUSINESS' }));
    const wholesaleCustomer = await emailOf(t.database.db, await createCustomer(t.database.db, { kind: 'WHOLESALE' }));
    for (const [token, email] of [
      [master.token, invited],
      [master.token, businessCustomer],
      [master.token, wholesaleCustomer],
      [master.token, await emailOf(t.database.db, master)],
    ] as const) {
      const refused = await call(t, 'POST', '/company-user', token, { email, firstName: 'A', lastName: 'B', role: 'EMPLOYEE' });
      const body = expectErrorBody(refused, 409, 'Conflict');
      expect(body.message).toBe(
        'Selle e-posti aadressiga on selles veebipoes juba ettevõtte või hulgikliendi konto või kutse; seda ei saa kutsuda.',
      );
    }
    expect((await call(t, 'GET', '/company-user?per-page=100', master.token)).json()).toHaveLength(1);
  });
});
