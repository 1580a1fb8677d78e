import type { Db } from '../../db/database.js';
import { conflict } from '../../infra/domain-error.js';
import type { PersonalDataPart, PersonalDataSubject } from '../../infra/personal-data.js';
import { EMPLOYEE_ROLES, wireRole } from './company-roles.js';
import { forgetInvitationNames, lockCompany } from './company-users.repository.js';

// Company memberships: which company each business or wholesale account belongs to, in which
// role. The company itself is the business's data, not the person's, and stays. A company must
// keep a master while it has other users: its last master cannot erase themselves until another
// user is made master (409); a master alone in the company can (the company is left without users).

async function exportMemberships(db: Db, subject: PersonalDataSubject) {
  const members = subject.accounts.filter((account) => account.companyId !== null);
  if (members.length === 0) return [];
  const companies = await db
    .selectFrom('company')
    .select(['id', 'name', 'registry_code', 'vat_number'])
    .where(
      'id',
      'in',
      members.map((account) => account.companyId!),
    )
    .execute();
  const byId = new Map(companies.map((company) => [Number(company.id), company]));
  const invitations = await db
    .selectFrom('company_invitation')
    .select(['client_account_id', 'first_name', 'last_name'])
    .where(
      'client_account_id',
      'in',
      members.map((account) => account.id),
    )
    .execute();
  const invitedAs = new Map(
    invitations.map((row) => [Number(row.client_account_id), { firstName: row.first_name, lastName: row.last_name }]),
  );
  return members.map((account) => {
    const company = byId.get(account.companyId!);
    return {
      clientCode: account.code,
      store: account.storeCode,
      company: company ? { name: company.name, registryCode: company.registry_code, vatNumber: company.vat_number } : null,
      role: wireRole(account.role),
      status: account.status,
      // The names the company gave when it invited them, where it did so knowing their address already.
      invitedAs: invitedAs.get(account.id) ?? null,
    };
  });
}

async function refuseLastMaster(trx: Db, subject: PersonalDataSubject) {
  const ownIds = subject.accounts.map((account) => account.id);
  // Under the lock every change to a company's users takes: two masters leaving at once, or a
  // master leaving while removing the other, would each count the other as the master who stays.
  // In id order, so two erasures sharing companies do not deadlock.
  const companyIds = [...new Set(subject.accounts.flatMap((account) => (account.companyId === null ? [] : [account.companyId])))];
  for (const companyId of companyIds.sort((a, b) => a - b)) await lockCompany(trx, companyId);
  for (const account of subject.accounts) {
    if (account.companyId === null || account.status !== 'ACTIVE' || EMPLOYEE_ROLES.includes(account.role)) continue;
    // The company's members in that store as company-users.repository counts them.
    const others = await trx
      .selectFrom('client_account')
      .select(['role', 'status'])
      .where('company_id', '=', account.companyId)
      .where('store_code', '=', account.storeCode)
      .where('id', 'not in', ownIds)
      .where('status', 'in', ['ACTIVE', 'PENDING_CONFIRMATION'])
      .execute();
    const anotherMaster = others.some((other) => other.status === 'ACTIVE' && !EMPLOYEE_ROLES.includes(other.role));
    if (others.length > 0 && !anotherMaster) throw conflict('gdpr.lastMaster');
  }
}

/**
 * The companies module's part of "your data". Membership ends with the account (marked erased by
 * accounts); the names a master gave the person's invitations go.
 */
export const companiesPersonalData: PersonalDataPart = {
  name: 'companyMemberships',
  export: exportMemberships,
  refuseErasure: refuseLastMaster,
  erase: (trx, subject) =>
    forgetInvitationNames(
      trx,
      subject.accounts.map((account) => account.id),
    ),
};
