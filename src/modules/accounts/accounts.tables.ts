// Users, their client accounts (one per store), companies, wholesale requests and access tokens.
// Conventions of every table: src/db/schema.ts.
import type { ColumnType, Generated } from 'kysely';
import type { AccountType, BooleanColumn } from '../../db/schema.js';

export interface AppUserTable {
  id: Generated<number>;
  /** Trimmed and lower-cased; unique. */
  email: string;
  /** argon2id PHC string, `legacy-sha512$<hex>` for imported users until their first login, or null. */
  password_hash: string | null;
  email_verified: BooleanColumn;
  activated_at: number | null;
  verification_token_hash: string | null;
  verification_expires_at: number | null;
  /** The client account a verification activates: the activation context. */
  verification_client_account_id: number | null;
  reset_token_hash: string | null;
  reset_expires_at: number | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  /** YYYY-MM-DD */
  birthday: string | null;
  gender: string | null;
  newsletter: BooleanColumn;
  terms_accepted_at: number | null;
  /** Language of the mails to this user. */
  language: string;
  created_at: number;
  updated_at: number;
}

export interface CompanyTable {
  id: Generated<number>;
  name: string;
  registry_code: string;
  vat_number: string | null;
  street: string;
  city: string;
  postcode: string;
  country_code: string;
  /** Business discount agreed with the back office, percent. */
  discount_percent: ColumnType<number, number | undefined, number>;
  created_at: number;
}

export interface ClientAccountTable {
  id: Generated<number>;
  /** Public client code, W followed by digits. */
  code: string;
  user_id: number;
  store_code: string;
  type: AccountType;
  company_id: number | null;
  role: string;
  /** A retail client's own discount, percent. */
  discount_percent: ColumnType<number, number | undefined, number>;
  /** Only an ACTIVE account can be logged in to (see ClientAccountStatus). */
  status: ColumnType<ClientAccountStatus, ClientAccountStatus | undefined, ClientAccountStatus>;
  created_at: number;
  /**
   * When the account's data-export item last changed: its user's gender or birthday, the categories
   * it follows (touchExportedAccounts); the export's updatedFrom finds accounts by it. Every insert
   * of the service sets it to the creation time (accountValues); one without it (a process of the
   * release before 1042, the benches' and tests' rows) gets created_at too (a trigger, migration
   * 2026_12_11_1600), hence optional in the type.
   */
  updated_at: ColumnType<number, number | undefined, number>;
}

/**
 * A business or wholesale account a registration form attached to someone's email waits for the
 * back office (PENDING_APPROVAL, where the store wants it) and then for that person to follow the
 * link mailed to them (PENDING_CONFIRMATION); REJECTED when the back office declined it. An
 * employee's account (modules/companies) waits in PENDING_CONFIRMATION too, and is REMOVED when a
 * master of the company removes the employee: kept for the orders made with it, and given back only
 * to that company (an invitation of the same company); never usable otherwise.
 * ERASED: its person asked for their data to be erased (modules/gdpr); kept for the orders, never usable again.
 * A user holds at most one account of a type in a store that is neither REMOVED nor ERASED (the
 * partial unique index client_account_live_uq): another company's invitation, the person's own
 * business registration or an approval of their wholesale request makes a new one beside the
 * removed one, which keeps the first company's orders, addresses and baskets.
 */
export type ClientAccountStatus = 'ACTIVE' | 'PENDING_APPROVAL' | 'PENDING_CONFIRMATION' | 'REJECTED' | 'REMOVED' | 'ERASED';

/**
 * A wholesale application waits (PENDING) for the back office to approve or reject it. ERASED: its
 * contact's data was erased while it waited (modules/gdpr), which empties it (the email a placeholder,
 * the form `{}`) and closes it, so it is no longer listed and nothing is left to decide on; decided_at
 * is when it was erased. One decided before stays as decided, emptied alike.
 */
export type WholesaleRequestStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'ERASED';

export interface WholesaleRequestTable {
  id: Generated<number>;
  store_code: string;
  email: string;
  company_name: string;
  /** The accepted registration form, JSON. */
  form: string;
  language: string;
  status: WholesaleRequestStatus;
  client_account_id: number | null;
  created_at: number;
  decided_at: number | null;
}

export interface AccessTokenTable {
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string;
  user_id: number;
  client_account_id: number;
  store_code: string;
  role: AccountType;
  created_at: number;
  /** When its holder last proved who they are (a token re-issued from another keeps its time); null: created_at. */
  signed_in_at: number | null;
  expires_at: number;
  /** `password`, `google`, `facebook` or `apple`; null for tokens from before it was recorded. */
  login_method: string | null;
  native_form: BooleanColumn | null;
}

/**
 * The link a company's invitation mailed (modules/companies), one per invited account: apart from the
 * user's verification slot, so that a retail registration's link and an invitation's never replace
 * each other. Minted when the mail is sent; only its SHA-256 is kept. Gone once followed, and with a
 * confirmed email change, the person's erasure or the company's withdrawal of the invitation.
 */
export interface InvitationTokenTable {
  client_account_id: number;
  token_hash: string;
  expires_at: number;
  created_at: number;
}

export interface AccountsTables {
  app_user: AppUserTable;
  invitation_token: InvitationTokenTable;
  company: CompanyTable;
  client_account: ClientAccountTable;
  wholesale_request: WholesaleRequestTable;
  access_token: AccessTokenTable;
}
