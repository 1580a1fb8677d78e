import type { DatabaseHandle } from '../../db/database.js';
import type { Catalogue, CallerResolver } from '../catalogue/index.js';
import type { SearchConfig } from './search.config.js';
import type { SearchService } from './search.service.js';

/** What search's routes need from the application. */
export interface SearchDeps {
  database: DatabaseHandle;
  config: SearchConfig;
  /** The catalogue's shared reading side (its caches of products, trees and names), for the cards search answers with. */
  catalogue: Catalogue;
}

/** What each group of search routes gets: the module's deps, the search service and the caller of a request. */
export interface SearchRouteDeps extends SearchDeps {
  search: SearchService;
  caller: CallerResolver;
}
