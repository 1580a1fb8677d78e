import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../../app.js';
import { registerConditionalGet } from '../../http/http-cache.js';
import { registerGuestResponseCache } from '../../http/response-cache.js';
import { browseRoutes } from './browse.routes.js';
import { createCatalogue, type Catalogue } from './catalogue.service.js';
import { commentRoutes } from './comment.routes.js';
import { productRoutes } from './product.routes.js';
import { recordView } from '../tracking/session-actions.js';
import { campaignRoutes } from './campaign.routes.js';
import { componentRoutes } from './component.routes.js';
import { productListRoutes } from './product-list.routes.js';
import { quoteRoutes } from './quote.routes.js';
import { recommendationRoutes } from './recommendation.routes.js';
import { shopRoutes } from './shop.routes.js';
import { searchRoutes } from '../search/search.routes.js';

// Guest answers kept per process: product pages of ~2 kB and list pages of ~10 kB, so at most
// some tens of MB; enough for the popular part of a large catalogue, not all of it.
const GUEST_ANSWERS = 20_000;

export interface CatalogueDeps extends AppDeps {
  catalogue: Catalogue;
}

/**
 * The catalogue's read side and its comments: one shared Catalogue (caller, caches, pricing) for
 * every group. Answers that may be cached get an ETag and answer conditional GETs with 304.
 */
export const catalogueRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, deps) => {
  const catalogueDeps: CatalogueDeps = { ...deps, catalogue: createCatalogue(deps) };
  registerConditionalGet(app);
  registerGuestResponseCache(app, {
    ttlMs: deps.config.catalogueCacheTtlMs,
    maxEntries: GUEST_ANSWERS,
    // A product page answered from the cache is still a view.
    onReplay: (request, tag) => {
      if (tag.viewOf !== undefined) recordView(deps.sessionActions, request, tag.viewOf, null);
    },
  });
  await app.register(productRoutes, catalogueDeps);
  await app.register(browseRoutes, catalogueDeps);
  await app.register(campaignRoutes, catalogueDeps);
  await app.register(productListRoutes, catalogueDeps);
  await app.register(componentRoutes, catalogueDeps);
  await app.register(recommendationRoutes, catalogueDeps);
  await app.register(quoteRoutes, catalogueDeps);
  await app.register(shopRoutes, catalogueDeps);
  await app.register(commentRoutes, catalogueDeps);
  await app.register(searchRoutes, catalogueDeps);
};
