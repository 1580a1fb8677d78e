import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import { cacheUntil, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams, ProductCardSchema } from '../catalogue.schemas.js';
import { MAX_RECOMMENDATIONS } from './recommendation.repository.js';
import { createRecommendations, DEFAULT_RECOMMENDATIONS } from './recommendation.service.js';

const limit = Type.Optional(
  Type.Integer({
    minimum: 1,
    description: `How many products (default ${DEFAULT_RECOMMENDATIONS}; more than ${MAX_RECOMMENDATIONS} gives ${MAX_RECOMMENDATIONS})`,
  }),
);
const LimitQuery = Type.Object({ limit });
const RecommendationQuery = Type.Object({ productId: IdParams.properties.id, limit });
const response = { 200: success(Type.Array(ProductCardSchema)), ...errors(...storeRouteErrors, 401, 404) };

/** Recommendations beside a product (see recommendation.service.ts): a short fixed-size list, not paged. */
export const recommendationRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const { caller: callerOf } = deps;
  const recommend = createRecommendations(deps);

  async function recommendations(request: FastifyRequest, reply: FastifyReply, productId: number, asked: number | undefined) {
    const caller = await callerOf(request);
    const context = catalogueContext(request, caller);
    const cards = await recommend(context, productId, asked);
    const changesAt = await deps.catalogue.pricesChangeAt(
      context,
      cards.map((card) => card.id),
    );
    cacheUntil(reply, context, changesAt);
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
