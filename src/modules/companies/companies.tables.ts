// Invitations' names, and a wholesale company's sub-companies and their delivery addresses. Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';

export interface SubCompanyTable {
  id: Generated<number>;
  company_id: number;
  name: string;
  registry_code: string | null;
  created_at: number;
  updated_at: number;
}

export interface SubCompanyAddressTable {
  id: Generated<number>;
  sub_company_id: number;
  /** 0-based, in the order the master gave them; the first is the default. */
  position: number;
  recipient: string | null;
  street: string;
  city: string;
  postcode: string;
  country_code: string;
  phone: string | null;
}

/**
 * The names a master gave inviting someone who already had a user: what the company sees of them
 * until they accept (company-users.service.ts), never the person's own names.
 */
export interface CompanyInvitationTable {
  client_account_id: number;
  first_name: string;
  last_name: string;
  created_at: number;
}

export interface CompaniesTables {
  company_invitation: CompanyInvitationTable;
  sub_company: SubCompanyTable;
  sub_company_address: SubCompanyAddressTable;
}
