import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../../http/errors.js';
import { pageRequest, setPaginationHeaders } from '../../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../../http/schemas.js';
import type { Caller } from '../caller.js';
import { cacheFor as catalogueCacheFor, catalogueContext } from '../catalogue-request.routes.js';
import type { CatalogueRouteDeps } from '../catalogue.deps.js';
import { IdParams } from '../catalogue.schemas.js';
import { CommentForm, CommentParams, CommentSchema, CommentsQuery, RatingForm, RatingSummarySchema } from './comment.schemas.js';
import {
  COMMENT_RESUBMIT_WINDOW_MS,
  commentText,
  createComment,
  deleteComment,
  listComments,
  ratingSummary,
  setRating,
  toCommentWire,
} from './comment.service.js';

const tags = ['product comments and ratings'];
const readErrors = errors(...storeRouteErrors, 401, 404);
const bodyErrors = errors(...storeRouteErrors, 401, 404, 413, 415, 422);

const STALE_CARDS =
  'The rating on product cards and details comes from the catalogue cache and may show the old ' +
  'value for up to CATALOGUE_CACHE_TTL_MS (30 s by default) after a change.';

/**
 * Comments and ratings of a product. Anyone may read them; any client account of the store (retail,
 * business or wholesale) may write them with its bearer token. One rating per client and product;
 * the product's rating_sum/rating_count change in the same transaction as the rating.
 */
export const commentRoutes: FastifyPluginAsyncTypebox<CatalogueRouteDeps> = async (app, { database, catalogue, caller: callerOf }) => {
  const db = database.db;

  /** 404 when the product is missing, outside the store's assortment or hidden from the caller. */
  async function requireVisible(request: FastifyRequest, caller: Caller, id: number): Promise<void> {
    if (!(await catalogue.visibleBase(catalogueContext(request, caller), id)))
      throw new HttpError(404, 'catalogue.productNotFound', { id });
  }

  /** The caller's client account; a 401 for a guest (and, from caller(), for a bad token). */
  async function client(request: FastifyRequest): Promise<{ caller: Caller; clientAccountId: number }> {
    const caller = await callerOf(request);
    if (caller.clientAccountId === null) {
      throw new HttpError(401, 'catalogue.loginRequired', {}, { 'WWW-Authenticate': 'Bearer realm="storefront"' });
    }
    return { caller, clientAccountId: caller.clientAccountId };
  }

  /**
   * As every catalogue answer, but a retail client's answer (which marks their own comments and
   * rating) is revalidated on each use: after writing, the client must see the change at once,
   * and the ETag keeps an unchanged answer a cheap 304.
   */
  function cacheFor(reply: FastifyReply, caller: Caller): void {
    catalogueCacheFor(reply, caller);
    if (caller.kind === 'SIMPLE') reply.header('Cache-Control', 'private, no-cache');
  }

  app.get(
    '/product/:id/comments',
    {
      schema: {
        tags,
        summary: "The product's comments, newest first, with each author's rating",
        description: "Guests get a publicly cacheable answer (60 s); with a bearer token `own` marks the caller's comments.",
        headers: StoreRequestHeaders,
        security: [{}, { bearer: [] }],
        params: IdParams,
        querystring: CommentsQuery,
        response: { 200: success(Type.Array(CommentSchema), 'list'), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const { id } = request.params;
      await requireVisible(request, caller, id);
      const page = pageRequest(request.query);
      const { total, rows } = await listComments(db, { productId: id, language: request.query.language }, page.offset, page.perPage);
      setPaginationHeaders(request, reply, page, total);
      cacheFor(reply, caller);
      return rows.map((row) => toCommentWire(row, caller.clientAccountId, request.language));
    },
  );

  app.post(
    '/product/:id/comments',
    {
      schema: {
        tags,
        summary: 'Comment on the product; with `rating`, rate it too',
        description:
          "The author name is the user's first name and the initial of the last name. At most 10 new comments " +
          'per client account in 10 minutes (429 with Retry-After past that). The same body from the same client on the same ' +
          `product again within ${COMMENT_RESUBMIT_WINDOW_MS / 60_000} minutes (a double click, a retry, other stars clicked) answers the first ` +
          'comment, 201 as before, and writes no second one; a `rating` sent with it is still the rating (as PUT /product/{id}/rating), ' +
          `which the comment then shows. ${STALE_CARDS}`,
        headers: StoreRequestHeaders,
        security: [{ bearer: [] }],
        params: IdParams,
        body: CommentForm,
        response: { 201: success(CommentSchema), ...bodyErrors, ...errors(429) },
      },
    },
    async (request, reply) => {
      const { caller, clientAccountId } = await client(request);
      const { id } = request.params;
      await requireVisible(request, caller, id);
      const input = {
        productId: id,
        clientAccountId,
        body: commentText(request.body.body),
        rating: request.body.rating,
        language: request.language,
        now: request.actionTime,
      };
      const row = await db.transaction().execute((trx) => createComment(trx, input));
      return reply.code(201).send(toCommentWire(row, clientAccountId, request.language));
    },
  );

  app.delete(
    '/product/:id/comments/:commentId',
    {
      schema: {
        tags,
        summary: "Delete one of the caller's own comments",
        description: "Another client's comment is a 404 exactly like a missing one. The author's rating stays.",
        headers: StoreRequestHeaders,
        security: [{ bearer: [] }],
        params: CommentParams,
        response: { 204: success(Type.Null({ description: 'Deleted' })), ...readErrors },
      },
    },
    async (request, reply) => {
      const { caller, clientAccountId } = await client(request);
      const { id, commentId } = request.params;
      await requireVisible(request, caller, id);
      await deleteComment(db, id, commentId, clientAccountId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/product/:id/rating',
    {
      schema: {
        tags,
        summary: "The product's average rating and count, and the caller's own rating",
        headers: StoreRequestHeaders,
        security: [{}, { bearer: [] }],
        params: IdParams,
        response: { 200: success(RatingSummarySchema), ...readErrors },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      await requireVisible(request, caller, request.params.id);
      const summary = await ratingSummary(db, request.params.id, caller.clientAccountId);
      cacheFor(reply, caller);
      return summary;
    },
  );

  app.put(
    '/product/:id/rating',
    {
      schema: {
        tags,
        summary: "Set the caller's rating of the product (one per client account; a new one replaces the old)",
        description: STALE_CARDS,
        headers: StoreRequestHeaders,
        security: [{ bearer: [] }],
        params: IdParams,
        body: RatingForm,
        response: { 200: success(RatingSummarySchema), ...bodyErrors },
      },
    },
    async (request) => {
      const { caller, clientAccountId } = await client(request);
      await requireVisible(request, caller, request.params.id);
      const { rating } = request.body;
      return db.transaction().execute((trx) => setRating(trx, request.params.id, clientAccountId, rating, request.actionTime));
    },
  );

  app.delete(
    '/product/:id/rating',
    {
      schema: {
        tags,
        summary: "Remove the caller's rating of the product; answers the totals without it",
        description: `Succeeds also when the caller had no rating. ${STALE_CARDS}`,
        headers: StoreRequestHeaders,
        security: [{ bearer: [] }],
        params: IdParams,
        response: { 200: success(RatingSummarySchema), ...readErrors },
      },
    },
    async (request) => {
      const { caller, clientAccountId } = await client(request);
      await requireVisible(request, caller, request.params.id);
      return db.transaction().execute((trx) => setRating(trx, request.params.id, clientAccountId, null, request.actionTime));
    },
  );
};
