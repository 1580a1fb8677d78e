import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TObject, type TSchema, type TString } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pageRequest, PagingQuery, setPaginationHeaders } from '../../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import { cacheUntil, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams, SortedPagingQuery } from '../catalogue.schemas.js';
import { productsRoute } from '../lists.routes.js';
import type { ProductFilter } from '../product-query.js';
import type { ByIdOrCode } from './store-list.repository.js';
import { createStoreListReader, type StoreListSource } from './store-lists.service.js';

// The routes of the store's curated lists (campaigns, product lists): all of them in display
// order, one by id or by back-office code, and its products. The two differ only in what they read.

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** One kind of list: what it reads (StoreListSource; `toWire` gives `item`'s shape) and its routes. */
export interface StoreLists<Row extends { id: number }, Wire extends { id: number }> extends StoreListSource<Row, Wire> {
  /** `/campaign`: the list's path, and the others below it. */
  path: string;
  tags: string[];
  item: TSchema;
  codeParams: TObject<{ code: TString }>;
  summaries: { list: string; one: string; byCode: string; products: string; productsByCode?: string };
  products(id: number): ProductFilter;
}

export function storeListRoutes<Row extends { id: number }, Wire extends { id: number }>(
  app: App,
  deps: CatalogueRouteDeps,
  lists: StoreLists<Row, Wire>,
): void {
  const { caller: callerOf, config } = deps;
  const { shown, page: listPage } = createStoreListReader(lists, config.catalogueCacheTtlMs);

  app.get(
    lists.path,
    {
      schema: {
        tags: lists.tags,
        summary: lists.summaries.list,
        headers: StoreRequestHeaders,
        querystring: PagingQuery,
        response: { 200: success(Type.Array(lists.item), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const context = catalogueContext(request, caller);
      const page = pageRequest(request.query);
      const {
        value: { items, total },
        changesAt,
      } = await listPage(context, page.offset, page.perPage);
      cacheUntil(reply, context, changesAt);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  async function one(request: FastifyRequest, reply: FastifyReply, by: ByIdOrCode): Promise<Wire> {
    const caller = await callerOf(request);
    const context = catalogueContext(request, caller);
    const { value: list, changesAt } = await shown(context, by);
    cacheUntil(reply, context, changesAt);
    return list;
  }
  const oneSchema = (summary: string) => ({
    tags: lists.tags,
    summary,
    headers: StoreRequestHeaders,
    response: { 200: success(lists.item), ...errors(...storeRouteErrors, 401, 404) },
  });
  app.get(`${lists.path}/:id`, { schema: { ...oneSchema(lists.summaries.one), params: IdParams } }, (request, reply) =>
    one(request, reply, { id: request.params.id }),
  );
  app.get(`${lists.path}/code/:code`, { schema: { ...oneSchema(lists.summaries.byCode), params: lists.codeParams } }, (request, reply) =>
    one(request, reply, { code: request.params.code }),
  );

  const productsOf = (summary: string) => ({ tags: lists.tags, summary, querystring: SortedPagingQuery, defaultSort: 'position' as const });
  productsRoute(app, deps, {
    ...productsOf(lists.summaries.products),
    url: `${lists.path}/:id/products`,
    params: IdParams,
    filter: async ({ params }, context) => lists.products((await shown(context, { id: params.id })).value.id),
  });
  if (lists.summaries.productsByCode !== undefined) {
    productsRoute(app, deps, {
      ...productsOf(lists.summaries.productsByCode),
      url: `${lists.path}/code/:code/products`,
      params: lists.codeParams,
      filter: async ({ params }, context) => lists.products((await shown(context, { code: params.code })).value.id),
    });
  }
}
