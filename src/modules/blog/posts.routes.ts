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
import { readerOf, setReadCache, type Reader } from './content-request.routes.js';
import { nextWindowEdge, type WindowScope } from './window-edges.repository.js';

export interface ContentReadDeps {
  database: DatabaseHandle;
  caller: CallerResolver;
}

/** GET /blog, /blog/:slug, /blog-category, /news and /news/:slug. */
export const postRoutes: FastifyPluginAsyncTypebox<ContentReadDeps> = async (app, { database, caller }) => {
  const db = database.db;
  /** The reader and what the reads need; the answer is cached (cachedUntil) once it is known. */
  const contextOf = async (request: FastifyRequest, preview: string | undefined): Promise<ContentContext & { reader: Reader }> => {
    const reader = await readerOf(request, db, caller, preview);
    const store = requestStore(request);
    const now = request.actionTime;
    return { store: store.code, language: request.language, storeDefaultLanguage: store.defaultLanguage, now, mode: reader.mode, reader };
  };
  /** Cache headers for an answer that changes when an item of `scope` comes into or goes out of its window. */
  const cachedUntil = async (
    reply: FastifyReply,
    context: ContentContext & { reader: Reader },
    scope: Omit<WindowScope, 'store' | 'now'>,
  ) =>
    setReadCache(
      reply,
      context.reader,
      context.now,
      context.mode === 'preview' ? Infinity : await nextWindowEdge(db, { ...scope, store: context.store, now: context.now }),
    );
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
      const context = await contextOf(request, request.query.preview);
      const page = pageRequest(request.query);
      const { category, tag } = request.query;
      const { items, total } = await listPosts(db, context, { ...(category && { category }), ...(tag && { tag }) }, page);
      await cachedUntil(reply, context, { table: 'blog_post', language: context.language });
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
    async (request, reply) => {
      const context = await contextOf(request, request.query.preview);
      const post = await getPost(db, context, request.params.slug);
      await cachedUntil(reply, context, { table: 'blog_post', slug: request.params.slug });
      return post;
    },
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
      const context = await contextOf(request, request.query.preview);
      setReadCache(reply, context.reader, context.now);
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
      const context = await contextOf(request, request.query.preview);
      const page = pageRequest(request.query);
      const { items, total } = await listNews(db, context, page);
      await cachedUntil(reply, context, { table: 'news' });
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
    async (request, reply) => {
      const context = await contextOf(request, request.query.preview);
      const item = await getNews(db, context, request.params.slug);
      await cachedUntil(reply, context, { table: 'news', slug: request.params.slug });
      return item;
    },
  );
};
