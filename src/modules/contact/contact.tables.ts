// The store's office contact data (migration 1200). Conventions of every table: src/db/schema.ts.

export interface StoreContactTable {
  store_code: string;
  company_name: string | null;
  /** Where contact-form messages are mailed; null: BACKOFFICE_EMAILS. */
  email: string | null;
  phone: string | null;
  address: string | null;
  updated_at: number;
}

export interface ContactTables {
  store_contact: StoreContactTable;
}
