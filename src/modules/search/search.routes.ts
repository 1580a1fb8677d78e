import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { registerConditionalGet } from '../../http/http-cache.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { registerGuestResponseCache } from '../../http/response-cache.js';
import { sendJsonText } from '../../http/serialization.js';
import { StoreRequestHeaders, success } from '../../http/schemas.js';
import { cacheUntil, callerResolver, catalogueContext, GUEST_ANSWERS, ProductCardSchema } from '../catalogue/index.js';
import { autocompleteRoutes } from './autocomplete.routes.js';
import { dynamicFilterRoutes } from './dynamic-filter.routes.js';
import type { SearchDeps, SearchRouteDeps } from './search.deps.js';
import { budgetOf, refuseOneLetterWordLists, registerSearchGuards } from './search-guards.routes.js';
import { searchInput } from './search-input.js';
import { markUnavailableAnswers, splitListParameters } from './search-request.routes.js';
import { searchErrors, SearchQuery, withSearchHeader } from './search.schemas.js';
import { createSearchService, RESULT_WINDOW } from './search.service.js';

/**
 * Product search, autocomplete and dynamic filters over the search index. The process keeps the
 * index current in the background while it listens (see index-maintenance.ts). Answers are cached
 * like the catalogue's (ETag and 304; a guest's answer kept for the catalogue's cache period).
 */
export const searchRoutes: FastifyPluginAsyncTypebox<SearchDeps> = async (app, deps) => {
  const search = createSearchService({ database: deps.database, config: deps.config, log: app.log });
  const routeDeps: SearchRouteDeps = { ...deps, search, caller: callerResolver(deps.database) };
  const { catalogue, caller: callerOf } = routeDeps;
  // First: a client past its limit costs nothing more, a cached answer counts against it too.
  registerSearchGuards(app, deps.config.search);
  registerConditionalGet(app);
  registerGuestResponseCache(app, { ttlMs: deps.config.catalogueCacheTtlMs, maxEntries: GUEST_ANSWERS });
  markUnavailableAnswers(app);
  // Only a listening server folds in the background; app.inject (tests) folds before each search.
  app.addHook('onListen', async () => search.background.start());
  app.addHook('onClose', async () => search.background.stop());

  app.get(
    '/product/search',
    {
      preValidation: splitListParameters,
      schema: {
        tags: ['products'],
        summary: 'Search the store: free text, EAN/ISBN, filters and sorts; visibility and prices follow the caller',
        headers: StoreRequestHeaders,
        querystring: SearchQuery,
        response: { 200: withSearchHeader(success(Type.Array(ProductCardSchema), 'list')), ...searchErrors },
      },
    },
    async (request, reply) => {
      refuseOneLetterWordLists(request.query.q);
      const caller = await callerOf(request);
      const context = { ...catalogueContext(request, caller), budget: budgetOf(request) };
      await search.ready(context.now);
      const page = pageRequest(request.query);
      const input = await searchInput(catalogue, context, request.query, request.query.sort);
      const { ids, total } = await search.products(context, input, page.offset, page.perPage);
      setPaginationHeaders(request, reply, page, total, RESULT_WINDOW);
      reply.header('X-Search-Available', '1');
      const { text, changesAt } = await catalogue.cardsTextUntil(context, ids);
      cacheUntil(reply, context, changesAt);
      return sendJsonText(reply, text);
    },
  );

  await app.register(autocompleteRoutes, routeDeps);
  await app.register(dynamicFilterRoutes, routeDeps);
};
