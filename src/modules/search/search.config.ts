import type { CatalogueConfig } from '../catalogue/index.js';

/**
 * The settings search reads, by their names in the application's Config: the catalogue's cache
 * TTL (search answers are kept this long; suggestions and retail facets a multiple of it, see
 * search.service.ts).
 */
export type SearchConfig = Pick<CatalogueConfig, 'catalogueCacheTtlMs'>;
