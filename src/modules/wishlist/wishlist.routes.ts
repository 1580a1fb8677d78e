import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DatabaseHandle } from '../../db/database.js';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, storeRouteErrors, success } from '../../http/schemas.js';
import { callerResolver, catalogueContext, type Catalogue } from '../catalogue/index.js';
import type { SessionActionRecorder } from '../tracking/index.js';
import { AddToWishlistBody, WishlistHeaders, WishlistItemSchema, WishlistProductParams, WishlistQuery } from './wishlist.schemas.js';
import {
  addToWishlist,
  hiddenItems,
  isWishlistFull,
  removeFromWishlist,
  wishlistItems,
  wishlistProduct,
  type WishlistItem,
  type WishlistPageItem,
} from './wishlist.service.js';
import { wishlistItemsReader } from './wishlist.repository.js';
import { toIsoTimestamp } from '../../db/time.js';
import { jsonBytes, sendJsonText } from '../../http/serialization.js';
import { registerNoStore } from '../../http/http-cache.js';

export interface WishlistDeps {
  database: DatabaseHandle;
  /** The app's one catalogue: its cards, visibility and prices. */
  catalogue: Catalogue;
  /** Adding a product records ADD_TO_WISHLIST. */
  sessionActions: SessionActionRecorder;
}

const tags = ['wishlist'];
const security = [{ bearer: [] }];
const wire = (item: WishlistItem) => ({ addedAt: toIsoTimestamp(item.addedAt), product: item.product });

/**
 * A page as the JSON text of its schema (an array of WishlistItemSchema), from cards already
 * written as text by the catalogue: the serializer would write the same 50 cards field by field.
 */
function pageText(items: readonly WishlistPageItem[]): Buffer {
  const pieces: Array<Buffer | string> = ['['];
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i]!;
    pieces.push((i === 0 ? '{"addedAt":"' : ',{"addedAt":"') + toIsoTimestamp(item.addedAt) + '","product":', item.cardText, '}');
  }
  pieces.push(']');
  return jsonBytes(pieces);
}

/**
 * The logged-in client's wishlist in the request's store. Every answer is `no-store`. POST is
 * idempotent: 201 when it added the product, 200 when it was there already, the same body.
 * DELETE is idempotent too: 204 whether or not the product was on the list.
 */
export const wishlistRoutes: FastifyPluginAsyncTypebox<WishlistDeps> = async (app, { database, catalogue, sessionActions }) => {
  const db = database.db;
  const callerOf = callerResolver(database);
  const readItems = wishlistItemsReader(database);
  registerNoStore(app);

  app.get(
    '/wishlist',
    {
      schema: {
        tags,
        summary: 'The wishlist, newest first, paged; products the caller may no longer see are left out',
        headers: WishlistHeaders,
        querystring: WishlistQuery,
        security,
        response: { 200: success(Type.Array(WishlistItemSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const context = catalogueContext(request, await callerOf(request));
      const page = pageRequest(request.query);
      const { items, total } = await wishlistItems(readItems, catalogue, context, page);
      setPaginationHeaders(request, reply, page, total);
      return sendJsonText(reply, pageText(items));
    },
  );

  app.post(
    '/wishlist',
    {
      schema: {
        tags,
        summary: 'Adds a product (records ADD_TO_WISHLIST); 201 when added, 200 when it was there already',
        headers: WishlistHeaders,
        body: AddToWishlistBody,
        security,
        response: {
          200: success(WishlistItemSchema),
          201: success(WishlistItemSchema),
          ...errors(...storeRouteErrors, 401, 404, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const context = catalogueContext(request, await callerOf(request));
      // The card is read first: the catalogue reads outside the transaction (one connection on SQLite).
      const product = await wishlistProduct(catalogue, context, request.body.productId);
      const add = (hidden?: readonly number[]) => db.transaction().execute((trx) => addToWishlist(trx, context, product, hidden));
      // Found full, the list is read with the catalogue's eyes and tried again giving up its hidden products.
      const { created, addedAt } = await add().catch(async (error: unknown) => {
        if (!isWishlistFull(error)) throw error;
        return add(await hiddenItems(readItems, catalogue, context));
      });
      const item = { addedAt, product };
      const session = request.headers['x-session-id'];
      sessionActions.record({
        sessionId: typeof session === 'string' ? session : '',
        storeCode: context.store.code,
        productCode: item.product.code,
        clientCode: context.caller.clientCode,
        actionType: 'ADD_TO_WISHLIST',
        createdAt: context.now,
      });
      return reply.code(created ? 201 : 200).send(wire(item));
    },
  );

  app.delete(
    '/wishlist/:productId',
    {
      schema: {
        tags,
        summary: 'Removes a product from the wishlist; 204 also when it was not on it',
        headers: WishlistHeaders,
        params: WishlistProductParams,
        security,
        response: { 204: Type.Null({ description: 'Removed (or was not there)' }), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const context = catalogueContext(request, await callerOf(request));
      await removeFromWishlist(db, context, request.params.productId);
      return reply.code(204).send(null);
    },
  );
};
