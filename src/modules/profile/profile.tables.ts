// The profile module's tables (migration 2026_11_24_0200_create_profile). Conventions of every
// table: src/db/schema.ts. The profile fields themselves live on app_user (modules/accounts).
import type { Generated } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';

export type MarketingConsent = 'EMAIL' | 'SMS' | 'PERSONALISATION';

/**
 * One change of a marketing consent, the person's record of it: the current state is a user's newest
 * row per consent (per consent and store for EMAIL). Written only by the newsletter's
 * insertConsentEvent: the EMAIL ones of every consent the newsletter records (its links, a
 * registration's tick, the profile's email switch) and the profile's switch of SMS and PERSONALISATION.
 */
export interface MarketingConsentEventTable {
  id: Generated<number>;
  user_id: number;
  consent: MarketingConsent;
  granted: BooleanColumn;
  /**
   * The store it was given or withdrawn in (migration 2026_12_11_1500): for EMAIL, whose newsletter
   * it is; SMS and PERSONALISATION are the person's in every store, and it says where they were
   * changed. Null: a row from before the column that could not be attributed.
   */
  store_code: string | null;
  /** How: PROFILE, REGISTRATION, CONFIRMATION_LINK (the subscribe form's), UNSUBSCRIBE_LINK. */
  source: string;
  created_at: number;
}

/** A requested change of the login email, waiting for the new address to confirm it. */
export interface EmailChangeTable {
  user_id: number;
  /** Normalised (trimmed, lower-case). */
  new_email: string;
  /** SHA-256 of the token in the mail; null until the mail is sent. */
  token_hash: string | null;
  expires_at: number | null;
  requested_at: number;
}

/**
 * A user whose login email is not confirmed (migration 2026_11_29_0840): a social sign-up whose
 * provider did not verify the address, or one from before that was recorded. No row: confirmed.
 * What the shop keeps by email that is not the account's own reaches the user only while it is.
 */
export interface UnconfirmedLoginEmailTable {
  user_id: number;
  since: number;
}

export type AddressKind = 'SHIPPING' | 'BILLING';

export interface ClientAddressTable {
  id: Generated<number>;
  client_account_id: number;
  kind: AddressKind;
  name: string;
  phone: string;
  address: string;
  city: string;
  postcode: string;
  country_code: string;
  /** The kind while this is the client's default address of that kind, else null. */
  default_for: AddressKind | null;
  created_at: number;
  updated_at: number;
}

export interface ClientPreferenceTable {
  client_account_id: number;
  newsletter_language: string;
  email_channel: BooleanColumn;
  sms_channel: BooleanColumn;
  order_updates: BooleanColumn;
  back_in_stock: BooleanColumn;
  wishlist_offers: BooleanColumn;
  updated_at: number;
}

export interface ProfileTables {
  marketing_consent_event: MarketingConsentEventTable;
  email_change: EmailChangeTable;
  unconfirmed_login_email: UnconfirmedLoginEmailTable;
  client_address: ClientAddressTable;
  client_preference: ClientPreferenceTable;
}
