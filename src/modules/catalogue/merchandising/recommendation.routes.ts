import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../../http/errors.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import { boundedCache } from '../../../infra/bounded-cache.js';
import { cacheFor, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams, ProductCardSchema } from '../catalogue.schemas.js';
import { MAX_RECOMMENDATIONS, productCategoryIds, recommendedIds } from './recommendation.repository.js';
import { audienceKey } from '../visibility.js';

const CACHE_ENTRIES = 20_000;
const DEFAULT_LIMIT = 12;

const limit = Type.Optional(
  Type.Integer({ minimum: 1, description: `How many products (default ${DEFAULT_LIMIT}; more than ${MAX_RECOMMENDATIONS} gives ${MAX_RECOMMENDATIONS})` }),
);
const LimitQuery = Type.Object({ limit });
const RecommendationQuery = Type.Object({ productId: IdParams.properties.id, limit });
const response = { 200: success(Type.Array(ProductCardSchema)), ...errors(...storeRouteErrors, 401, 404) };

/**
 * Recommendations beside a product: bought together with it, then related, same author, same
 * category (see recommendation.repository.ts). A short fixed-size list, not paged.
 */
export const recommendationRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, { database, catalogue, caller: callerOf, config }) => {
  const db = database.db;
  const cache = boundedCache<string, number[]>(config.catalogueCacheTtlMs, CACHE_ENTRIES);

  async function recommendations(request: FastifyRequest, reply: FastifyReply, productId: number, asked: number | undefined) {
    const caller = await callerOf(request);
    const context = catalogueContext(request, caller);
    const store = context.store.code;
    const base = await catalogue.visibleBase(context, productId);
    if (!base) throw new HttpError(404, 'catalogue.productNotFound', { id: productId });
    const ids = await cache.get(`${store}|${audienceKey(caller)}|${productId}`, async () => {
      const tree = await catalogue.categoryTree(store, context.language);
      const shown = (await productCategoryIds(db, productId)).map((id) => tree.byId.get(id)).filter((node) => node !== undefined);
      // The most specific categories only: a root category's best sellers say little about this book.
      const deepest = Math.max(0, ...shown.map((node) => node.level));
      const categoryIds = shown.filter((node) => node.level === deepest).map((node) => node.id);
      return recommendedIds(db, { productId, productCode: base.code, storeCode: store, caller, categoryIds });
    });
    const cards = await catalogue.cards(context, ids.slice(0, Math.min(asked ?? DEFAULT_LIMIT, MAX_RECOMMENDATIONS)));
    cacheFor(reply, caller);
    return cards;
  }

  app.get(
    '/product/:id/recommendations',
    {
      schema: {
        tags: ['recommendations'],
        summary: 'Products to recommend beside this one: bought together, related, same author, same category',
        headers: StoreRequestHeaders,
        params: IdParams,
        querystring: LimitQuery,
        response,
      },
    },
    (request, reply) => recommendations(request, reply, request.params.id, request.query.limit),
  );

  app.get(
    '/recommendation',
    {
      schema: {
        tags: ['recommendations'],
        summary: 'The same as /product/{id}/recommendations, with the product as a query parameter',
        headers: StoreRequestHeaders,
        querystring: RecommendationQuery,
        response,
      },
    },
    (request, reply) => recommendations(request, reply, request.query.productId, request.query.limit),
  );
};
