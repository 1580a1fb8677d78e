// Newsletter requests (double opt-in) and subscribers. Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';

export interface NewsletterRequestTable {
  id: Generated<number>;
  /** Trimmed and lower-cased. */
  email: string;
  store_code: string;
  language: string;
  source: string;
  /** SHA-256 of the confirmation token, set when the worker mails it; null before, or when no mail was sent. */
  token_hash: string | null;
  expires_at: number | null;
  /** When the link was followed; a used link is refused. */
  confirmed_at: number | null;
  created_at: number;
}

export interface NewsletterSubscriberTable {
  id: Generated<number>;
  /** Trimmed and lower-cased; one row per email and store. */
  email: string;
  store_code: string;
  language: string;
  /** Where the consent was given (the subscribe form's `source`, `website` by default). */
  source: string;
  /** When the last consent was confirmed. */
  consented_at: number;
  /** When it was withdrawn (unsubscribe); null while subscribed. */
  withdrawn_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface NewsletterTables {
  newsletter_request: NewsletterRequestTable;
  newsletter_subscriber: NewsletterSubscriberTable;
}
