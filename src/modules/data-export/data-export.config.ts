/** A number of requests in a fixed window (the same shape as the config's rate limits). */
export interface ExportRateLimit {
  max: number;
  windowMs: number;
}

/** The `dataExport` section of the config, as far as this module reads it. */
export interface ExportSettings {
  /** Requests of one export user (every page and stream counts once). */
  rateLimitPerUser: ExportRateLimit;
  /** Failed Basic authentications from one address before it gets 429 instead of a password check. */
  authFailuresPerIp: ExportRateLimit;
  /** How long a total count (X-Pagination-Total-Count) is reused for the same collection and filter. */
  countCacheTtlMs: number;
}

/** The config fields the data export reads (names as in src/config.ts, so the whole Config fits). */
export interface DataExportConfig {
  /** Where the export API is mounted; its OpenAPI document names it as the server. */
  dataExportPath: string;
  /** The store whose guest prices the product export shows, when the product is sold there. */
  defaultStore: string;
  dataExport: ExportSettings;
}
