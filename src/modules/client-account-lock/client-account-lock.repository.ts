import type { Db } from '../../db/database.js';
import { isPostgres, lockedOnPostgres } from '../../db/row-lock.js';
import { ENDED_ACCOUNT_STATUSES } from '../../http/auth.js';
import { unauthenticated } from '../../infra/domain-error.js';

// The lock every writer of a client's personal data takes first, and the erasure too (modules/gdpr):
// the client account's row. The writer's caller was resolved from its token before the transaction;
// an erasure that commits meanwhile (it deletes the tokens and marks the account ERASED) is found here,
// under the lock, and refused as the deleted token would be. Without it, an order, an address, a
// wishlist item or a basket written while the erasure's transaction was open outlived the erasure.
// A company user's removal (REMOVED, modules/companies) updates the same row and ends the same
// tokens, so it is refused the same way: an employee's order, address or basket line that waited
// for their removal was written after it, under the company, by someone no longer in it.
//
// `no key update` (PostgreSQL; SQLite's write transactions are serial): the rows' status is all that
// changes, so inserts that reference the account (a login's token) do not wait for it. Taken before
// any other row of the client (basket, order, card), in every writer, so that no two of them deadlock;
// only a company's lock comes before it (lockAccountsForErasure).

/**
 * Locks the client account for a write of its personal data; 401 when it was erased or removed from
 * its company (or is gone) since the caller's token was read, as the token check answers after.
 */
export async function lockLiveClientAccount(trx: Db, clientAccountId: number): Promise<void> {
  if (!(await lockClientAccountIfLive(trx, clientAccountId))) throw unauthenticated('auth.unauthorized');
}

/**
 * The same lock for a writer that has no caller to refuse (a worker's scan): false, and nothing to
 * write, when the account was erased or removed from its company (or is gone) since the scan read it.
 */
export async function lockClientAccountIfLive(trx: Db, clientAccountId: number): Promise<boolean> {
  const query = trx.selectFrom('client_account').select('status').where('id', '=', clientAccountId);
  const account = await lockedOnPostgres(trx, query, 'no key update').executeTakeFirst();
  return account !== undefined && !(ENDED_ACCOUNT_STATUSES as readonly string[]).includes(account.status);
}

/**
 * The erasure's first locks (its caller's session, the user's row and the rest come after them): the
 * companies of the user's accounts, then the accounts, each in id order. The companies come first
 * because a change to a company's users takes the company's lock and then its members' accounts
 * (modules/companies): taken the other way round, an employee's erasure and their master's removal of
 * them at once deadlocked. What adds an account to the user of an email (a registration, an import
 * line, an approval, a login in the other store, a social sign-in) takes them too (findPersonByEmail, openSession,
 * modules/accounts), and so do an email verification and a password reset, which write the user's row and end sessions,
 * and a profile change (modules/profile), which stamps every account of the user for the data export.
 * There is always an account to lock: every user is made with one in the same transaction (a
 * registration, an invitation, an approval, a social sign-up, the import), and no account row is ever
 * deleted (a removed, rejected or erased one keeps its row, and is locked like any other).
 */
export async function lockAccountsForErasure(trx: Db, userId: number): Promise<void> {
  if (!isPostgres(trx)) return;
  const companyIds = trx
    .selectFrom('client_account')
    .select('company_id')
    .where('user_id', '=', userId)
    .where('company_id', 'is not', null);
  await trx.selectFrom('company').select('id').where('id', 'in', companyIds).orderBy('id').forUpdate().execute();
  await lockClientAccountsOfUser(trx, userId);
}

/**
 * The second half of lockAccountsForErasure: the user's client accounts in id order (PostgreSQL),
 * for a caller that holds a company's lock already (a company's invitation), which takes no other
 * company's: the erasure waits for it at its company locks or holds all of them and the accounts.
 */
export async function lockClientAccountsOfUser(trx: Db, userId: number): Promise<void> {
  if (!isPostgres(trx)) return;
  await trx.selectFrom('client_account').select('id').where('user_id', '=', userId).orderBy('id').forNoKeyUpdate().execute();
}

/**
 * For a write that names clients by code and never waits for them (session actions, written in
 * batches after the request that recorded them answered): share-locks their client accounts
 * (PostgreSQL, in id order) and answers the codes of those not erased. Share, so that an erasure
 * (lockAccountsForErasure) waits for the write and then erases its rows, or the write waits for the
 * erasure and leaves its clients out; writers of different clients never wait for each other.
 */
export async function lockUnerasedClientCodes(trx: Db, codes: readonly string[]): Promise<Set<string>> {
  const accounts = await shareLockClientCodes(trx, codes);
  return new Set(accounts.filter((account) => account.status !== 'ERASED').map((account) => account.code));
}

/**
 * The same share lock for a write that keeps rows of codes that need not be client accounts at all
 * (the back office's sales history names its own shop customers too): answers the codes of those
 * erased, whose rows must be written without what the erasure took out.
 */
export async function lockErasedClientCodes(trx: Db, codes: readonly string[]): Promise<Set<string>> {
  const accounts = await shareLockClientCodes(trx, codes);
  return new Set(accounts.filter((account) => account.status === 'ERASED').map((account) => account.code));
}

async function shareLockClientCodes(trx: Db, codes: readonly string[]) {
  if (codes.length === 0) return [];
  const query = trx.selectFrom('client_account').select(['code', 'status']).where('code', 'in', codes).orderBy('id');
  return (isPostgres(trx) ? query.forShare() : query).execute();
}
