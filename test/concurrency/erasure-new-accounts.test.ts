import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { importUsers, wholesaleCommand } from '../../src/modules/accounts/index.js';
import { WholesaleDecisionError } from '../../src/modules/accounts/wholesale.service.js';
import { registerSimple } from '../../src/modules/accounts/registration.service.js';
import { companyMaster, lockedMaster } from '../../src/modules/companies/company-access.js';
import { inviteCompanyUser } from '../../src/modules/companies/company-users.service.js';
import { eraseSubject, loadSubject } from '../../src/modules/gdpr/gdpr.service.js';
import { personalDataParts } from '../../src/modules/gdpr/personal-data-parts.js';
import { wholesaleForm } from '../helpers/accounts.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { firstHoldingThenSecond } from '../helpers/lock-waits.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from '../profile/helpers.js';

// "The person" of an erasure is the user: one email, with client accounts in every store. What adds
// an account to the user of an email (a registration in another store, the worker's side; a
// company's invitation) and the erasure at once end as one of them first: first, the account is
// erased with the rest (an invitation's names too); after, the email is no one's and a new person
// is made, as for a registration or invitation sent after the erasure. On PostgreSQL they run at
// once; SQLite runs them one after the other.

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = mkdtempSync(join(tmpdir(), 'storefront-erasure-import-'));
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const db = () => t.database.db;

async function personOf(client: TestCustomer): Promise<{ userId: number; email: string }> {
  const row = await db()
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['app_user.id', 'app_user.email'])
    .where('client_account.id', '=', client.clientAccountId)
    .executeTakeFirstOrThrow();
  return { userId: Number(row.id), email: row.email };
}

/** The worker's side of POST /auth/register-simple in WEB2 for the email, in the caller's transaction. */
const registerInWeb2 = (trx: Transaction<Database>, email: string) =>
  registerSimple(
    trx,
    { config: t.config, storeCode: 'WEB2', language: 'et' },
    { email, firstName: 'Mari', lastName: 'Maasikas' },
    Date.now(),
  );

const accountsOfUser = (userId: number) =>
  db().selectFrom('client_account').select(['store_code', 'type', 'status']).where('user_id', '=', userId).orderBy('id').execute();

const userOfEmail = (email: string) => db().selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirst();

describe('the erasure and a registration of the email in another store at once', () => {
  it('a registration while the erasure is open waits for it and makes a new person of the email', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await createCustomer(db(), { kind: 'BUSINESS' });
      const { userId, email } = await personOf(client);
      await whileTransactionOpen(
        db(),
        async (trx) => eraseSubject(trx, personalDataParts, (await loadSubject(trx, userId))!, Date.now()),
        () =>
          db()
            .transaction()
            .execute((trx) => registerInWeb2(trx, email)),
      );
      expect(await accountsOfUser(userId)).toEqual([{ store_code: 'WEB', type: 'BUSINESS', status: 'ERASED' }]);
      const registered = await userOfEmail(email);
      expect(registered, 'the registration made a new user').toBeDefined();
      expect(Number(registered!.id)).not.toBe(userId);
      expect(await accountsOfUser(Number(registered!.id))).toEqual([{ store_code: 'WEB2', type: 'SIMPLE', status: 'ACTIVE' }]);
    }
  });

  it('a registration in flight when the erasure starts is waited for, and its account erased with the rest', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await createCustomer(db(), { kind: 'BUSINESS' });
      const { userId, email } = await personOf(client);
      let erased!: Awaited<ReturnType<ReturnType<typeof as>>>;
      await whileTransactionOpen(
        db(),
        (trx) => registerInWeb2(trx, email),
        async () => (erased = await as(t, client.token)('DELETE', '/client-account', {})),
      );
      expect(erased.statusCode, erased.body).toBe(204);
      expect(await accountsOfUser(userId)).toEqual([
        { store_code: 'WEB', type: 'BUSINESS', status: 'ERASED' },
        { store_code: 'WEB2', type: 'SIMPLE', status: 'ERASED' },
      ]);
      expect(await userOfEmail(email)).toBeUndefined();
    }
  });
});

