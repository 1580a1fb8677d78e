import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { sendJsonText } from '../../http/serialization.js';
import { prefixOf } from './browse/browse.repository.js';
import type { NameListQuery } from './browse/browse.schemas.js';
import type { NameIndexReader } from './browse/name-index.service.js';
import { cacheFor, cacheUntil, catalogueContext } from './catalogue-request.routes.js';
import type { CatalogueRouteDeps } from './catalogue.deps.js';
import { IdParams, ProductCardSchema, type SortedPagingQuery } from './catalogue.schemas.js';
import type { CatalogueContext } from './catalogue.service.js';
import type { ProductFilter, ProductSort } from './product-query.js';

// Route shapes the catalogue's groups share: a name index (authors, publishers, series), a thing
// by id (read through a cached reader) with its product count, and its products (a person's, a
// campaign's, ...).

type App = Parameters<FastifyPluginAsyncTypebox>[0];

export interface NameIndex<Q extends TObject, E extends object, T> {
  url: string;
  tags: string[];
  summary: string;
  /** NameListQuery, or one with more filters. */
  querystring: Q;
  item: TSchema;
  /** The filters beyond the name (series: publisherId); their values are part of the cache key. */
  narrow?: (query: Static<Q>) => E;
  /** The index's pages and totals, cached (createNameIndex). */
  read: NameIndexReader<E, T>;
}

/** GET `url`: a name-ordered index of things with products the caller can see in the store. */
export function nameIndexRoute<Q extends TObject, E extends object, T>(
  app: App,
  { caller: callerOf }: CatalogueRouteDeps,
  index: NameIndex<Q, E, T>,
): void {
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
      const name = { storeCode: requestStore(request).code, caller, q: prefixOf(query.q), letter: prefixOf(query.letter) };
      const { items, total } = await index.read(name, narrowed, page);
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
export function entityRoute<T extends { id: number }>(
  app: App,
  { catalogue, caller: callerOf }: CatalogueRouteDeps,
  details: EntityDetails<T>,
): void {
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
export function productsRoute<P extends TObject, Q extends TObject>(
  app: App,
  { catalogue, caller: callerOf }: CatalogueRouteDeps,
  products: ProductsOf<P, Q>,
): void {
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
      const { query } = typed;
      const page = pageRequest(query);
      const { text, total, changesAt } = await catalogue.listPageText(context, filter, query.sort ?? products.defaultSort, page);
      cacheUntil(reply, context, changesAt);
      setPaginationHeaders(request, reply, page, total);
      return sendJsonText(reply, text);
    },
  );
}
