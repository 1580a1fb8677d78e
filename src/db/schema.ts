// Table types for Kysely. Conventions, the same on both engines:
// - timestamps are Unix milliseconds (UTC) in int8 columns: one representation, compared and
//   ordered as numbers, turned into RFC 3339 strings only at the edge (see db/time.ts);
// - booleans are `boolean` columns; SQLite hands them back as 0/1, so read them with Boolean();
// - internal ids are integers; the outside world names things by their public codes.
import type { ColumnType, Generated } from 'kysely';
import type { ProductTypeCode } from './product-types.js';

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
  guest_discount_percent: ColumnType<number, number | undefined, number>;
  logged_in_discount_percent: ColumnType<number, number | undefined, number>;
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

// ---- Catalogue (migration 0800) ----

// The type list is src/db/product-types.ts, a value the schemas and the import derive from.
export type { ProductTypeCode };
export type Availability = 'AVAILABLE' | 'AVAILABLE_IN_SHOP' | 'TEMPORARILY_OUT_OF_STOCK' | 'PERMANENTLY_OUT_OF_STOCK' | 'COMING_SOON';
export type DeliveryTime = 'INSTANT_DOWNLOAD' | 'DAYS_1_7' | 'WEEKS_2_4' | 'PREORDER';
export type PersonRole = 'AUTHOR' | 'ILLUSTRATOR' | 'TRANSLATOR' | 'READER' | 'EDITOR' | 'COMPILER';
export type AssetKind = 'IMAGE' | 'SAMPLE' | 'AUDIO_SAMPLE' | 'VIDEO';
export type SessionActionType = 'VIEW' | 'ADD_TO_WISHLIST' | 'ADD_TO_BASKET';

export interface BindingTable {
  code: string;
  position: number;
}

export interface BindingNameTable {
  binding_code: string;
  language: string;
  name: string;
}

export interface PublisherTable {
  id: Generated<number>;
  code: string;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
}

export interface SeriesTable {
  id: Generated<number>;
  code: string;
  name: string;
  publisher_id: number | null;
  description: string | null;
  created_at: number;
  updated_at: number;
}

export interface PersonTable {
  id: Generated<number>;
  code: string;
  name: string;
  description: string | null;
  image_url: string | null;
  created_at: number;
  updated_at: number;
}

