import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { registerConditionalGet, setCacheHeaders } from '../../http/http-cache.js';
import { registerGuestResponseCache } from '../../http/response-cache.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { authenticateOperator } from '../admin/index.js';
import { cacheAudienceOf, callerResolver, catalogueContext, GUEST, GUEST_ANSWERS, type Caller } from '../catalogue/index.js';
import { HEADER_PLACEMENT } from './banners.service.js';
import { contentAdminRoutes } from './content-admin.routes.js';
import type { ContentContext, ContentReadDeps } from './content-read.types.js';
import { audienceAt, type Audience } from './published.js';
import {
  BannerSchema,
  BlockPageSchema,
  CategoryIdParams,
  ContentPageSchema,
  DiscountPageQuery,
  DiscountPageSchema,
  MegaMenuSchema,
  PreviewQuery,
  SlugParams,
} from './content.schemas.js';
import { blockPage, contentPage, discountPage, headerBanners, megaMenu } from './content.service.js';

export interface ContentDeps extends ContentReadDeps {
  /** How long a guest's answer is kept in this process (the catalogue's TTL: a page shows its products' prices); 0: never. */
  guestAnswerTtlMs: number;
}

/** A client's token for their prices, or an operator's API key with `preview`. */
const OPTIONAL_BEARER: Array<Record<string, string[]>> = [{}, { bearer: [] }];

/** How long a shared cache or browser may keep a public content answer (pages change rarely). */
export const CONTENT_MAX_AGE_SECONDS = 600;

/**
 * Cache headers of content (pages, blog, news, schedules, QR codes), by the catalogue's rule: a
 * guest's answer is public, a retail customer's private (its product cards carry their own
 * discount), business and wholesale answers are never stored.
 */
export function contentCacheFor(reply: FastifyReply, customerKind: Caller['kind'], maxAgeSeconds = CONTENT_MAX_AGE_SECONDS): void {
  setCacheHeaders(reply, cacheAudienceOf(customerKind), maxAgeSeconds);
}

/**
 * A preview is never stored; any other answer no longer than until something it shows starts or
 * ends (a page's, block's or banner's window, a campaign, a campaign price of a product on it).
 */
function setContentCache(reply: FastifyReply, caller: Caller | 'preview', audience: Audience): void {
  if (caller === 'preview') reply.header('Cache-Control', 'no-store');
  else contentCacheFor(reply, caller.kind, maxAgeUntil(audience));
}

/** Whole seconds from the answer's time to its first change, at most CONTENT_MAX_AGE_SECONDS. */
function maxAgeUntil({ now, changesAt }: Audience): number {
  return Math.min(CONTENT_MAX_AGE_SECONDS, Math.max(0, Math.floor((changesAt - now) / 1000)));
}

/**
 * Content reads: content pages, composite, category, discount and main pages, header banners and
 * the mega menu. `?preview=1` with an operator API key as the bearer token shows drafts and items
 * outside their window (as a guest sees the catalogue); without a valid key it is a 401.
 */
export const contentRoutes: FastifyPluginAsyncTypebox<ContentDeps> = async (app, deps) => {
  const callerOf = callerResolver(deps.database);
  registerConditionalGet(app);
  // Most readers are guests reading the same few pages: their answers are kept for a short while.
  registerGuestResponseCache(app, { ttlMs: deps.guestAnswerTtlMs, maxEntries: GUEST_ANSWERS });

  async function read<T>(
    request: FastifyRequest & { query: { preview?: string } },
    reply: FastifyReply,
    answer: (context: ContentContext) => Promise<T>,
  ): Promise<T> {
    const preview = request.query.preview === '1' || request.query.preview === 'true';
    if (preview) await authenticateOperator(deps.database.db, request);
    const caller = preview ? GUEST : await callerOf(request);
    const store = requestStore(request);
    const context: ContentContext = {
      catalogue: catalogueContext(request, caller),
      defaultLanguage: store.defaultLanguage,
      audience: audienceAt(request.actionTime, preview),
    };
    const result = await answer(context);
    setContentCache(reply, preview ? 'preview' : caller, context.audience);
    return result;
  }

  const schema = <Q extends TSchema, R extends TSchema>(tags: string, summary: string, querystring: Q, response: R, notFound = true) => ({
    tags: [tags],
    summary,
    headers: StoreRequestHeaders,
    querystring,
    security: OPTIONAL_BEARER,
    response: { 200: success(response), ...errors(...storeRouteErrors, 401, ...(notFound ? [404] : [])) },
  });

  app.get(
    '/content-page/:slug',
    {
      schema: {
        params: SlugParams,
        ...schema('content pages', 'A content page: title, sanitized HTML body, SEO texts', PreviewQuery, ContentPageSchema),
      },
    },
    (request, reply) => read(request, reply, (context) => contentPage(deps, context, request.params.slug)),
  );
  app.get(
    '/composite-page/:slug',
    {
      schema: {
        params: SlugParams,
        ...schema('composite pages', 'A page of ordered blocks; product blocks priced for the caller', PreviewQuery, BlockPageSchema),
      },
    },
    (request, reply) => read(request, reply, (context) => blockPage(deps, context, { kind: 'COMPOSITE', slug: request.params.slug })),
  );
  app.get(
    '/category-page/:categoryId',
    {
      schema: {
        params: CategoryIdParams,
        ...schema('category landing pages', "A category's landing page of ordered blocks", PreviewQuery, BlockPageSchema),
      },
    },
    (request, reply) =>
      read(request, reply, (context) => blockPage(deps, context, { kind: 'CATEGORY', categoryId: request.params.categoryId })),
  );
  app.get(
    '/discount-page/:slug',
    {
      schema: {
        params: SlugParams,
        ...schema(
          'discount landing pages',
          "A campaign's landing page: blocks, the campaign and a page of its products",
          DiscountPageQuery,
          DiscountPageSchema,
        ),
        response: { 200: success(DiscountPageSchema, 'list'), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => {
      const page = pageRequest(request.query);
      const { page: answer, total } = await read(request, reply, (context) => discountPage(deps, context, request.params.slug, page));
      setPaginationHeaders(request, reply, page, total);
      return answer;
    },
  );
  app.get(
    '/main-page',
    {
      schema: schema('main page blocks', "The store's home page blocks, resolved for the caller", PreviewQuery, BlockPageSchema),
    },
    (request, reply) => read(request, reply, (context) => blockPage(deps, context, { kind: 'MAIN' })),
  );
  app.get(
    '/header-banner',
    {
      schema: schema(
        'header banners',
        'Header banners shown now to this kind of customer, in order',
        PreviewQuery,
        Type.Array(BannerSchema),
        false,
      ),
    },
    (request, reply) => read(request, reply, (context) => headerBanners(deps, context, HEADER_PLACEMENT)),
  );
  app.get(
    '/mega-menu',
    {
      schema: schema('mega menu', 'The category tree with featured links, and the menu banners', PreviewQuery, MegaMenuSchema, false),
    },
    (request, reply) => read(request, reply, (context) => megaMenu(deps, context)),
  );

  await app.register(contentAdminRoutes, { database: deps.database });
};
