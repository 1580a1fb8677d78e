import type { DatabaseHandle } from '../../db/database.js';
import type { SessionActionRecorder } from '../tracking/index.js';
import type { CallerResolver } from './catalogue-request.routes.js';
import type { CatalogueConfig } from './catalogue.config.js';
import type { Catalogue } from './catalogue.service.js';

/** What the catalogue's routes need from the application. */
export interface CatalogueDeps {
  database: DatabaseHandle;
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
