import type { ApiDocsMode } from '../../http/api-docs-mode.js';
import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `dataExport` section of the configuration. */
export interface ExportSettings {
  /** Requests of one export user (every page and stream counts once). */
  rateLimitPerUser: RateLimit;
  /** Failed Basic authentications from one address before it gets 429 instead of a password check. */
  authFailuresPerIp: RateLimit;
  /** Session actions older than this are deleted by the hourly maintenance. */
  sessionActionRetentionDays: number;
  /** How long a total count (X-Pagination-Total-Count) is reused for the same collection and filter. */
  countCacheTtlMs: number;
  /** Rows are exported once they are this old: the newest may still gain rows before them. */
  settleMs: number;
}

/** The config fields the data export reads (names as in src/config.ts, so the whole Config fits). */
export interface DataExportConfig {
  /** Where the export API is mounted; its OpenAPI document names it as the server. */
  dataExportPath: string;
  /** The store whose guest prices the product export shows, when the product is sold there. */
  defaultStore: string;
  dataExport: ExportSettings;
  /** API_DOCS: the export's own document is public, for authenticated export users only, or not served. */
  apiDocs: ApiDocsMode;
}

export function readDataExportConfig(env: EnvReader): ExportSettings {
  return {
    rateLimitPerUser: env.rateLimit('DATA_EXPORT_RATE_LIMIT', '1200/1m'),
    authFailuresPerIp: env.rateLimit('DATA_EXPORT_AUTH_FAILURES_PER_IP', '20/15m'),
    sessionActionRetentionDays: env.integer('SESSION_ACTION_RETENTION_DAYS', 365, 1, 36_500),
    countCacheTtlMs: env.integer('DATA_EXPORT_COUNT_CACHE_TTL_MS', 15_000, 0, 3_600_000),
    settleMs: env.integer('DATA_EXPORT_SETTLE_MS', 5_000, 0, 3_600_000),
  };
}
