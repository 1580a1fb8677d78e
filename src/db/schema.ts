// Table types for Kysely. Conventions, the same on both engines:
// - timestamps are Unix milliseconds (UTC) in int8 columns: one representation, compared and
//   ordered as numbers, turned into RFC 3339 strings only at the edge (see db/time.ts);
// - booleans are `boolean` columns; SQLite hands them back as 0/1, so read them with Boolean();
// - internal ids are integers; the outside world names things by their public codes.
import type { ColumnType, Generated } from 'kysely';

/** A boolean column: written as boolean, read as boolean (PostgreSQL) or 0/1 (SQLite). */
export type BooleanColumn = ColumnType<boolean | number, boolean, boolean>;

export interface WebStoreTable {
  code: string;
  name: string;
  is_active: BooleanColumn;
  is_locked: BooleanColumn;
  /** When a lock is expected to end (Unix ms), for Retry-After; null when not known. */
  locked_until: number | null;
  /** Comma-separated language codes, in display order. */
  available_languages: string;
  default_language: string;
  frontend_url: string;
  currency: string;
  updated_at: number;
}

export interface CountryTable {
  code: string;
  position: number;
}

export interface CountryNameTable {
  country_code: string;
  language: string;
  name: string;
}

export type JobStatus = 'pending' | 'running' | 'done' | 'dead';

export interface JobTable {
  id: Generated<number>;
  type: string;
  /** JSON text. Never holds a secret in the clear: a mail that carries a token mints it when sent. */
  payload: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  /** When the job is due (Unix ms); moved forward by the backoff after a failed attempt. */
  run_at: number;
  /** While running: when the claim expires and another worker may take the job over. */
  locked_until: number | null;
  last_error: string | null;
  /** How a finished job ended, e.g. `skipped` when its target is not configured. */
  result: string | null;
  created_at: number;
  updated_at: number;
}

export type AccountType = 'SIMPLE' | 'BUSINESS' | 'WHOLESALE';

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
  created_at: number;
}

export type WholesaleRequestStatus = 'PENDING' | 'APPROVED' | 'REJECTED';

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
  expires_at: number;
  /** `password`, `google`, `facebook` or `apple`; null for tokens from before it was recorded. */
  login_method: string | null;
  native_form: BooleanColumn | null;
}

export type SocialProvider = 'google' | 'facebook' | 'apple';

export interface OauthTransactionTable {
  /** SHA-256 of the `state` sent to the provider. */
  state_hash: string;
  provider: SocialProvider;
  /** PKCE verifier: needed in the clear to redeem the code; lives ten minutes and is deleted on use. */
  code_verifier: string;
  nonce: string;
  store_code: string;
  language: string;
  return_url: string | null;
  /** Set when a logged-in user started the flow to link the identity to their account. */
  link_user_id: number | null;
  created_at: number;
  expires_at: number;
}

export interface SocialIdentityTable {
  id: Generated<number>;
  provider: SocialProvider;
  subject: string;
  user_id: number;
  email: string | null;
  created_at: number;
}

export interface AuthRecordTable {
  /** SHA-256 of the authId handed to the client. */
  id_hash: string;
  provider: SocialProvider;
  subject: string;
  email: string | null;
  /** Whether the provider vouches for the email (Google, Apple); never taken from Facebook. */
  email_verified: BooleanColumn;
  first_name: string | null;
  last_name: string | null;
  store_code: string;
  language: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface RateLimitTable {
  key: string;
  window_start: number;
  hits: number;
}

export interface Database {
  web_store: WebStoreTable;
  country: CountryTable;
  country_name: CountryNameTable;
  job: JobTable;
  app_user: AppUserTable;
  company: CompanyTable;
  client_account: ClientAccountTable;
  wholesale_request: WholesaleRequestTable;
  access_token: AccessTokenTable;
  rate_limit: RateLimitTable;
  oauth_transaction: OauthTransactionTable;
  social_identity: SocialIdentityTable;
  auth_record: AuthRecordTable;
}

export type { Generated };
