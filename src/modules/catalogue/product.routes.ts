import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../http/errors.js';
import { pageOfList, pageRequest, PagingQuery } from '../../http/paging.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { boundedCache } from '../../infra/bounded-cache.js';
import type { Caller } from './caller.js';
import type { CatalogueDeps } from './catalogue.routes.js';
import { browseFilter } from './catalogue.service.js';
import { IdParams, PriceFields, ProductCardSchema, ProductDetailsSchema, ProductListQuery, ShopAvailabilitySchema } from './catalogue.schemas.js';
import { isVisibleTo, priceFields, toCard, type ProductBase } from './product-cards.js';
import { productExtrasReader, type ProductExtras } from './product-details.js';
import { recordView } from '../tracking/session-actions.js';
import { activeCampaignOf, findProductIdByCode, productAssets, relatedProductIds } from './product.repository.js';

const EXTRAS_CACHE_ENTRIES = 20_000;

const headers = Type.Object({
  ...StoreRequestHeaders.properties,
  'x-session-id': Type.Optional(Type.String({ description: 'The shopper\'s session; a product view is recorded under it for analytics' })),
});
const CodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 40, description: 'Product code of the back office' }) });
const readErrors = errors(...storeRouteErrors, 401, 404);

const AssetSchema = Type.Object({
  kind: Type.Union([Type.Literal('IMAGE'), Type.Literal('SAMPLE'), Type.Literal('AUDIO_SAMPLE'), Type.Literal('VIDEO')]),
  url: Type.String(),
  mimeType: Type.Union([Type.String(), Type.Null()]),
  width: Type.Union([Type.Integer(), Type.Null()]),
  height: Type.Union([Type.Integer(), Type.Null()]),
});

const PricesSchema = Type.Object({
  ...PriceFields,
  vatRatePercent: Type.Number(),
  currency: Type.String(),
  campaign: Type.Union([
    Type.Object({ code: Type.String(), name: Type.String(), validTo: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]) }),
    Type.Null(),
  ], { description: 'The campaign whose price the caller gets, if any' }),
});

const AvailabilitySchema = Type.Object({
  availability: ProductCardSchema.properties.availability,
  deliveryTime: ProductCardSchema.properties.deliveryTime,
  stockCount: Type.Integer({ description: 'Units that can be sold on the web' }),
  shops: Type.Array(ShopAvailabilitySchema),
});

