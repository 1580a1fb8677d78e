import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toRfc3339 } from '../../../db/time.js';
import { HttpError } from '../../../http/errors.js';
import { pageRequest, setPaginationHeaders, type PagingQuery } from '../../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import { boundedCache } from '../../../infra/bounded-cache.js';
import { cacheFor, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams } from '../catalogue.schemas.js';
import { cachedEntity } from '../lists.routes.js';
import { findPerson } from '../browse/person.repository.js';
import { countQuotes, quotePage, type QuoteFilter, type QuoteRow } from './quote.repository.js';
import { ProductQuotesQuery, QuoteQuery, QuoteSchema, type QUOTE_LANGUAGES } from './quote.schemas.js';
import { audienceKey } from '../visibility.js';

const response = { 200: success(Type.Array(QuoteSchema), 'list'), ...errors(...storeRouteErrors, 401, 404) };

interface QuoteListQuery extends PagingQuery {
  productId?: number;
  personId?: number;
  language?: (typeof QUOTE_LANGUAGES)[number];
}

const CACHE_ENTRIES = 20_000;

/** Product quotes: all of them, or a product's or a person's; in the reader's language when there are any. */
export const quoteRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, { database, catalogue, caller: callerOf, config }) => {
  const db = database.db;
  const ttl = config.catalogueCacheTtlMs;
  const personOf = cachedEntity(ttl, 'catalogue.personNotFound', (id) => findPerson(db, id));
  // Counts and pages are kept per filter like the other catalogue lists: the count checks every
  // quote's product for visibility.
  const counts = boundedCache<string, number>(ttl, CACHE_ENTRIES);
  const pages = boundedCache<string, QuoteRow[]>(ttl, CACHE_ENTRIES);
  const keyOf = (filter: QuoteFilter) =>
    JSON.stringify([filter.storeCode, audienceKey(filter.caller), filter.productId ?? null, filter.personId ?? null, filter.language ?? null]);
  const countOf = (filter: QuoteFilter) => counts.get(keyOf(filter), () => countQuotes(db, filter));

  async function list(request: FastifyRequest, reply: FastifyReply, query: QuoteListQuery) {
    const caller = await callerOf(request);
    const context = catalogueContext(request, caller);
    if (query.productId !== undefined && !(await catalogue.visibleBase(context, query.productId))) {
      throw new HttpError(404, 'catalogue.productNotFound', { id: query.productId });
    }
    if (query.personId !== undefined) await personOf(query.personId);
    let filter: QuoteFilter = {
      storeCode: context.store.code,
      caller,
      productId: query.productId,
      personId: query.personId,
      language: query.language === 'all' ? undefined : (query.language ?? request.language),
    };
    let total = await countOf(filter);
    // A product page in English still shows the book's Estonian quotes rather than none at all.
    if (total === 0 && query.language === undefined) {
      filter = { ...filter, language: undefined };
      total = await countOf(filter);
    }
    const page = pageRequest(query);
    const rows = total > page.offset ? await pages.get(`${keyOf(filter)}|${page.offset}|${page.perPage}`, () => quotePage(db, filter, page.offset, page.perPage)) : [];
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
