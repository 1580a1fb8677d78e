// Table types for Kysely. Conventions, the same on both engines:
// - timestamps are Unix milliseconds (UTC) in int8 columns: one representation, compared and
//   ordered as numbers, turned into RFC 3339 strings only at the edge (see db/time.ts);
// - booleans are `boolean` columns; SQLite hands them back as 0/1, so read them with Boolean();
// - internal ids are integers; the outside world names things by their public codes.
//
// This file holds the infrastructure's tables and the column types several modules share. Each
// module declares its own tables (`src/modules/<m>/<m>.tables.ts`); `src/schema.ts`, a composition
// root, adds them to `Database` by declaration merging, so this layer imports no module.
import type { ColumnType, Generated } from 'kysely';
import type { ProductTypeCode } from './product-types.js';

/** A boolean column: written as boolean, read as boolean (PostgreSQL) or 0/1 (SQLite). */
export type BooleanColumn = ColumnType<boolean | number, boolean, boolean>;

/** A client account's kind: accounts store it, tokens carry it, the request context and pricing read it. */
export type AccountType = 'SIMPLE' | 'BUSINESS' | 'WHOLESALE';

// The type list is src/db/product-types.ts, a value the schemas and the import derive from.
export type { ProductTypeCode };

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

/**
 * The addresses a job's payload names (migration 0400), kept by triggers on job: every string value
 * with an '@', trimmed and lower-cased. Rows go with their job (on delete cascade).
 */
export interface JobEmailTable {
  email: string;
  job_id: number;
}

export interface RateLimitTable {
  key: string;
  window_start: number;
  hits: number;
}

// ---- Import lock (migration 1100) ----

/** A running import of one kind (see src/infra/import/import-lock.ts). */
export interface ImportLockTable {
  kind: string;
  /** Random per run; only the holder renews or removes the row. */
  owner: string;
  started_at: number;
  /** Renewed while the import runs; past it, another process may take the lock over. */
  expires_at: number;
}

// ---- Job leases (migration 2026_11_24_0130) ----

/** A periodic task's run under way (see src/infra/jobs/lease.ts). */
export interface JobLeaseTable {
  name: string;
  /** Random per run; only the holder renews or removes the row. */
  owner: string;
  /** Renewed while the run goes on; past it, another process may take the lease over. */
  expires_at: number;
}

/**
 * Every table. Here only the infrastructure's; src/schema.ts extends this interface with each
 * module's tables (a program that does not include src/schema.ts sees only these).
 */
/** Secrets the service makes once and every process shares (when the configuration gives none). */
export interface AppSecretTable {
  name: string;
  value: string;
  created_at: number;
}

/** An address its mail server refused as a mailbox that does not exist (src/infra/mail/refused-addresses.ts). */
export interface RefusedMailAddressTable {
  /** The normalised email (normaliseEmail). */
  address: string;
  refused_at: number;
  /** Kept by a late bounce (`mail bounce`): a mail a relay takes afterwards does not take it off. */
  late_bounce: ColumnType<boolean | number, boolean | undefined, boolean>;
}

export interface Database {
  app_secret: AppSecretTable;
  refused_mail_address: RefusedMailAddressTable;
  job: JobTable;
  job_email: JobEmailTable;
  rate_limit: RateLimitTable;
  import_lock: ImportLockTable;
  job_lease: JobLeaseTable;
}

export type { Generated };
