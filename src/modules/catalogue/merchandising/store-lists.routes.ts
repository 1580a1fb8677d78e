import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TObject, type TSchema, type TString } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../../http/errors.js';
import { pageRequest, PagingQuery, setPaginationHeaders } from '../../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import type { MessageKey } from '../../../i18n/index.js';
import { boundedCache } from '../../../infra/bounded-cache.js';
import { cacheFor, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams, SortedPagingQuery } from '../catalogue.schemas.js';
import type { CatalogueContext } from '../catalogue.service.js';
import { productsRoute } from '../lists.routes.js';
import type { ProductFilter } from '../product-query.js';
import { audienceKey } from '../visibility.js';
import type { ByIdOrCode } from './store-list.repository.js';

// The routes of the store's curated lists (campaigns, product lists): all of them in display
// order, one by id or by back-office code, and its products. The two differ only in what they read.

const CACHE_ENTRIES = 2_000;

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** What one kind of list reads; `toWire` gives `item`'s shape. */
export interface StoreLists<Row extends { id: number }, Wire extends { id: number }> {
  /** `/campaign`: the list's path, and the others below it. */
  path: string;
  tags: string[];
  item: TSchema;
  codeParams: TObject<{ code: TString }>;
  notFound: MessageKey;
  summaries: { list: string; one: string; byCode: string; products: string; productsByCode?: string };
  /** A page of the lists the store shows, in display order, and how many there are. */
  page(context: CatalogueContext, offset: number, limit: number): Promise<{ rows: Row[]; total: number }>;
  /** The list if the store shows it (active, and for a campaign running now). */
  find(context: CatalogueContext, by: ByIdOrCode): Promise<Row | undefined>;
  /** How many products of each list the caller can see. */
  productCounts(context: CatalogueContext, ids: number[]): Promise<Map<number, number>>;
  toWire(row: Row, productCount: number): Wire;
  products(id: number): ProductFilter;
}

export function storeListRoutes<Row extends { id: number }, Wire extends { id: number }>(
  app: App,
  deps: CatalogueRouteDeps,
  lists: StoreLists<Row, Wire>,
): void {
  const { caller: callerOf, config } = deps;
  const pages = boundedCache<string, { items: Wire[]; total: number }>(config.catalogueCacheTtlMs, CACHE_ENTRIES);
  const single = boundedCache<string, Wire | null>(config.catalogueCacheTtlMs, CACHE_ENTRIES);
  const scopeKey = ({ store, language, caller }: CatalogueContext) => `${store.code}|${language}|${audienceKey(caller)}`;

  async function withCounts(context: CatalogueContext, rows: Row[]): Promise<Wire[]> {
    const counts = await lists.productCounts(context, rows.map((row) => row.id));
    return rows.map((row) => lists.toWire(row, counts.get(row.id) ?? 0));
  }

  /** The list if the store shows it; 404 otherwise (inactive, unknown, another store's, not running). */
  async function shown(context: CatalogueContext, by: ByIdOrCode): Promise<Wire> {
    const key = `${scopeKey(context)}|${'id' in by ? `i${by.id}` : `c${by.code}`}`;
    const list = await single.get(key, async () => {
      const row = await lists.find(context, by);
      return row ? ((await withCounts(context, [row]))[0] ?? null) : null;
    });
    if (!list) throw new HttpError(404, lists.notFound, { id: 'id' in by ? by.id : by.code.slice(0, 40) });
    return list;
  }

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
      const { items, total } = await pages.get(`${scopeKey(context)}|${page.offset}|${page.perPage}`, async () => {
        const { rows, total: count } = await lists.page(context, page.offset, page.perPage);
        return { items: await withCounts(context, rows), total: count };
      });
      cacheFor(reply, caller);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  async function one(request: FastifyRequest, reply: FastifyReply, by: ByIdOrCode): Promise<Wire> {
    const caller = await callerOf(request);
    const list = await shown(catalogueContext(request, caller), by);
    cacheFor(reply, caller);
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
    filter: async ({ params }, context) => lists.products((await shown(context, { id: params.id })).id),
  });
  if (lists.summaries.productsByCode !== undefined) {
    productsRoute(app, deps, {
      ...productsOf(lists.summaries.productsByCode),
      url: `${lists.path}/code/:code/products`,
      params: lists.codeParams,
      filter: async ({ params }, context) => lists.products((await shown(context, { code: params.code })).id),
    });
  }
}
