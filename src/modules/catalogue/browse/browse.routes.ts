import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { categoryRoutes } from './category.routes.js';
import { personRoutes } from './person.routes.js';
import { publisherRoutes } from './publisher.routes.js';
import { seriesRoutes } from './series.routes.js';

/** Browsing the catalogue by category, author or person, publisher and series. */
export const browseRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  await app.register(categoryRoutes, deps);
  await app.register(personRoutes, deps);
  await app.register(publisherRoutes, deps);
  await app.register(seriesRoutes, deps);
};
