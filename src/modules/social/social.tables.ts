// Social login: the OAuth round trips, linked identities and the authIds handed to clients.
// Conventions of every table: src/db/schema.ts.
import type { ColumnType, Generated } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';

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
  /** SHA-256 of the nonce in the flow cookie of the browser that started the flow (null: started before it existed). */
  browser_hash: string | null;
  /** A form-POST callback (Apple) that came without the flow cookie, waiting for the browser's GET back. */
  callback_form: string | null;
  created_at: number;
  expires_at: number;
}

export interface SocialIdentityTable {
  id: Generated<number>;
  provider: SocialProvider;
  subject: string;
  user_id: number;
  /** The address the provider gave at the identity's last sign-in or link (normalised); null: none. */
  email: string | null;
  /**
   * Whether the provider vouched for `email` at the identity's last sign-in or link (never
   * Facebook). Rows older than migration 2026_11_30_0600 are false until their next sign-in: what
   * their provider said was not recorded. Shown in the person's export; no rule reads it (sign-in
   * and link decide by what the provider says in that very flow).
   */
  email_verified: ColumnType<boolean | number, boolean | undefined, boolean>;
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
  /** A pending link of a web flow: only this user confirms it, and it never logs in. Null: a sign-in. */
  link_user_id: number | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** ID tokens apps signed in with, kept until they expire so that each is accepted once. */
export interface UsedIdTokenTable {
  /** SHA-256 of provider, ':' and the token's jti, or of its signed part (header and claims) when it has no jti. */
  token_key: string;
  provider: SocialProvider;
  created_at: number;
  expires_at: number;
}

export interface SocialTables {
  oauth_transaction: OauthTransactionTable;
  social_identity: SocialIdentityTable;
  auth_record: AuthRecordTable;
  used_id_token: UsedIdTokenTable;
}
