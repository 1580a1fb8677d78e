import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../../http/errors.js';
import { PagingQuery, sendPageOfKeptList } from '../../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import type { Language } from '../../../i18n/index.js';
import { ttlCache } from '../../../infra/ttl-cache.js';
import { cacheFor } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { activeShops } from './shop.repository.js';
import { ShopCodeParams, ShopSchema } from './shop.schemas.js';

/**
 * Shops and their opening hours. The chain's few tens of shops are reference data: read once per
 * language and cache period, like the category tree, and paged from memory.
 */
export const shopRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, { database, caller: callerOf, config }) => {
  const shops = ttlCache(config.catalogueCacheTtlMs, (language: Language) => activeShops(database.db, language));

  app.get(
    '/shop',
    {
      schema: {
        tags: ['shops and schedules'],
        summary: 'Active shops in display order, with opening hours',
        headers: StoreRequestHeaders,
        querystring: PagingQuery,
        response: { 200: success(Type.Array(ShopSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      cacheFor(reply, caller);
      return sendPageOfKeptList(request, reply, request.query, await shops.get(request.language));
    },
  );

  app.get(
    '/shop/:code',
    {
      schema: {
        tags: ['shops and schedules'],
        summary: 'One active shop by its code',
        headers: StoreRequestHeaders,
        params: ShopCodeParams,
        response: { 200: success(ShopSchema), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const shop = (await shops.get(request.language)).find((candidate) => candidate.code === request.params.code);
      if (!shop) throw new HttpError(404, 'catalogue.shopNotFound', { code: request.params.code.slice(0, 40) });
      cacheFor(reply, caller);
      return shop;
    },
  );
};
