import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../http/errors.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import type { MessageKey } from '../../i18n/index.js';
import { boundedCache } from '../../infra/bounded-cache.js';
import { cachedPage, prefixOf, type NameFilter } from './browse/browse.repository.js';
import type { NameListQuery } from './browse/browse.schemas.js';
import { cacheFor, catalogueContext } from './catalogue-request.routes.js';
import type { CatalogueRouteDeps } from './catalogue.deps.js';
import { IdParams, ProductCardSchema, type SortedPagingQuery } from './catalogue.schemas.js';
import type { CatalogueContext } from './catalogue.service.js';
import type { ProductFilter, ProductSort } from './product-query.js';
import { audienceKey } from './visibility.js';

// Route shapes the catalogue's groups share: a name index (authors, publishers, series), a cached
// thing by id with its 404, the thing with its product count, and its products (a person's, a
// campaign's, ...).

type App = Parameters<FastifyPluginAsyncTypebox>[0];

const CACHE_ENTRIES = 20_000;

/** A thing by id, kept for the cache period (misses too); a 404 with `notFound` when there is none. */
export function cachedEntity<T>(ttlMs: number, notFound: MessageKey, load: (id: number) => Promise<T | undefined>): (id: number) => Promise<T> {
  const cache = boundedCache<number, T | null>(ttlMs, CACHE_ENTRIES);
  return async (id) => {
    const found = await cache.get(id, async () => (await load(id)) ?? null);
    if (!found) throw new HttpError(404, notFound, { id });
    return found;
  };
}

export interface NameIndex<Q extends TObject, E extends object, T> {
  url: string;
  tags: string[];
  summary: string;
  /** NameListQuery, or one with more filters. */
  querystring: Q;
  item: TSchema;
  /** The filters beyond the name (series: publisherId); their values are part of the cache key. */
  narrow?: (query: Static<Q>) => E;
  count(filter: NameFilter & E): Promise<number>;
  page(filter: NameFilter & E, offset: number, limit: number): Promise<T[]>;
}

/** GET `url`: a name-ordered index of things with products the caller can see in the store. */
export function nameIndexRoute<Q extends TObject, E extends object, T>(app: App, { caller: callerOf, config }: CatalogueRouteDeps, index: NameIndex<Q, E, T>): void {
  // An index counts its entries with an EXISTS each: kept like the product lists' totals.
  const ttl = config.catalogueListCacheTtlMs;
  const caches = { counts: boundedCache<string, number>(ttl, CACHE_ENTRIES), pages: boundedCache<string, T[]>(ttl, CACHE_ENTRIES) };
  app.get(
    index.url,
    {
      schema: {
        tags: index.tags,
        summary: index.summary,
        headers: StoreRequestHeaders,
        querystring: index.querystring,
        response: { 200: success(Type.Array(index.item), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const query = request.query as Static<Q> & NameListQuery;
      const page = pageRequest(query);
      const narrowed = index.narrow?.(query) ?? ({} as E);
      const filter = { storeCode: requestStore(request).code, caller, q: prefixOf(query.q), letter: prefixOf(query.letter), ...narrowed };
      const key = JSON.stringify([filter.storeCode, audienceKey(caller), filter.q ?? null, filter.letter ?? null, ...Object.values(narrowed).map((value) => value ?? null)]);
      const { items, total } = await cachedPage(
        caches,
        key,
        page,
        () => index.count(filter),
        (offset, limit) => index.page(filter, offset, limit),
      );
      cacheFor(reply, caller);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );
}

export interface EntityDetails<T extends { id: number }> {
  url: string;
  tags: string[];
  summary: string;
  item: TSchema;
  entityOf(id: number): Promise<T>;
  /** The entity's products, whose visible count the answer has as productCount. */
  products(entity: T): ProductFilter;
  /** More fields read beside the count (a person's roles). */
  more?: (context: CatalogueContext, entity: T) => Promise<object>;
}

/** GET `url` (`/.../:id`): the entity, 404 when there is none, with the number of its products the caller can see. */
export function entityRoute<T extends { id: number }>(app: App, { catalogue, caller: callerOf }: CatalogueRouteDeps, details: EntityDetails<T>): void {
  app.get(
    details.url,
    {
      schema: {
        tags: details.tags,
        summary: details.summary,
        headers: StoreRequestHeaders,
        params: IdParams,
        response: { 200: success(details.item), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const context = catalogueContext(request, caller);
      const entity = await details.entityOf(request.params.id);
      const [count, more] = await Promise.all([catalogue.productCount(context, details.products(entity)), details.more?.(context, entity)]);
      cacheFor(reply, caller);
      return { ...entity, ...more, productCount: count };
    },
  );
}

export interface ProductsOf<P extends TObject, Q extends TObject> {
  url: string;
  tags: string[];
  summary: string;
  params: P;
  /** SortedPagingQuery, or one with more parameters. */
  querystring: Q;
  defaultSort: ProductSort;
  /** The products' filter; a 404 when the thing is not there for the caller. */
  filter(input: { params: Static<P>; query: Static<Q> }, context: CatalogueContext): Promise<ProductFilter>;
}

/** GET `url`: one page of the products of a thing, priced for the caller. */
export function productsRoute<P extends TObject, Q extends TObject>(app: App, { catalogue, caller: callerOf }: CatalogueRouteDeps, products: ProductsOf<P, Q>): void {
  app.get(
    products.url,
    {
      schema: {
        tags: products.tags,
        summary: products.summary,
        headers: StoreRequestHeaders,
        params: products.params,
        querystring: products.querystring,
        response: { 200: success(Type.Array(ProductCardSchema), 'list'), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const context = catalogueContext(request, caller);
      // The compiler cannot resolve the request's types for any schema: they are the schemas' static types.
      const typed = request as unknown as FastifyRequest & { params: Static<P>; query: Static<Q> & SortedPagingQuery };
      const filter = await products.filter(typed, context);
      cacheFor(reply, caller);
      const { query } = typed;
      const page = pageRequest(query);
      const { cards, total } = await catalogue.listPage(context, filter, query.sort ?? products.defaultSort, page);
      setPaginationHeaders(request, reply, page, total);
      return cards;
    },
  );
}
