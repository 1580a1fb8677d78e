/**
 * The settings the catalogue reads, by their names in the application's Config (so the whole
 * config satisfies this interface).
 */
export interface CatalogueConfig {
  /** How long a process may serve catalogue data (products, categories, guest answers) before reading them again. */
  catalogueCacheTtlMs: number;
  /** How long list pages and their counts are kept. */
  catalogueListCacheTtlMs: number;
}
