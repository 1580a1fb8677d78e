import type { EnvReader } from '../../infra/env.js';

/**
 * The settings the catalogue reads, by their names in the application's Config (so the whole
 * config satisfies this interface): top-level fields of Config, read by readCatalogueConfig.
 */
export interface CatalogueConfig {
  /** How long a process may serve catalogue data (products, categories, guest answers) before reading them again. */
  catalogueCacheTtlMs: number;
  /** How long a process may reuse a product list's page order and total count (a big category costs a sort and a count). */
  catalogueListCacheTtlMs: number;
  /**
   * From which offset a page of a list sorted by price is sorted in SQL (the whole list, by the
   * price as an expression) instead of merged from indexed streams (cheap near the start, dearer
   * the further the page: catalogue/price-order.ts).
   */
  catalogueListPriceSqlFromOffset: number;
}

export function readCatalogueConfig(env: EnvReader): CatalogueConfig {
  return {
    catalogueCacheTtlMs: env.integer('CATALOGUE_CACHE_TTL_MS', 30_000, 0, 600_000),
    catalogueListCacheTtlMs: env.integer('CATALOGUE_LIST_CACHE_TTL_MS', 60_000, 0, 3_600_000),
    catalogueListPriceSqlFromOffset: env.integer('CATALOGUE_PRICE_SORT_SQL_FROM_OFFSET', 200, 0, 1_000_000),
  };
}
