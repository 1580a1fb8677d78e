import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { pageOfList, pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { requestStore } from '../../http/request-context.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import type { CallerResolver } from '../catalogue/index.js';
import {
  BlogCategorySchema,
  BlogListQuery,
  BlogPostSchema,
  BlogPostSummarySchema,
  NewsListQuery,
  NewsSchema,
  NewsSummarySchema,
  PreviewQuery,
  SlugParams,
} from './blog.schemas.js';
import { getNews, getPost, listCategories, listNews, listPosts, type ContentContext } from './blog.service.js';
import { readModeOf } from './content-request.routes.js';

export interface ContentReadDeps {
  database: DatabaseHandle;
  caller: CallerResolver;
}

/** GET /blog, /blog/:slug, /blog-category, /news and /news/:slug. */
export const postRoutes: FastifyPluginAsyncTypebox<ContentReadDeps> = async (app, { database, caller }) => {
  const db = database.db;
  const contextOf = async (request: FastifyRequest, reply: FastifyReply, preview: string | undefined): Promise<ContentContext> => {
    const mode = await readModeOf(request, reply, db, caller, preview);
    const store = requestStore(request);
    return { store: store.code, language: request.language, storeDefaultLanguage: store.defaultLanguage, now: request.actionTime, mode };
  };
  const readErrors = errors(...storeRouteErrors, 401);

  app.get(
    '/blog',
    {
      schema: {
        tags: ['blog'],
        summary: "The store's blog posts in the caller's language, newest first; by category and tag",
        headers: StoreRequestHeaders,
        querystring: BlogListQuery,
        response: { 200: success(Type.Array(BlogPostSummarySchema), 'list'), ...readErrors },
      },
    },
    async (request, reply) => {
      const context = await contextOf(request, reply, request.query.preview);
      const page = pageRequest(request.query);
      const { category, tag } = request.query;
      const { items, total } = await listPosts(db, context, { ...(category && { category }), ...(tag && { tag }) }, page);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  app.get(
    '/blog/:slug',
    {
      schema: {
        tags: ['blog'],
        summary: 'One blog post, in its own language',
        headers: StoreRequestHeaders,
        params: SlugParams,
        querystring: PreviewQuery,
        response: { 200: success(BlogPostSchema), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => getPost(db, await contextOf(request, reply, request.query.preview), request.params.slug),
  );

  app.get(
    '/blog-category',
    {
      schema: {
        tags: ['blog'],
        summary: "The store's blog categories in display order",
        headers: StoreRequestHeaders,
        querystring: Type.Object({ ...NewsListQuery.properties }),
        response: { 200: success(Type.Array(BlogCategorySchema), 'list'), ...readErrors },
      },
    },
    async (request, reply) => {
      const context = await contextOf(request, reply, request.query.preview);
      return pageOfList(request, reply, request.query, await listCategories(db, context));
    },
  );

  app.get(
    '/news',
    {
      schema: {
        tags: ['news'],
        summary: "The store's news, newest first, in the asked language (else the store default, else Estonian)",
        headers: StoreRequestHeaders,
        querystring: NewsListQuery,
        response: { 200: success(Type.Array(NewsSummarySchema), 'list'), ...readErrors },
      },
    },
    async (request, reply) => {
      const context = await contextOf(request, reply, request.query.preview);
      const page = pageRequest(request.query);
      const { items, total } = await listNews(db, context, page);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  app.get(
    '/news/:slug',
    {
      schema: {
        tags: ['news'],
        summary: 'One news item',
        headers: StoreRequestHeaders,
        params: SlugParams,
        querystring: PreviewQuery,
        response: { 200: success(NewsSchema), ...errors(...storeRouteErrors, 401, 404) },
      },
    },
    async (request, reply) => getNews(db, await contextOf(request, reply, request.query.preview), request.params.slug),
  );
};
