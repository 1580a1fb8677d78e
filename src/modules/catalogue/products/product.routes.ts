import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { pageOfList, pageRequest, PagingQuery, setPaginationHeaders } from '../../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import { sendJsonText } from '../../../http/serialization.js';
import { recordView } from '../../tracking/index.js';
import { cacheFor, cacheUntil, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams, ProductCardSchema, ProductDetailsSchema, ProductListQuery } from '../catalogue.schemas.js';
import { browseFilter } from '../catalogue.service.js';
import { createProductPages } from './product-page.service.js';
import { AssetSchema, AvailabilitySchema, PricesSchema, ProductCodeParams, ProductPageHeaders } from './product.schemas.js';

const readErrors = errors(...storeRouteErrors, 401, 404);

/** Products: the list, details by id and by code, related products, assets, prices, availability. */
export const productRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, deps) => {
  const { catalogue, caller: callerOf, sessionActions } = deps;
  const pages = createProductPages(deps);

  app.get(
    '/product',
    {
      schema: {
        tags: ['products'],
        summary:
          'Products of the store, filtered by category (with subcategories), person, publisher, series, product list, campaign or type',
        headers: StoreRequestHeaders,
        querystring: ProductListQuery,
        response: { 200: success(Type.Array(ProductCardSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const context = catalogueContext(request, caller);
      const { query } = request;
      const filter = { ...(await browseFilter(catalogue, context, query)), types: query.type === undefined ? undefined : [query.type] };
      const sort = query.sort ?? (query.productListId !== undefined || query.campaignId !== undefined ? 'position' : 'newest');
      const page = pageRequest(query);
      const { text, total, changesAt } = await catalogue.listPageText(context, filter, sort, page);
      cacheUntil(reply, context, changesAt);
      setPaginationHeaders(request, reply, page, total);
      return sendJsonText(reply, text);
    },
  );

  app.get(
    '/product/:id',
    {
      schema: {
        tags: ['products'],
        summary: 'Product details, priced for the caller; records a VIEW under x-session-id',
        headers: ProductPageHeaders,
        params: IdParams,
        response: { 200: success(ProductDetailsSchema), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const context = catalogueContext(request, caller);
      const { body, changesAt } = await pages.details(context, request.params.id);
      // A replay of this answer from the guest cache records its view too (catalogue.routes.ts).
      reply.replayTag = { viewOf: body.code };
      recordView(sessionActions, request, body.code, caller.clientCode);
      cacheUntil(reply, context, changesAt);
      return body;
    },
  );

  app.get(
    '/product/code/:code',
    {
      schema: {
        tags: ['products'],
        summary: 'Product details by the back-office product code',
        headers: ProductPageHeaders,
        params: ProductCodeParams,
        response: { 200: success(ProductDetailsSchema), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const id = await pages.idOfCode(request.params.code);
      const context = catalogueContext(request, caller);
      const { body, changesAt } = await pages.details(context, id);
      reply.replayTag = { viewOf: body.code };
      recordView(sessionActions, request, body.code, caller.clientCode);
      cacheUntil(reply, context, changesAt);
      return body;
    },
  );

  app.get(
    '/product/:id/related',
    {
      schema: {
        tags: ['products'],
        summary: 'Products the back office relates to this one, in its order',
        headers: StoreRequestHeaders,
        params: IdParams,
        querystring: PagingQuery,
        response: { 200: success(Type.Array(ProductCardSchema), 'list'), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const context = catalogueContext(request, caller);
      const cards = await pages.related(context, request.params.id);
      cacheUntil(
        reply,
        context,
        await catalogue.pricesChangeAt(
          context,
          cards.map((card) => card.id),
        ),
      );
      return pageOfList(request, reply, request.query, cards);
    },
  );

  app.get(
    '/product/:id/assets',
    {
      schema: {
        tags: ['products'],
        summary: 'Images, samples and other files of the product, in display order',
        headers: StoreRequestHeaders,
        params: IdParams,
        response: { 200: success(Type.Array(AssetSchema)), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const assets = await pages.assets(catalogueContext(request, caller), request.params.id);
      cacheFor(reply, caller);
      return assets;
    },
  );

  app.get(
    '/product/:id/prices',
    {
      schema: {
        tags: ['products'],
        summary: 'The price for the caller with VAT rate, currency and the campaign behind it',
        headers: StoreRequestHeaders,
        params: IdParams,
        response: { 200: success(PricesSchema), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const context = catalogueContext(request, caller);
      const { body, changesAt } = await pages.prices(context, request.params.id);
      cacheUntil(reply, context, changesAt);
      return body;
    },
  );

  app.get(
    '/product/:id/availability',
    {
      schema: {
        tags: ['product availability'],
        summary: 'Whether and where the product can be had: web stock and the shops that have it',
        headers: StoreRequestHeaders,
        params: IdParams,
        response: { 200: success(AvailabilitySchema), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const context = catalogueContext(request, caller);
      const base = await pages.visibleBase(context, request.params.id);
      const extras = await pages.extras(context, base.id);
      cacheFor(reply, caller);
      return {
        availability: base.availability,
        deliveryTime: base.deliveryTime,
        stockCount: base.webStock,
        shops: extras?.availabilityByShop ?? [],
      };
    },
  );
};
