/** The settings search reads, by their names in the application's Config. */
export interface SearchConfig {
  /** Search answers are kept this long; suggestions and retail facets a multiple of it (search.service.ts). */
  catalogueCacheTtlMs: number;
}
