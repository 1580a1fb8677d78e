import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';
import type { PageRequest } from '../../http/paging.js';

// The SQL of company users: the client accounts of a company in a store, and the user behind each.

/** Statuses of a company's accounts that count as its users: usable, or invited and not yet confirmed. */
const MEMBER_STATUSES = ['ACTIVE', 'PENDING_CONFIRMATION'] as const;

/** The client account a token acts for, as the company rules need it. */
export function callerAccount(db: Db, clientAccountId: number) {
  return db
    .selectFrom('client_account')
    .select(['id', 'user_id', 'store_code', 'type', 'company_id', 'role', 'status'])
    .where('id', '=', clientAccountId)
    .executeTakeFirst();
}

/** The company of a client account, with the account's stored role in it; undefined for an account of no company. */
export function accountCompany(db: Db, clientAccountId: number) {
  return db
    .selectFrom('client_account')
    .innerJoin('company', 'company.id', 'client_account.company_id')
    .select(['company.name', 'client_account.role', 'client_account.type'])
    .where('client_account.id', '=', clientAccountId)
    .executeTakeFirst();
}

/**
 * Serialises the changes to one company's users on PostgreSQL (a master's erasure among them), so
 * that two masters demoting, removing or erasing at once cannot both pass the "one master stays" check.
 */
export async function lockCompany(db: Db, companyId: number): Promise<void> {
  await lockRowsOnPostgres(db, db.selectFrom('company').select('id').where('id', '=', companyId));
}

const memberColumns = [
  'client_account.id',
  'client_account.code',
  'client_account.user_id',
  'client_account.role',
  'client_account.status',
  'client_account.created_at',
  'app_user.email',
  'app_user.first_name',
  'app_user.last_name',
  'company_invitation.first_name as invited_first_name',
  'company_invitation.last_name as invited_last_name',
] as const;

function members(db: Db, scope: { companyId: number; storeCode: string }) {
  return db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .leftJoin('company_invitation', 'company_invitation.client_account_id', 'client_account.id')
    .where('client_account.company_id', '=', scope.companyId)
    .where('client_account.store_code', '=', scope.storeCode)
    .where('client_account.status', 'in', MEMBER_STATUSES);
}

export type CompanyUserRow = Awaited<ReturnType<typeof findCompanyUser>> & {};

/** One page of the company's users in the store, oldest first, and how many there are. */
export async function companyUserPage(db: Db, scope: { companyId: number; storeCode: string }, page: PageRequest) {
  const rows = await members(db, scope)
    .select(memberColumns)
    .orderBy('client_account.id')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
  const { total } = await members(db, scope)
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}

/** A user of the company in the store by their client account id; undefined for anyone else's id. */
export function findCompanyUser(db: Db, scope: { companyId: number; storeCode: string }, id: number) {
  return members(db, scope).select(memberColumns).where('client_account.id', '=', id).executeTakeFirst();
}

/** How many of the company's usable accounts in the store are masters (no employee role), leaving out one account. */
export async function countOtherActiveMasters(
  db: Db,
  scope: { companyId: number; storeCode: string },
  employeeRoles: string[],
  exceptId: number,
): Promise<number> {
  const { total } = await db
    .selectFrom('client_account')
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .where('company_id', '=', scope.companyId)
    .where('store_code', '=', scope.storeCode)
    .where('status', '=', 'ACTIVE')
    .where('role', 'not in', employeeRoles)
    .where('id', '!=', exceptId)
    .executeTakeFirstOrThrow();
  return Number(total);
}

/** The user's client accounts in a store, whatever their status, oldest first. */
export function accountsInStore(db: Db, userId: number, storeCode: string) {
  return db
    .selectFrom('client_account')
    .select(['id', 'type', 'status', 'company_id'])
    .where('user_id', '=', userId)
    .where('store_code', '=', storeCode)
    .orderBy('id')
    .execute();
}

/**
 * Gives a removed account back to the company that removed it, waiting for its person's
 * confirmation; false when it is not a removed account of that company. Never moves an account to
 * another company: what is kept by its id (orders, addresses, baskets) is the company's.
 */
export async function reattachRemovedAccount(db: Db, id: number, companyId: number, role: string): Promise<boolean> {
  const result = await db
    .updateTable('client_account')
    .set({ role, status: 'PENDING_CONFIRMATION' })
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('status', '=', 'REMOVED')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function setAccountRole(db: Db, id: number, role: string): Promise<void> {
  await db.updateTable('client_account').set({ role }).where('id', '=', id).execute();
}

/** Whether the user has a client account that is not this company's (another company's, a retail one, any store). */
export async function hasAccountOutsideCompany(db: Db, userId: number, companyId: number): Promise<boolean> {
  const row = await db
    .selectFrom('client_account')
    .select('id')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('company_id', 'is', null), eb('company_id', '!=', companyId)]))
    .where('status', '!=', 'REMOVED')
    .executeTakeFirst();
  return row !== undefined;
}

/** Keeps the names a master gave inviting someone who already had a user (replacing an earlier invitation's of the same account). */
export async function keepInvitationNames(db: Db, accountId: number, names: { first_name: string; last_name: string }, now: number) {
  await db
    .insertInto('company_invitation')
    .values({ client_account_id: accountId, ...names, created_at: now })
    .onConflict((conflict) => conflict.column('client_account_id').doUpdateSet({ ...names, created_at: now }))
    .execute();
}

export async function renameInvitation(db: Db, accountId: number, names: { first_name?: string; last_name?: string }): Promise<void> {
  await db.updateTable('company_invitation').set(names).where('client_account_id', '=', accountId).execute();
}

/** The invitations' names of these accounts go (their person's data is erased). */
export async function forgetInvitationNames(db: Db, accountIds: number[]): Promise<void> {
  if (accountIds.length === 0) return;
  await db.deleteFrom('company_invitation').where('client_account_id', 'in', accountIds).execute();
}

export async function renameUser(db: Db, userId: number, names: { first_name?: string; last_name?: string }, now: number): Promise<void> {
  await db
    .updateTable('app_user')
    .set({ ...names, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

/** The invitation's link mailed for the account stops working (one is mailed again). */
export async function forgetInvitationLink(db: Db, accountId: number): Promise<void> {
  await db.deleteFrom('invitation_token').where('client_account_id', '=', accountId).execute();
}

/**
 * Takes an account out of its company for good: REMOVED (kept for the orders made with it), its
 * sessions ended, and an invitation or verification link still pending for it made useless.
 */
export async function removeAccount(db: Db, id: number, userId: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('client_account')
    .set({ status: 'REMOVED' })
    .where('id', '=', id)
    .where('status', 'in', MEMBER_STATUSES)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  await db.deleteFrom('access_token').where('client_account_id', '=', id).execute();
  await forgetInvitationLink(db, id);
  await db
    .updateTable('app_user')
    .set({ verification_token_hash: null, verification_expires_at: null, verification_client_account_id: null, updated_at: now })
    .where('id', '=', userId)
    .where('verification_client_account_id', '=', id)
    .execute();
  return true;
}