describe('the erasure and a users import line of the email at once', () => {
  /** `storefront import users` of one line giving the email a retail account in WEB2: the line's outcome. */
  async function importLine(email: string): Promise<Record<string, number>> {
    const file = join(dir, `${email}.ndjson`);
    writeFileSync(file, JSON.stringify({ email, firstName: 'Vana', store: 'WEB2', accountType: 'SIMPLE', activated: true }) + '\n');
    const reported: string[] = [];
    const summary = await importUsers({ db: db(), log: t.app.log }, file, (line) => reported.push(line));
    expect(reported).toEqual([]);
    return summary.outcomes;
  }

  const erase = (person: TestCustomer) => as(t, person.token)('DELETE', '/client-account', {});

  // Both hold client_account in share mode where the erasure marks the accounts ERASED and the line
  // inserts its account: whichever comes second meets the first there or at the person's locks.

  it('a line that meets the erasure holding the person waits for it and makes a new person of the email', async () => {
    const person = await createCustomer(db());
    const { userId, email } = await personOf(person);
    const [erased, imported] = await firstHoldingThenSecond(
      db(),
      'client_account',
      () => erase(person),
      () => importLine(email),
    );
    expect(erased.statusCode, erased.body).toBe(204);
    expect(imported).toEqual({ created: 1 });
    expect(await accountsOfUser(userId)).toEqual([{ store_code: 'WEB', type: 'SIMPLE', status: 'ERASED' }]);
    const made = await userOfEmail(email);
    expect(Number(made!.id)).not.toBe(userId);
    expect(await accountsOfUser(Number(made!.id))).toEqual([{ store_code: 'WEB2', type: 'SIMPLE', status: 'ACTIVE' }]);
  });

  it('a line holding the person is waited for, and the account it added erased with the rest', async () => {
    const person = await createCustomer(db());
    const { userId, email } = await personOf(person);
    const [imported, erased] = await firstHoldingThenSecond(
      db(),
      'client_account',
      () => importLine(email),
      () => erase(person),
    );
    expect(imported).toEqual({ 'account added': 1 });
    expect(erased.statusCode, erased.body).toBe(204);
    expect(await accountsOfUser(userId)).toEqual([
      { store_code: 'WEB', type: 'SIMPLE', status: 'ERASED' },
      { store_code: 'WEB2', type: 'SIMPLE', status: 'ERASED' },
    ]);
    expect(await userOfEmail(email)).toBeUndefined();
  });
});

const invitationNames = (userId: number) =>
  db()
    .selectFrom('company_invitation')
    .innerJoin('client_account', 'client_account.id', 'company_invitation.client_account_id')
    .select('company_invitation.first_name')
    .where('client_account.user_id', '=', userId)
    .execute();

describe("the erasure and a company's invitation of the email at once", () => {
  const invitation = (email: string) => ({ email, firstName: 'Tiit', lastName: 'Töötaja', role: 'EMPLOYEE' as const });

  it('an invitation while the erasure is open waits for it and invites a new person of the email', async () => {
    const person = await createCustomer(db(), { store: 'WEB2' });
    const { userId, email } = await personOf(person);
    const master = await createCustomer(db(), { kind: 'BUSINESS' });
    let invited!: Awaited<ReturnType<ReturnType<typeof as>>>;
    await whileTransactionOpen(
      db(),
      async (trx) => eraseSubject(trx, personalDataParts, (await loadSubject(trx, userId))!, Date.now()),
      async () => (invited = await as(t, master.token)('POST', '/company-user', invitation(email))),
    );
    expect(invited.statusCode, invited.body).toBe(200);
    expect(await accountsOfUser(userId)).toEqual([{ store_code: 'WEB2', type: 'SIMPLE', status: 'ERASED' }]);
    const registered = await userOfEmail(email);
    expect(Number(registered!.id)).not.toBe(userId);
    expect(await accountsOfUser(Number(registered!.id))).toEqual([{ store_code: 'WEB', type: 'BUSINESS', status: 'PENDING_CONFIRMATION' }]);
  });

  it('an invitation in flight when the erasure starts is waited for, and its account and names erased with the rest', async () => {
    const person = await createCustomer(db(), { store: 'WEB2' });
    const { userId, email } = await personOf(person);
    const master = await createCustomer(db(), { kind: 'BUSINESS' });
    let erased!: Awaited<ReturnType<ReturnType<typeof as>>>;
    await whileTransactionOpen(
      db(),
      async (trx) => {
        const caller = await lockedMaster(trx, { clientAccountId: master.clientAccountId }, companyMaster);
        await inviteCompanyUser(trx, t.config, caller, { invitation: invitation(email), language: 'et' }, Date.now());
      },
      async () => (erased = await as(t, person.token, 'WEB2')('DELETE', '/client-account', {})),
    );
    expect(erased.statusCode, erased.body).toBe(204);
    expect(await accountsOfUser(userId)).toEqual([
      { store_code: 'WEB2', type: 'SIMPLE', status: 'ERASED' },
      { store_code: 'WEB', type: 'BUSINESS', status: 'ERASED' },
    ]);
    expect(await invitationNames(userId)).toEqual([]);
  });
});

