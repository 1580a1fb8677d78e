import type { Db } from '../../db/database.js';
import { isPostgres } from '../../db/row-lock.js';
import { forbidden } from '../../infra/domain-error.js';
import { accountCompany, callerAccount, lockCompany } from './company-users.repository.js';
import { isCompanyKind, wireRole, type CompanyKind } from './company-roles.js';
import type { CompanyRole } from './companies.schemas.js';

/** A master user of a company acting in a store: everything they manage is looked up within `companyId` and `storeCode`. */
export interface CompanyMaster {
  clientAccountId: number;
  userId: number;
  companyId: number;
  kind: CompanyKind;
  storeCode: string;
}

/**
 * The caller as a master of their company, read afresh on every request (a demotion or removal
 * takes effect at once); 403 for a retail account and for an employee.
 */
export async function companyMaster(db: Db, principal: { clientAccountId: number }): Promise<CompanyMaster> {
  const account = await callerAccount(db, principal.clientAccountId);
  if (!account || account.status !== 'ACTIVE' || !isCompanyKind(account.type) || account.company_id === null) {
    throw forbidden('companies.companyAccountsOnly');
  }
  if (wireRole(account.role) !== 'MASTER') throw forbidden('companies.mastersOnly');
  return {
    clientAccountId: Number(account.id),
    userId: Number(account.user_id),
    companyId: Number(account.company_id),
    kind: account.type,
    storeCode: account.store_code,
  };
}

/**
 * The company a client account acts for and its role there (GET /user/me), null for a retail
 * account: a front-end shows a master the company's users, and an employee not, without having to
 * try GET /company-user for its 403.
 */
export async function companyOfAccount(db: Db, clientAccountId: number): Promise<{ name: string; role: CompanyRole } | null> {
  const row = await accountCompany(db, clientAccountId);
  return row === undefined || !isCompanyKind(row.type) ? null : { name: row.name, role: wireRole(row.role) };
}

/** The caller as a master of a wholesale company (only those have sub-companies); 403 otherwise. */
export async function wholesaleMaster(db: Db, principal: { clientAccountId: number }): Promise<CompanyMaster> {
  const account = await callerAccount(db, principal.clientAccountId);
  if (account && account.type === 'BUSINESS') throw forbidden('companies.wholesaleOnly');
  return companyMaster(db, principal);
}

/**
 * For a change to the company: the caller as `read` answers them (companyMaster, wholesaleMaster),
 * read again under the company's lock (lockCompany, held until the transaction ends), which every
 * change to its users takes. A demotion or removal of the caller that commits meanwhile is then a
 * 403, not the role they had before it.
 */
export async function lockedMaster(
  trx: Db,
  principal: { clientAccountId: number },
  read: (db: Db, principal: { clientAccountId: number }) => Promise<CompanyMaster>,
): Promise<CompanyMaster> {
  const first = await read(trx, principal);
  // A SQLite write transaction is serial from its start (lockCompany takes nothing): what was read stays true.
  if (!isPostgres(trx)) return first;
  const { companyId } = first;
  await lockCompany(trx, companyId);
  const master = await read(trx, principal);
  // An active account keeps its company; one in another now was removed meanwhile (with its sessions).
  if (master.companyId !== companyId) throw forbidden('companies.companyAccountsOnly');
  return master;
}
