import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, GOOD_PASSWORD, login, me, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { acceptInvitation, call, companyMaster, invite, seenBy as seenByToken, useAccount as useAccountOf } from './fixtures.js';

// A person a company removed, invited by another company. Their removed account is the first
// company's: the orders placed for it, its delivery addresses, basket and wishlist. Before, the
// second company's invitation moved that very account over (the unique key allowed one account per
// user, store and kind), so the person, now the second company's employee, saw the first company's
// orders and addresses, and the first company lost them. Now the second company's invitation makes
// a new account; the removed one stays with the company that removed it, which gets it back, with
// its data, when it invites the person again.

let t: AccountsTestApp;
let shop: Shop;
let book: number;
beforeAll(async () => {
  t = await createAccountsTestApp();
  shop = await setUpShop(t);
  book = await stockedBook(t, shop, 1000);
});
afterAll(() => t.close());

const ok = async (response: Promise<LightMyRequestResponse>, status = 200) => {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  return answer;
};

type CompanyUser = { id: number; clientCode: string; email: string; status: string; createdAt: string };
const usersOf = async (token: string) => (await ok(call(t, 'GET', '/company-user?per-page=100', token))).json() as CompanyUser[];

const seenBy = (token: string) => seenByToken(t, token);
const useAccount = (token: string, street: string) => useAccountOf(t, shop, book, token, street);

