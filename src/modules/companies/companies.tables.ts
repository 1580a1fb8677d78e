// A wholesale company's sub-companies and their delivery addresses. Conventions of every table: src/db/schema.ts.
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

export interface CompaniesTables {
  sub_company: SubCompanyTable;
  sub_company_address: SubCompanyAddressTable;
}
