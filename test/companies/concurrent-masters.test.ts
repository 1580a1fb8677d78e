import type { LightMyRequestResponse } from 'fastify';
import type { Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { createAccountsTestApp, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { call, companyMaster } from './fixtures.js';

// Requests of a company's masters at once: each must see what the other committed before it
// decides (on PostgreSQL the rows are held so that both have read before either commits; on
// SQLite the requests run one after the other).

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

const db = () => t.database.db;

/** A company of the kind with two masters, A and B. */
async function twoMasters(kind: 'BUSINESS' | 'WHOLESALE') {
  const a = await companyMaster(t, kind);
  const b = await companyMaster(t, kind);
  await db().updateTable('client_account').set({ company_id: a.companyId }).where('id', '=', b.clientAccountId).execute();
  return { a, b, companyId: a.companyId! };
}

/** A business company of two masters, A and B, and an employee. */
async function twoMastersAndAnEmployee() {
  const a = await companyMaster(t, 'BUSINESS');
  const b = await companyMaster(t, 'BUSINESS');
  const employee = await companyMaster(t, 'BUSINESS');
  await db()
    .updateTable('client_account')
    .set({ company_id: a.companyId, role: 'company_master' })
    .where('id', '=', b.clientAccountId)
    .execute();
  await db()
    .updateTable('client_account')
    .set({ company_id: a.companyId, role: 'company_employee' })
    .where('id', '=', employee.clientAccountId)
    .execute();
  return { a, b, companyId: a.companyId! };
}

async function userIdsOf(...clientAccountIds: number[]): Promise<number[]> {
  const rows = await db().selectFrom('client_account').select('user_id').where('id', 'in', clientAccountIds).execute();
  return rows.map((row) => Number(row.user_id));
}

/** Holds the users' rows as a write of them would (an update to themselves locks them on both engines). */
async function holdUsers(trx: Transaction<Database>, userIds: number[]): Promise<void> {
  await trx
    .updateTable('app_user')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', 'in', userIds)
    .execute();
}

/**
 * Sends the requests while the users' rows are held: an erasure writes them, so on PostgreSQL
 * each request has made its checks before any of them commits. Answers them in order.
 */
async function whileUsersHeld(userIds: number[], requests: () => Array<Promise<LightMyRequestResponse>>) {
  let answers: LightMyRequestResponse[] = [];
  await whileTransactionOpen(
    db(),
    (trx) => holdUsers(trx, userIds),
    async () => (answers = await Promise.all(requests())),
    500,
  );
  return answers;
}

async function activeMasters(companyId: number): Promise<number> {
  const rows = await db()
    .selectFrom('client_account')
    .select('id')
    .where('company_id', '=', companyId)
    .where('status', '=', 'ACTIVE')
    .where('role', 'not in', ['company_employee', 'wholesale_employee'])
    .execute();
  return rows.length;
}

describe('a master erasing themselves at once with another change to the masters', () => {
  it('two masters erasing themselves at once: one leaves, the other is refused as the last master', async () => {
    const { a, b, companyId } = await twoMastersAndAnEmployee();
    const answers = await whileUsersHeld(await userIdsOf(a.clientAccountId, b.clientAccountId), () => [
      call(t, 'DELETE', '/client-account', a.token, {}),
      call(t, 'DELETE', '/client-account', b.token, {}),
    ]);
    // PostgreSQL: each erasure counted the other as the master who stays, and both left.
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([204, 409]);
    expect(await activeMasters(companyId)).toBe(1);
  });

  it('a master erasing themselves while removing the other master: only one of the two happens', async () => {
    const { a, b, companyId } = await twoMastersAndAnEmployee();
    const [erase, remove] = await whileUsersHeld(await userIdsOf(a.clientAccountId), () => [
      call(t, 'DELETE', '/client-account', a.token, {}),
      call(t, 'DELETE', `/company-user/${b.clientAccountId}`, a.token),
    ]);
    // PostgreSQL: the erasure counted B, the removal counted A, and both committed.
    expect([erase!.statusCode === 204, remove!.statusCode === 200].filter(Boolean), `${erase!.body} ${remove!.body}`).toHaveLength(1);
    expect(await activeMasters(companyId)).toBe(1);
  });
});

describe('a master demoted while their request is in flight', () => {
  /** B demoted to employee in a transaction that holds the company as every change to its users does, and commits while `request` runs. */
  async function whileDemoted(
    b: { clientAccountId: number },
    companyId: number,
    role: string,
    request: () => Promise<LightMyRequestResponse>,
  ) {
    let answer!: LightMyRequestResponse;
    await whileTransactionOpen(
      db(),
      async (trx) => {
        await trx
          .updateTable('company')
          .set((eb) => ({ name: eb.ref('name') }))
          .where('id', '=', companyId)
          .execute();
        await trx.updateTable('client_account').set({ role }).where('id', '=', b.clientAccountId).execute();
      },
      async () => (answer = await request()),
    );
    return answer;
  }

  it('cannot invite a master once the demotion has committed', async () => {
    const { b, companyId } = await twoMasters('BUSINESS');
    const email = uniqueEmail('late-master');
    const invite = await whileDemoted(b, companyId, 'company_employee', () =>
      call(t, 'POST', '/company-user', b.token, { email, firstName: 'Hilja', lastName: 'Peakasutaja', role: 'MASTER' }),
    );
    // PostgreSQL: B's role was read before the company's lock, and B invited a new master as one.
    expectErrorBody(invite, 403, 'Forbidden');
    expect(await db().selectFrom('app_user').select('id').where('email', '=', email).execute()).toEqual([]);
  });

  it('cannot add a sub-company once the demotion has committed', async () => {
    const { b, companyId } = await twoMasters('WHOLESALE');
    const created = await whileDemoted(b, companyId, 'wholesale_employee', () =>
      call(t, 'POST', '/sub-company', b.token, { name: 'Hiline Kool', addresses: [] }),
    );
    expectErrorBody(created, 403, 'Forbidden');
    expect(await db().selectFrom('sub_company').select('id').where('company_id', '=', companyId).execute()).toEqual([]);
  });
});
