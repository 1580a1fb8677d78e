import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/infra/passwords.js';
import { newToken } from '../../src/infra/tokens.js';
import { completeVerification, pendingVerification } from '../../src/modules/accounts/verification.service.js';
import { lockAccountsForErasure } from '../../src/modules/client-account-lock/index.js';
import { takeOverProvenMailbox } from '../../src/modules/social/index.js';
import { lockedOnPostgres } from '../../src/db/row-lock.js';
import { eraseSubject, loadSubject } from '../../src/modules/gdpr/gdpr.service.js';
import { personalDataParts } from '../../src/modules/gdpr/personal-data-parts.js';
import { runCli } from '../helpers/cli.js';
import { expectErrorBody } from '../helpers/http.js';
import { firstHoldingThenSecond } from '../helpers/lock-waits.js';
import { GOOD_PASSWORD } from '../helpers/accounts.js';
import { createCustomer, userIdOf } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from '../profile/helpers.js';

// A person's email verification and their erasure at once. The verification confirms a business
// account a registration form attached to a retail customer (PENDING_CONFIRMATION): it writes the
// user's row, moves the account and ends the person's other sessions (a password replaced), the
// erasure's too; the erasure locks the person's accounts, its caller's session, and writes the
// user's row last. Whichever comes first, the other waits for it and then answers as it would after
// it: the verification first, the erasure finds its session ended (401) and erases nothing; the
// erasure first, the link is unknown (400). Neither is a 500 (a deadlock). On PostgreSQL they run at
// once; SQLite runs them one after the other.

let t: TestApp;
beforeAll(async () => {
  // A database file on SQLite: the command line's erasure opens the database as a process of its own would.
  t = await createTestApp({ sqliteFile: true });
});
afterAll(async () => t?.close());

const db = () => t.database.db;
let passwordHash: string;
beforeAll(async () => {
  passwordHash = await hashPassword(GOOD_PASSWORD);
});

/**
 * A retail customer of WEB with a password and a session, whose business registration in WEB waits
 * for them to follow its verification link; answers the session and the link's token.
 */
