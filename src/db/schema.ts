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

export interface Database {
  web_store: WebStoreTable;
  country: CountryTable;
  country_name: CountryNameTable;
}

export type { Generated };