export interface ProductTable {
  id: Generated<number>;
  /** The back office's product code; imports upsert by it. */
  code: string;
  /** EAN-13 / ISBN-13 digits, no hyphens. */
  ean: string | null;
  type: ProductTypeCode;
  name: string;
  /** Alternative names (search tags), JSON array of strings. */
  alt_names: ColumnType<string, string | undefined, string>;
  description: string | null;
  /** Language of the content, upper-case ISO 639-1 (ET, EN, RU, DE, ...); null when not a text. */
  language: string | null;
  binding_code: string | null;
  year: number | null;
  pages: number | null;
  width_mm: number | null;
  height_mm: number | null;
  depth_mm: number | null;
  weight_g: number | null;
  publisher_id: number | null;
  series_id: number | null;
  series_number: number | null;
  /** For an e-book: its physical edition. */
  physical_book_id: number | null;
  /** VAT included. */
  shop_price_cents: number;
  /** The publisher's list price, VAT included; null or 0 when none. */
  original_price_cents: number | null;
  /** VAT excluded; null or 0 when none (the shop price less VAT applies). */
  wholesale_price_cents: number | null;
  vat_rate_percent: number;
  /** Shop price against the list price, whole percent; kept by the writers for the discount sort. */
  discount_percent: ColumnType<number, number | undefined, number>;
  availability: Availability;
  delivery_time: DeliveryTime | null;
  /** Stock that can be sold on the web: the sum over shops with web_stock. Kept by the stock import. */
  web_stock: ColumnType<number, number | undefined, number>;
  /** The first IMAGE asset's URL, kept by the writers. */
  image_url: string | null;
  /** False once the back office no longer sells it (dropped from the feed): then shown nowhere. */
  is_active: BooleanColumn;
  /** Hidden from guests and retail customers. */
  hidden_web: BooleanColumn;
  /** Hidden from business and wholesale customers. */
  hidden_business: BooleanColumn;
  /** Units sold (recent period), from the back office: "top" lists and the sales sort. */
  sales_count: ColumnType<number, number | undefined, number>;
  rating_sum: ColumnType<number, number | undefined, number>;
  rating_count: ColumnType<number, number | undefined, number>;
  /** Publication date (Unix ms): "newest" and "new products". */
  released_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ProductAltCodeTable {
  product_id: number;
  code: string;
}

export interface ProductStoreTable {
  product_id: number;
  store_code: string;
}

export interface ProductPersonTable {
  product_id: number;
  person_id: number;
  role: PersonRole;
  position: number;
}

export interface ProductAssetTable {
  id: Generated<number>;
  product_id: number;
  kind: AssetKind;
  url: string;
  mime_type: string | null;
  width: number | null;
  height: number | null;
  position: number;
}

export interface ProductRelatedTable {
  product_id: number;
  related_product_id: number;
  position: number;
}

export interface CategoryTable {
  id: Generated<number>;
  code: string;
  store_code: string;
  parent_id: number | null;
  /** Depth in the tree, 1 at the root. */
  level: number;
  position: number;
  is_active: BooleanColumn;
  created_at: number;
  updated_at: number;
}

export interface CategoryNameTable {
  category_id: number;
  language: string;
  name: string;
  description: string | null;
}

export interface ProductCategoryTable {
  product_id: number;
  category_id: number;
}

export interface ShopTable {
  id: Generated<number>;
  code: string;
  city: string;
  address: string | null;
  phone: string | null;
  email: string | null;
  /** Whether this shop's stock counts as web stock. */
  web_stock: BooleanColumn;
  is_active: BooleanColumn;
  position: number;
  created_at: number;
  updated_at: number;
}

export interface ShopNameTable {
  shop_id: number;
  language: string;
  name: string;
  opening_hours: string | null;
}

export interface ShopStockTable {
  product_id: number;
  shop_id: number;
  quantity: number;
  updated_at: number;
}

export interface CampaignTable {
  id: Generated<number>;
  code: string;
  store_code: string;
  /** Unix ms, inclusive; null: open. */
  valid_from: number | null;
  /** Unix ms, exclusive; null: open. */
  valid_to: number | null;
  is_active: BooleanColumn;
  position: number;
  image_url: string | null;
  created_at: number;
  updated_at: number;
}

export interface CampaignNameTable {
  campaign_id: number;
  language: string;
  name: string;
  description: string | null;
}

export interface CampaignPriceTable {
  campaign_id: number;
  product_id: number;
  customer_kind: 'RETAIL' | 'BUSINESS';
  price_cents: number;
  position: number;
}

export interface ProductListTable {
  id: Generated<number>;
  code: string;
  store_code: string;
  is_active: BooleanColumn;
  position: number;
  created_at: number;
  updated_at: number;
}

export interface ProductListNameTable {
  product_list_id: number;
  language: string;
  name: string;
}

export interface ProductListItemTable {
  product_list_id: number;
  product_id: number;
  position: number;
}

export interface CompanyProductPriceTable {
  company_id: number;
  product_id: number;
  /** VAT excluded. */
  price_cents: number;
}

export interface ProductCommentTable {
  id: Generated<number>;
  product_id: number;
  client_account_id: number;
  author_name: string;
  body: string;
  language: string;
  created_at: number;
}

export interface ProductRatingTable {
  product_id: number;
  client_account_id: number;
  /** 1 to 5. */
  rating: number;
  created_at: number;
  updated_at: number;
}

export interface QuoteTable {
  id: Generated<number>;
  code: string;
  product_id: number | null;
  person_id: number | null;
  language: string;
  text: string;
  created_at: number;
}

export interface ClientCategoryPreferenceTable {
  client_account_id: number;
  category_id: number;
  created_at: number;
}

export interface SessionActionTable {
  id: Generated<number>;
  session_id: string;
  store_code: string;
  product_code: string;
  /** Null for a guest. */
  client_code: string | null;
  action_type: SessionActionType;
  created_at: number;
}

export interface SalesHistoryTable {
  id: Generated<number>;
  order_code: string;
  client_code: string;
  client_type: 'PYSIKLIENT' | 'ETTEVOTE';
  source_type: 'ONLINE' | 'OFFLINE';
  city: string;
  session_id: string | null;
  delivery_method: string;
  shop_code: string | null;
  /** When the row reached us. */
  created_at: number;
  /** When the ERP created the order; may arrive later. */
  created_nav: number | null;
}

export interface SalesHistoryItemTable {
  sales_history_id: number;
  position: number;
  product_code: string;
}

export interface ApiKeyTable {
  id: Generated<number>;
  name: string;
  /** SHA-256 of the key, hex. */
  key_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

// ---- Data export (migration 0900) ----

export interface ExportUserTable {
  id: Generated<number>;
  name: string;
  /** argon2id PHC string of the generated password. */
  password_hash: string;
  /** JSON array of CIDR blocks; empty: any address. */
  allowed_cidrs: ColumnType<string, string | undefined, string>;
  disabled_at: number | null;
  created_at: number;
  updated_at: number;
}

// ---- Search index (migration 1000; the text index tables are engine-specific, see src/modules/search) ----

export interface SearchStateTable {
  /** Always 1: one row. */
  id: number;
  status: 'ready' | 'building';
  /** When the status last changed, or a build last made progress (Unix ms). */
  changed_at: number;
}

/** Products, persons, publishers and series whose text changed and is not yet in the index. */
export interface SearchPendingTable {
  kind: 'product' | 'person' | 'publisher' | 'series';
  entity_id: number;
}

/** The product columns search filters and sorts on, kept by triggers; `stores`: store codes separated by spaces. */
export interface SearchProductTable {
  id: number;
  stores: string;
  is_active: BooleanColumn;
  hidden_web: BooleanColumn;
  hidden_business: BooleanColumn;
  type: ProductTypeCode;
  language: string | null;
  binding_code: string | null;
  publisher_id: number | null;
  series_id: number | null;
  availability: Availability;
  delivery_time: DeliveryTime | null;
  shop_price_cents: number;
  original_price_cents: number | null;
  wholesale_price_cents: number | null;
  vat_rate_percent: number;
  discount_percent: number;
  sales_count: number;
  released_at: number | null;
  name: string;
}

// ---- Import lock (migration 1100) ----

/** A running import of one kind (see src/modules/admin/import-lock.ts). */
export interface ImportLockTable {
  kind: string;
  /** Random per run; only the holder renews or removes the row. */
  owner: string;
  started_at: number;
  /** Renewed while the import runs; past it, another process may take the lock over. */
  expires_at: number;
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
  binding: BindingTable;
  binding_name: BindingNameTable;
  publisher: PublisherTable;
  series: SeriesTable;
  person: PersonTable;
  product: ProductTable;
  product_alt_code: ProductAltCodeTable;
  product_store: ProductStoreTable;
  product_person: ProductPersonTable;
  product_asset: ProductAssetTable;
  product_related: ProductRelatedTable;
  category: CategoryTable;
  category_name: CategoryNameTable;
  product_category: ProductCategoryTable;
  shop: ShopTable;
  shop_name: ShopNameTable;
  shop_stock: ShopStockTable;
  campaign: CampaignTable;
  campaign_name: CampaignNameTable;
  campaign_price: CampaignPriceTable;
  product_list: ProductListTable;
  product_list_name: ProductListNameTable;
  product_list_item: ProductListItemTable;
  company_product_price: CompanyProductPriceTable;
  product_comment: ProductCommentTable;
  product_rating: ProductRatingTable;
  quote: QuoteTable;
  client_category_preference: ClientCategoryPreferenceTable;
  session_action: SessionActionTable;
  sales_history: SalesHistoryTable;
  sales_history_item: SalesHistoryItemTable;
  api_key: ApiKeyTable;
  export_user: ExportUserTable;
  search_state: SearchStateTable;
  search_pending: SearchPendingTable;
  search_product: SearchProductTable;
  import_lock: ImportLockTable;
}

export type { Generated };
