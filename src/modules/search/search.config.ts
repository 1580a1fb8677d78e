import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';
import type { CatalogueConfig } from '../catalogue/index.js';

/** The `search` section of the configuration: what one client may make a process do. */
export interface SearchSection {
  /**
   * Work one client address may cause in a process on the search, autocomplete and dynamic-filter
   * routes, in milliseconds per duration: each request counts 1 plus the milliseconds its search
   * reads held the event loop (SQLite), a refused request (400) 20 (a token bucket of `max`, refilled
   * evenly over `windowMs`).
   */
  perAddress: RateLimit;
  /** How long the search reads of one request may take together before it is answered 503. */
  timeBudgetMs: number;
}

/**
 * The settings search reads, by their names in the application's Config: the catalogue's cache
 * TTL (search answers are kept this long; suggestions and retail facets a multiple of it, see
 * search.service.ts) and its own section.
 */
export type SearchConfig = Pick<CatalogueConfig, 'catalogueCacheTtlMs'> & { search: SearchSection };

export function readSearchConfig(env: EnvReader): SearchSection {
  return {
    perAddress: env.rateLimit('SEARCH_RATE_LIMIT_PER_IP', '3000/10s'),
    timeBudgetMs: env.integer('SEARCH_TIME_BUDGET_MS', 1000, 1, 60_000),
  };
}
