// The store's table (migration 0100). Conventions of every table: src/db/schema.ts.
import type { ColumnType } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';

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

export interface StoreTables {
  web_store: WebStoreTable;
}
