import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import type { CatalogueDeps } from '../catalogue/catalogue.routes.js';
import { ProductCardSchema } from '../catalogue/catalogue.schemas.js';
import { autocompleteRoutes } from './autocomplete.routes.js';
import { dynamicFilterRoutes } from './dynamic-filter.routes.js';
import { searchInput, splitListParameters } from './search-input.js';
import { SearchQuery } from './search.schemas.js';
import { createSearchService, type SearchService } from './search.service.js';

export interface SearchDeps extends CatalogueDeps {
  search: SearchService;
}

/** Response header of every search-backed answer: 1 here, 0 on the 503 while the index is unavailable. */
export const searchHeaders = { 'x-search-available': { type: 'string', description: '1: the search index answered; 0 (with 503): it is being rebuilt' } };
export const searchErrors = errors(...storeRouteErrors, 401, 503);

/**
 * Product search, autocomplete and dynamic filters over the search index. The process keeps the
 * index current in the background while it listens (see index-maintenance.ts).
 */
export const searchRoutes: FastifyPluginAsyncTypebox<CatalogueDeps> = async (app, deps) => {
  const search = createSearchService(deps, app.log);
  const { catalogue } = deps;
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
      const caller = await catalogue.caller(request);
      await search.ready();
      const page = pageRequest(request.query);
      const input = await searchInput(catalogue, request, request.query, request.query.sort);
      const { ids, total } = await search.products(request, caller, input, page.offset, page.perPage);
      setPaginationHeaders(request, reply, page, total);
      reply.header('X-Search-Available', '1');
      catalogue.cacheFor(reply, caller);
      return catalogue.cards(request, caller, ids);
    },
  );

  const searchDeps: SearchDeps = { ...deps, search };
  await app.register(autocompleteRoutes, searchDeps);
  await app.register(dynamicFilterRoutes, searchDeps);
};

/** Adds X-Search-Available to a success schema's documented headers. */
export function withSearchHeader<T extends object>(schema: T): T {
  const headers = (schema as { headers?: object }).headers ?? {};
  return { ...schema, headers: { ...headers, ...searchHeaders } };
}
