import type { AccountType } from '../../db/schema.js';
import type { CompanyRole } from './companies.schemas.js';

// How a company user's role is kept in client_account.role: the domain's names (company master,
// wholesale master, company employee, wholesale employee), by the kind of the company's accounts.

export type CompanyKind = Extract<AccountType, 'BUSINESS' | 'WHOLESALE'>;

const STORED: Record<CompanyKind, Record<CompanyRole, string>> = {
  BUSINESS: { MASTER: 'company_master', EMPLOYEE: 'company_employee' },
  WHOLESALE: { MASTER: 'wholesale_master', EMPLOYEE: 'wholesale_employee' },
};

export function isCompanyKind(type: AccountType): type is CompanyKind {
  return type === 'BUSINESS' || type === 'WHOLESALE';
}

export function storedRole(kind: CompanyKind, role: CompanyRole): string {
  return STORED[kind][role];
}

/**
 * The wire role of a stored one. Only the two employee names are EMPLOYEE: every company account
 * made before employees existed is its company's master (registration makes only masters).
 */
export function wireRole(stored: string): CompanyRole {
  return stored === STORED.BUSINESS.EMPLOYEE || stored === STORED.WHOLESALE.EMPLOYEE ? 'EMPLOYEE' : 'MASTER';
}

/** The stored employee roles of both kinds: every other role of a company account is a master's. */
export const EMPLOYEE_ROLES = [STORED.BUSINESS.EMPLOYEE, STORED.WHOLESALE.EMPLOYEE];