const accountRow = (id: number) =>
  t.database.db.selectFrom('client_account').select(['company_id', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
const companyOf = async (masterAccountId: number) => Number((await accountRow(masterAccountId)).company_id);

describe('a person another company removed, invited by a company', () => {
  it("gets a new account there; the removed one, with its orders and addresses, stays the first company's, which gets it back", async () => {
    const a = await companyMaster(t, 'BUSINESS', 10);
    const b = await companyMaster(t, 'BUSINESS', 20);
    const email = uniqueEmail('rejoin');

    // X works for A: an order, an address, a wishlist and a basket line on A's account.
    const atA = await invite(t, a.token, email);
    const xAtA = await acceptInvitation(t, email);
    const orderAtA = await useAccount(xAtA, 'Esimese firma tänav 1');
    const seenAtA = await seenBy(xAtA);
    expect(seenAtA).toEqual({
      clientCode: atA.clientCode,
      orders: [orderAtA],
      addresses: ['Esimese firma tänav 1'],
      wishlist: 1,
      basketLines: 1,
    });

    // A removes X; A's users list without X.
    await ok(call(t, 'DELETE', `/company-user/${atA.id}`, a.token));
    const aListsAfterRemoval = await usersOf(a.token);
    expect(aListsAfterRemoval.map((user) => user.email)).not.toContain(email);

    // B invites X: a new account, not A's.
    const atB = await invite(t, b.token, email);
    expect(atB.id).not.toBe(atA.id);
    expect(atB.clientCode).not.toBe(atA.clientCode);
    expect(await accountRow(atA.id)).toEqual({ company_id: await companyOf(a.clientAccountId), status: 'REMOVED' });
    expect(await accountRow(atB.id)).toEqual({ company_id: await companyOf(b.clientAccountId), status: 'PENDING_CONFIRMATION' });

    // X accepts B's invitation (the link sets the password anew) and logs in: B's account, with none of A's things.
    const xAtB = await acceptInvitation(t, email);
    expect(await seenBy(xAtB)).toEqual({ clientCode: atB.clientCode, orders: [], addresses: [], wishlist: 0, basketLines: 0 });
    expectErrorBody(await call(t, 'GET', `/order/${orderAtA}`, xAtB), 404, 'Not Found');
    const login2 = await ok(login(t, email, GOOD_PASSWORD));
    expect((await ok(me(t, login2.json().accessToken))).json()).toMatchObject({ clientCode: atB.clientCode, roles: ['BUSINESS'] });

    // B's master sees X with B's account only; A's account id is not B's to touch.
    const bUsers = await usersOf(b.token);
    expect(bUsers.filter((user) => user.email === email)).toEqual([
      expect.objectContaining({ id: atB.id, clientCode: atB.clientCode, status: 'ACTIVE', createdAt: atB.createdAt }),
    ]);
    expectErrorBody(await call(t, 'PUT', `/company-user/${atA.id}`, b.token, { firstName: 'Võõras' }), 404, 'Not Found');
    expectErrorBody(await call(t, 'DELETE', `/company-user/${atA.id}`, b.token), 404, 'Not Found');

    // A sees what it saw; A's order is still A's account's.
    expect(await usersOf(a.token)).toEqual(aListsAfterRemoval);
    const order = await t.database.db
      .selectFrom('customer_order')
      .select('client_account_id')
      .where('code', '=', orderAtA)
      .executeTakeFirstOrThrow();
    expect(Number(order.client_account_id)).toBe(atA.id);

    // A cannot invite X while X is B's; once B removed X, A's invitation gives A's account back, with A's things.
    expectErrorBody(
      await call(t, 'POST', '/company-user', a.token, { email, firstName: 'T', lastName: 'T', role: 'EMPLOYEE' }),
      409,
      'Conflict',
    );
    await ok(call(t, 'DELETE', `/company-user/${atB.id}`, b.token));
    const backAtA = await invite(t, a.token, email);
    expect(backAtA).toMatchObject({ id: atA.id, clientCode: atA.clientCode, status: 'INVITED' });
    const xBackAtA = await acceptInvitation(t, email);
    expect(await seenBy(xBackAtA)).toEqual(seenAtA);
    expect(await accountRow(atB.id)).toEqual({ company_id: await companyOf(b.clientAccountId), status: 'REMOVED' });
    expect((await usersOf(b.token)).map((user) => user.email)).not.toContain(email);
  });

  it("exports the person's data of both accounts, and erases both", async () => {
    const a = await companyMaster(t, 'BUSINESS');
    const b = await companyMaster(t, 'BUSINESS');
    const email = uniqueEmail('rejoin-data');
    const atA = await invite(t, a.token, email);
    const orderAtA = await useAccount(await acceptInvitation(t, email), 'Esimese firma tänav 2');
    await ok(call(t, 'DELETE', `/company-user/${atA.id}`, a.token));
    const atB = await invite(t, b.token, email);
    const xAtB = await acceptInvitation(t, email);
    const orderAtB = await useAccount(xAtB, 'Teise firma tänav 2');

    // Their own data, whichever company's account it was made with.
    const exported = (await ok(call(t, 'GET', '/client-account/export', xAtB))).json();
    expect(exported.account.clientAccounts.map((account: { code: string; status: string }) => [account.code, account.status])).toEqual([
      [atA.clientCode, 'REMOVED'],
      [atB.clientCode, 'ACTIVE'],
    ]);
    expect(exported.companyMemberships.map((membership: { clientCode: string }) => membership.clientCode)).toEqual([
      atA.clientCode,
      atB.clientCode,
    ]);
    expect(JSON.stringify(exported.orders)).toContain(orderAtA);
    expect(JSON.stringify(exported.orders)).toContain(orderAtB);
    expect(JSON.stringify(exported.profile)).toContain('Esimese firma tänav 2');
    expect(JSON.stringify(exported.profile)).toContain('Teise firma tänav 2');

    // The erasure marks both accounts (two of one kind in one store) and removes both addresses,
    // once the orders were delivered (the back office's part, written straight to the table here).
    await t.database.db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('code', 'in', [orderAtA, orderAtB]).execute();
    await ok(call(t, 'DELETE', '/client-account', xAtB, { password: GOOD_PASSWORD }), 204);
    const rows = await t.database.db
      .selectFrom('client_account')
      .select(['id', 'status'])
      .where('id', 'in', [atA.id, atB.id])
      .orderBy('id')
      .execute();
    expect(rows.map((row) => row.status)).toEqual(['ERASED', 'ERASED']);
    const addresses = await t.database.db
      .selectFrom('client_address')
      .select('id')
      .where('client_account_id', 'in', [atA.id, atB.id])
      .execute();
    expect(addresses).toEqual([]);
    expect((await usersOf(b.token)).map((user) => user.email)).not.toContain(email);
  });
});

describe('two companies inviting one removed person at once', () => {
  const invitation = (token: string, email: string) =>
    call(t, 'POST', '/company-user', token, { email, firstName: 'Samaaegne', lastName: 'Kutse', role: 'EMPLOYEE' });

  for (const who of ['the company that removed them and another', 'two other companies'] as const) {
    it(`${who}: one invitation wins, the other is a 409, and the person has one live account`, async () => {
      for (let round = 0; round < 4; round += 1) {
        const a = await companyMaster(t, 'BUSINESS');
        const b = await companyMaster(t, 'BUSINESS');
        const c = await companyMaster(t, 'BUSINESS');
        const email = uniqueEmail('race');
        const atA = await invite(t, a.token, email);
        await acceptInvitation(t, email);
        await ok(call(t, 'DELETE', `/company-user/${atA.id}`, a.token));

        const [first, second] = who === 'two other companies' ? [b, c] : [a, b];
        const answers = await Promise.all([invitation(first.token, email), invitation(second.token, email)]);
        expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
        expectErrorBody(
          answers.find((answer) => answer.statusCode === 409)!,
          409,
          'Conflict',
        );
        const winner = answers.find((answer) => answer.statusCode === 200)!.json() as CompanyUser;

        const accounts = await t.database.db
          .selectFrom('client_account as ca')
          .innerJoin('app_user as u', 'u.id', 'ca.user_id')
          .select(['ca.id', 'ca.status'])
          .where('u.email', '=', email)
          .orderBy('ca.id')
          .execute();
        expect(accounts.filter((account) => account.status !== 'REMOVED').map((account) => Number(account.id))).toEqual([winner.id]);
        // The winner's account is the one the person takes up.
        const token = await acceptInvitation(t, email);
        expect((await ok(me(t, token))).json().clientCode).toBe(winner.clientCode);
        // The removed account stays A's whoever won; only A's own invitation takes it up again.
        expect(Number((await accountRow(atA.id)).company_id)).toBe(await companyOf(a.clientAccountId));
        const aWon = answers[0]!.statusCode === 200 && first === a;
        expect(winner.id === atA.id).toBe(aWon);
      }
    });
  }
});
