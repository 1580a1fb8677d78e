import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { requestStore } from '../../http/request-context.js';
import { boundedCache } from '../../infra/bounded-cache.js';
import type { Caller } from './caller.js';
import type { CatalogueDeps } from './catalogue.routes.js';
import { categoryRoutes } from './category.routes.js';
import { personRoutes } from './person.routes.js';
import { countVisibleProducts, type ProductFilter } from './product-query.js';
import { publisherRoutes } from './publisher.routes.js';
import { seriesRoutes } from './series.routes.js';

const COUNT_CACHE_ENTRIES = 20_000;

export interface BrowseDeps extends CatalogueDeps {
  /** Visible products of a filter for the caller: the count a category, person, ... page shows. */
  productCount(request: FastifyRequest, caller: Caller, filter: ProductFilter): Promise<number>;
}

/** Browsing the catalogue by category, author or person, publisher and series. */
export const browseRoutes: FastifyPluginAsyncTypebox<CatalogueDeps> = async (app, deps) => {
  // The same counts as the product lists of the same filters: kept as long.
  const counts = boundedCache<string, number>(deps.config.catalogueListCacheTtlMs, COUNT_CACHE_ENTRIES);
  const browseDeps: BrowseDeps = {
    ...deps,
    productCount: (request, caller, filter) =>
      countVisibleProducts(deps.database.db, counts, { storeCode: requestStore(request).code, caller, filter, now: request.actionTime }),
  };
  await app.register(categoryRoutes, browseDeps);
  await app.register(personRoutes, browseDeps);
  await app.register(publisherRoutes, browseDeps);
  await app.register(seriesRoutes, browseDeps);
};
