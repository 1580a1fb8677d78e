import type { DatabaseHandle } from '../../db/database.js';
import type { SessionActionRecorder } from '../tracking/index.js';
import type { CallerResolver } from './catalogue-request.routes.js';
import type { CatalogueConfig } from './catalogue.config.js';
import type { Catalogue } from './catalogue.service.js';

/** What the catalogue's routes need from the application. */
export interface CatalogueDeps {
  /** Where the catalogue's routes read (a read replica's routing handle where one is set). */
  database: DatabaseHandle;
  /**
   * Where bearer tokens are resolved, when not `database`: the primary, since a token issued a
   * moment ago may not have reached a replica yet.
   */
  callerDatabase?: DatabaseHandle;
  config: CatalogueConfig;
  /** The catalogue's caches and reads, built once (createCatalogue) and shared with search. */
  catalogue: Catalogue;
  /** Buffered writer of session actions: a product page records a view. */
  sessionActions: SessionActionRecorder;
}

/** What each group of catalogue routes gets: the module's deps and the caller of a request. */
export interface CatalogueRouteDeps extends CatalogueDeps {
  caller: CallerResolver;
}