describe('the erasure and the approval of a wholesale request naming the person at once', () => {
  /** A customer of WEB2 who applied for wholesale in WEB with their own email: the pending request's id. */
  async function applicant() {
    const person = await createCustomer(db(), { store: 'WEB2' });
    const { userId, email } = await personOf(person);
    const applied = await t.app.inject({ method: 'POST', url: '/auth/register-wholesale', payload: wholesaleForm(email) });
    expect(applied.statusCode, applied.body).toBe(200);
    const request = await db().selectFrom('wholesale_request').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    return { person, userId, email, requestId: String(request.id) };
  }

  /** `storefront wholesale approve <id>`, as cli.ts runs it: what it printed, or the error it exits 1 with. */
  const approve = (requestId: string) =>
    wholesaleCommand({ db: db(), config: t.config }, ['approve', requestId], () => {}).then(
      () => 'approved',
      (error: unknown) => (error instanceof WholesaleDecisionError ? error.message : Promise.reject(error)),
    );

  const erase = (person: TestCustomer) => as(t, person.token, 'WEB2')('DELETE', '/client-account', {});
  const requestRow = (requestId: string) =>
    db().selectFrom('wholesale_request').select(['email', 'form', 'status']).where('id', '=', Number(requestId)).executeTakeFirstOrThrow();

  it('an approval holding the person is waited for, and the account and company it made are erased with the rest', async () => {
    const { person, userId, email, requestId } = await applicant();
    // The approval holds the person's locks when it meets the table held at its decided step.
    const [approved, erased] = await firstHoldingThenSecond(
      db(),
      'wholesale_request',
      () => approve(requestId),
      () => erase(person),
    );
    expect(approved).toBe('approved');
    expect(erased.statusCode, erased.body).toBe(204);
    expect(await accountsOfUser(userId)).toEqual([
      { store_code: 'WEB2', type: 'SIMPLE', status: 'ERASED' },
      { store_code: 'WEB', type: 'WHOLESALE', status: 'ERASED' },
    ]);
    expect(await userOfEmail(email)).toBeUndefined();
    // Decided before the erasure: it stays approved, emptied.
    expect(await requestRow(requestId)).toEqual({ email: `erased-${userId}@erased.invalid`, form: '{}', status: 'APPROVED' });
    // Its verification mail finds the account erased: no link is minted for the erased user.
    await t.drainJobs();
    const user = await db().selectFrom('app_user').select('verification_token_hash').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(user.verification_token_hash).toBeNull();
  });

  it('an approval that meets the erasure holding the person waits for it and approves nothing of the erased request', async () => {
    const { person, userId, email, requestId } = await applicant();
    // The erasure holds the person's locks when it meets the table held, where it erases the request.
    const [erased, approved] = await firstHoldingThenSecond(
      db(),
      'wholesale_request',
      () => erase(person),
      () => approve(requestId),
    );
    expect(erased.statusCode, erased.body).toBe(204);
    expect(approved).toBe(`wholesale request ${requestId}: its contact's data was erased`);
    expect(await accountsOfUser(userId)).toEqual([{ store_code: 'WEB2', type: 'SIMPLE', status: 'ERASED' }]);
    expect(await userOfEmail(email), 'no person was made again from the erased form').toBeUndefined();
    expect(await requestRow(requestId)).toEqual({ email: `erased-${userId}@erased.invalid`, form: '{}', status: 'ERASED' });
  });
});