async function customerConfirmingBusiness() {
  const client = await createCustomer(db());
  const userId = await userIdOf(db(), client);
  const now = Date.now();
  const company = await db()
    .insertInto('company')
    .values({
      name: `Firma ${client.clientCode} OÜ`,
      registry_code: client.clientCode.slice(-8),
      vat_number: null,
      street: 'Rüütli 2',
      city: 'Tartu',
      postcode: '51007',
      country_code: 'EE',
      discount_percent: 0,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const business = await db()
    .insertInto('client_account')
    .values({
      code: `${client.clientCode}B`,
      user_id: userId,
      store_code: 'WEB',
      type: 'BUSINESS',
      company_id: company.id,
      role: 'company_master',
      status: 'PENDING_CONFIRMATION',
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const link = newToken();
  await db()
    .updateTable('app_user')
    .set({
      password_hash: passwordHash,
      verification_token_hash: link.hash,
      verification_expires_at: now + 3_600_000,
      verification_client_account_id: business.id,
    })
    .where('id', '=', userId)
    .execute();
  return { userId: Number(userId), session: client.token, link: link.token };
}

const verify = (link: string) =>
  t.app.inject({
    method: 'POST',
    url: `/auth/verify-email?verificationToken=${encodeURIComponent(link)}`,
    headers: { store: 'WEB' },
    payload: { password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD, termsAccepted: true },
  });

const accountsOfUser = (userId: number) =>
  db().selectFrom('client_account').select(['type', 'status']).where('user_id', '=', userId).orderBy('id').execute();

const tokensOfUser = (userId: number) => db().selectFrom('access_token').select('token_hash').where('user_id', '=', userId).execute();

const erasedOrNot = async (userId: number) => ({
  accounts: (await accountsOfUser(userId)).map((account) => account.status),
  tokens: (await tokensOfUser(userId)).length,
});

describe('the erasure and an email verification of the person at once', () => {
  it('end as one of them first, never in a deadlock', async () => {
    for (let round = 0; round < 20; round++) {
      const person = await customerConfirmingBusiness();
      const [erased, verified] = await Promise.all([
        as(t, person.session)('DELETE', '/client-account', { password: GOOD_PASSWORD }),
        verify(person.link),
      ]);
      if (verified.statusCode === 200) {
        expect(erased.statusCode, erased.body).toBe(401);
        expect(await erasedOrNot(person.userId)).toEqual({ accounts: ['ACTIVE', 'ACTIVE'], tokens: 1 });
      } else {
        expect(verified.statusCode, verified.body).toBe(400);
        expect(erased.statusCode, erased.body).toBe(204);
        expect(await erasedOrNot(person.userId)).toEqual({ accounts: ['ERASED', 'ERASED'], tokens: 0 });
      }
    }
    // Twenty rounds of a password check and a password hash each: well within 20 s alone, past it on 2 busy cores.
  }, 90_000);

  it('a verification holding the person when the erasure starts ends its session, and the erasure is a 401', async () => {
    const person = await customerConfirmingBusiness();
    const verification = await pendingVerification(db(), person.link, 'WEB', Date.now());
    let erasing!: ReturnType<ReturnType<typeof as>>;
    await db()
      .transaction()
      .execute(async (trx) => {
        // Where completeVerification starts; the erasure is sent while it holds these locks.
        await lockAccountsForErasure(trx, person.userId);
        erasing = as(t, person.session)('DELETE', '/client-account', { password: GOOD_PASSWORD });
        await new Promise((resolve) => setTimeout(resolve, 300));
        const input = { passwordHash, newsletter: undefined, basket: { guestToken: undefined, language: 'et' as const } };
        await completeVerification(trx, t.config, takeOverProvenMailbox, verification, input, Date.now());
      });
    const erased = await erasing;
    expect(erased.statusCode, erased.body).toBe(401);
    expect(await erasedOrNot(person.userId)).toEqual({ accounts: ['ACTIVE', 'ACTIVE'], tokens: 1 });
  });
});

/** Mails the person a password reset link; answers its token. */
async function resetLinkOf(userId: number): Promise<string> {
  const reset = newToken();
  await db()
    .updateTable('app_user')
    .set({ reset_token_hash: reset.hash, reset_expires_at: Date.now() + 3_600_000 })
    .where('id', '=', userId)
    .execute();
  return reset.token;
}

const setNewPassword = (resetToken: string) =>
  t.app.inject({
    method: 'POST',
    url: `/auth/set-new-password?passwordResetToken=${resetToken}`,
    payload: { password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD },
  });

describe('the erasure and a password reset of the person at once', () => {
  it('a reset that meets the erasure holding the person and its session waits for it, in no deadlock', async () => {
    const person = await customerConfirmingBusiness();
    const resetToken = await resetLinkOf(person.userId);
    let resetting!: Promise<LightMyRequestResponse>;
    await db()
      .transaction()
      .execute(async (trx) => {
        // DELETE /client-account's first locks (the person's, then its session); it writes the user's row last.
        await lockAccountsForErasure(trx, person.userId);
        await lockedOnPostgres(trx, trx.selectFrom('access_token').select('token_hash').where('user_id', '=', person.userId)).execute();
        resetting = setNewPassword(resetToken);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await eraseSubject(trx, personalDataParts, (await loadSubject(trx, person.userId))!, Date.now());
      });
    // As for a reset sent after the erasure: its token was cleared with the rest.
    expectErrorBody(await resetting, 400, 'Bad Request');
    expect(await erasedOrNot(person.userId)).toEqual({ accounts: ['ERASED', 'ERASED'], tokens: 0 });
  });
});

// `storefront gdpr erase <email>` is the same erasure (eraseByEmail): the person's locks first, as the
// verification and the reset take them. Each pair is forced both ways on PostgreSQL: the first holds
// what it locked when it meets the app_user table held, and the second is sent then.
describe('the command line erasure and a verification or a reset of the person at once', () => {
  const eraseOnCommandLine = async (userId: number) => {
    const { email } = await db().selectFrom('app_user').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
    return runCli(['gdpr', 'erase', email], { DATABASE_URL: t.config.databaseUrl });
  };
  const erasedEverything = { accounts: ['ERASED', 'ERASED'], tokens: 0 };

  it('a verification holding the person is waited for, and what it activated is erased', async () => {
    const person = await customerConfirmingBusiness();
    const [verified, erased] = await firstHoldingThenSecond(
      db(),
      'app_user',
      () => verify(person.link),
      () => eraseOnCommandLine(person.userId),
    );
    expect(verified.statusCode, verified.body).toBe(200);
    expect(erased.code, erased.stderr).toBe(0);
    expect(await erasedOrNot(person.userId)).toEqual(erasedEverything);
  });

  it('a verification that meets the erasure holding the person waits for it, and its link is unknown', async () => {
    const person = await customerConfirmingBusiness();
    const [erased, verified] = await firstHoldingThenSecond(
      db(),
      'app_user',
      () => eraseOnCommandLine(person.userId),
      () => verify(person.link),
    );
    expect(erased.code, erased.stderr).toBe(0);
    expectErrorBody(verified, 400, 'Bad Request');
    expect(await erasedOrNot(person.userId)).toEqual(erasedEverything);
  });

  it('a reset holding the person is waited for, and the erasure ends what it left', async () => {
    const person = await customerConfirmingBusiness();
    const resetToken = await resetLinkOf(person.userId);
    const [reset, erased] = await firstHoldingThenSecond(
      db(),
      'app_user',
      () => setNewPassword(resetToken),
      () => eraseOnCommandLine(person.userId),
    );
    expect(reset.statusCode, reset.body).toBe(200);
    expect(erased.code, erased.stderr).toBe(0);
    expect(await erasedOrNot(person.userId)).toEqual(erasedEverything);
  });

  it('a reset that meets the erasure holding the person waits for it, and its link is unknown', async () => {
    const person = await customerConfirmingBusiness();
    const resetToken = await resetLinkOf(person.userId);
    const [erased, reset] = await firstHoldingThenSecond(
      db(),
      'app_user',
      () => eraseOnCommandLine(person.userId),
      () => setNewPassword(resetToken),
    );
    expect(erased.code, erased.stderr).toBe(0);
    expectErrorBody(reset, 400, 'Bad Request');
    expect(await erasedOrNot(person.userId)).toEqual(erasedEverything);
  });
});
