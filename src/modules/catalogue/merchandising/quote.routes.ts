import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toRfc3339 } from '../../../db/time.js';
import { pageRequest, setPaginationHeaders, type PagingQuery } from '../../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import { cacheFor, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams } from '../catalogue.schemas.js';
import { ProductQuotesQuery, QuoteQuery, QuoteSchema, type QUOTE_LANGUAGES } from './quote.schemas.js';
import { createQuoteList } from './quote.service.js';

const response = { 200: success(Type.Array(QuoteSchema), 'list'), ...errors(...storeRouteErrors, 401, 404) };

interface QuoteListQuery extends PagingQuery {
  productId?: number;
  personId?: number;
  language?: (typeof QUOTE_LANGUAGES)[number];
}

/** Product quotes: all of them, or a product's or a person's; in the reader's language when there are any. */
export const quoteRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const { caller: callerOf } = deps;
  const listQuotes = createQuoteList(deps);

  async function list(request: FastifyRequest, reply: FastifyReply, query: QuoteListQuery) {
    const caller = await callerOf(request);
    const page = pageRequest(query);
    const { rows, total } = await listQuotes(catalogueContext(request, caller), query, page);
    cacheFor(reply, caller);
    setPaginationHeaders(request, reply, page, total);
    return rows.map((row) => ({ ...row, createdAt: toRfc3339(row.createdAt) }));
  }

  app.get(
    '/quote',
    {
      schema: {
        tags: ['product quotes'],
        summary: 'Quotes, the newest first; optionally of one product or one person',
        headers: StoreRequestHeaders,
        querystring: QuoteQuery,
        response,
      },
    },
    (request, reply) => list(request, reply, request.query),
  );

  app.get(
    '/product/:id/quotes',
    {
      schema: {
        tags: ['product quotes'],
        summary: 'Quotes of one product, the newest first',
        headers: StoreRequestHeaders,
        params: IdParams,
        querystring: ProductQuotesQuery,
        response,
      },
    },
    (request, reply) => list(request, reply, { ...request.query, productId: request.params.id }),
  );
};
