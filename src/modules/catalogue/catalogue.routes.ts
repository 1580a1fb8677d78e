import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { registerConditionalGet } from '../../http/http-cache.js';
import { registerGuestResponseCache } from '../../http/response-cache.js';
import { recordView } from '../tracking/index.js';
import { browseRoutes } from './browse/browse.routes.js';
import { componentRoutes } from './browse/component.routes.js';
import { callerResolver } from './catalogue-request.routes.js';
import type { CatalogueDeps, CatalogueRouteDeps } from './catalogue.deps.js';
import { campaignRoutes } from './merchandising/campaign.routes.js';
import { productListRoutes } from './merchandising/product-list.routes.js';
import { quoteRoutes } from './merchandising/quote.routes.js';
import { recommendationRoutes } from './merchandising/recommendation.routes.js';
import { productRoutes } from './products/product.routes.js';
import { commentRoutes } from './reviews/comment.routes.js';
import { shopRoutes } from './shops/shop.routes.js';

// Guest answers kept per process: product pages of ~2 kB and list pages of ~10 kB, so at most
// some tens of MB; enough for the popular part of a large catalogue, not all of it.
export const GUEST_ANSWERS = 20_000;

/**
 * The catalogue's read side and its comments: one shared Catalogue (caches, pricing) for every
 * group. Answers that may be cached get an ETag and answer conditional GETs with 304.
 */
export const catalogueRoutes: FastifyPluginAsyncTypebox<CatalogueDeps> = async (app, deps) => {
  const routeDeps: CatalogueRouteDeps = { ...deps, caller: callerResolver(deps.callerDatabase ?? deps.database) };
  registerConditionalGet(app);
  registerGuestResponseCache(app, {
    ttlMs: deps.config.catalogueCacheTtlMs,
    maxEntries: GUEST_ANSWERS,
    // A product page answered from the cache is still a view.
    onReplay: (request, tag) => {
      if (tag.viewOf !== undefined) recordView(deps.sessionActions, request, tag.viewOf, null);
    },
  });
  await app.register(productRoutes, routeDeps);
  await app.register(browseRoutes, routeDeps);
  await app.register(campaignRoutes, routeDeps);
  await app.register(productListRoutes, routeDeps);
  await app.register(componentRoutes, routeDeps);
  await app.register(recommendationRoutes, routeDeps);
  await app.register(quoteRoutes, routeDeps);
  await app.register(shopRoutes, routeDeps);
  await app.register(commentRoutes, routeDeps);
};