/** Products: the list, details by id and by code, related products, assets, prices, availability. */
export const productRoutes: FastifyPluginAsyncTypebox<CatalogueDeps> = async (app, { database, catalogue, sessionActions, config }) => {
  const db = database.db;
  const extrasCache = boundedCache<string, ProductExtras | undefined>(config.catalogueCacheTtlMs, EXTRAS_CACHE_ENTRIES);
  const readExtras = productExtrasReader(database);

  /** The product if the caller may see it in this store; 404 otherwise (hidden is the same as absent). */
  async function visibleBase(request: FastifyRequest, caller: Caller, id: number): Promise<ProductBase> {
    const base = await catalogue.base(requestStore(request).code, id);
    if (!base || !isVisibleTo(base, caller)) throw new HttpError(404, 'catalogue.productNotFound', { id });
    return base;
  }

  /** The parts of the product page that are the same for every caller of the store and language. */
  function extrasOf(request: FastifyRequest, id: number): Promise<ProductExtras | undefined> {
    const store = requestStore(request);
    return extrasCache.get(`${store.code}:${request.language}:${id}`, async () =>
      readExtras(id, await catalogue.categoryTree(store.code, request.language), request.language),
    );
  }

  async function details(request: FastifyRequest, reply: FastifyReply, caller: Caller, id: number) {
    const base = await visibleBase(request, caller, id);
    const [extras, context] = await Promise.all([extrasOf(request, id), catalogue.priceContext(request, caller, [id])]);
    if (!extras) throw new HttpError(404, 'catalogue.productNotFound', { id });
    // The other edition is cached with the page for every caller; whether this caller may see it is not.
    const [physicalBook, ebook] = await Promise.all([visibleRef(request, caller, extras.physicalBook), visibleRef(request, caller, extras.ebook)]);
    const card = toCard(base, context, request.language, await catalogue.bindings());
    // A replay of this answer from the guest cache records its view too (catalogue.routes.ts).
    reply.replayTag = { viewOf: base.code };
    recordView(sessionActions, request, base.code, caller.clientCode);
    return { ...card, ...extras, physicalBook, ebook };
  }

  async function visibleRef<T extends { id: number }>(request: FastifyRequest, caller: Caller, ref: T | null): Promise<T | null> {
    if (ref === null) return null;
    const base = await catalogue.base(requestStore(request).code, ref.id);
    return base && isVisibleTo(base, caller) ? ref : null;
  }

  app.get(
    '/product',
    {
      schema: {
        tags: ['products'],
        summary: 'Products of the store, filtered by category (with subcategories), person, publisher, series, product list, campaign or type',
        headers: StoreRequestHeaders,
        querystring: ProductListQuery,
        response: { 200: success(Type.Array(ProductCardSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const caller = await catalogue.caller(request);
      const { query } = request;
      const filter = { ...(await browseFilter(catalogue, request, query)), types: query.type === undefined ? undefined : [query.type] };
      catalogue.cacheFor(reply, caller);
      return catalogue.listPage(
        request,
        reply,
        caller,
        filter,
        query.sort ?? (query.productListId !== undefined || query.campaignId !== undefined ? 'position' : 'newest'),
        pageRequest(query),
      );
    },
  );

  app.get(
    '/product/:id',
    {
      schema: {
        tags: ['products'],
        summary: 'Product details, priced for the caller; records a VIEW under x-session-id',
        headers,
        params: IdParams,
        response: { 200: success(ProductDetailsSchema), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await catalogue.caller(request);
      const body = await details(request, reply, caller, request.params.id);
      catalogue.cacheFor(reply, caller);
      return body;
    },
  );

  app.get(
    '/product/code/:code',
    {
      schema: {
        tags: ['products'],
        summary: 'Product details by the back-office product code',
        headers,
        params: CodeParams,
        response: { 200: success(ProductDetailsSchema), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await catalogue.caller(request);
      const id = await findProductIdByCode(db, request.params.code);
      if (id === undefined) throw new HttpError(404, 'catalogue.productNotFound', { id: request.params.code.slice(0, 40) });
      const body = await details(request, reply, caller, id);
      catalogue.cacheFor(reply, caller);
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
      const caller = await catalogue.caller(request);
      await visibleBase(request, caller, request.params.id);
      const cards = await catalogue.cards(request, caller, await relatedProductIds(db, request.params.id));
      catalogue.cacheFor(reply, caller);
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
      const caller = await catalogue.caller(request);
      await visibleBase(request, caller, request.params.id);
      catalogue.cacheFor(reply, caller);
      return productAssets(db, request.params.id);
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
      const caller = await catalogue.caller(request);
      const base = await visibleBase(request, caller, request.params.id);
      const context = await catalogue.priceContext(request, caller, [base.id]);
      const fields = priceFields(base, context);
      const campaign = fields.source === 'campaign' ? await activeCampaignOf(db, base.id, caller, requestStore(request).code, request.actionTime, request.language) : null;
      catalogue.cacheFor(reply, caller);
      const { source: _source, ...wire } = fields;
      return {
        ...wire,
        vatRatePercent: base.pricing.vatRatePercent,
        currency: requestStore(request).currency,
        campaign: campaign && { ...campaign, validTo: campaign.validTo === null ? null : new Date(campaign.validTo).toISOString() },
      };
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
      const caller = await catalogue.caller(request);
      const base = await visibleBase(request, caller, request.params.id);
      const extras = await extrasOf(request, base.id);
      catalogue.cacheFor(reply, caller);
      return { availability: base.availability, deliveryTime: base.deliveryTime, stockCount: base.webStock, shops: extras?.availabilityByShop ?? [] };
    },
  );
};
