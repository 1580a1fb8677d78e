import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { requestStore } from '../../http/request-context.js';
import { pageRequest, PagingQuery, setPaginationHeaders } from '../../http/paging.js';
import { errors, StoreRequestHeaders, storeRouteErrors, success } from '../../http/schemas.js';
import { registerNoStore } from '../../http/http-cache.js';
import { DownloadIdParams, DownloadLinkSchema, DownloadSchema, orderDownloads } from '../downloads/index.js';
import { giftOrderOf } from './gift-downloads.service.js';
import type { giftKeys } from './gift-key.js';
import type { OrdersHttp } from './orders.deps.js';

const tags = ['orders'];

const GiftKeyParams = Type.Object({
  key: Type.String({
    maxLength: 120,
    description: "The key of the receiver's order mail (its link to the front-end's GIFT_DOWNLOADS_PATH)",
  }),
});

/**
 * The e-books and audiobooks an order bought for someone else, for its receiver: the key of the receiver's
 * order mail lists the order's files and gives links to them, counted against the purchase's downloads as
 * the buyer's are, and shows nothing else of the order. A wrong key counts against the address as a wrong
 * checksum does; an expired one, or one whose receiver's data was erased since, is a 403.
 */
export const giftDownloadsRoutes: FastifyPluginAsyncTypebox<OrdersHttp & { giftKeys: ReturnType<typeof giftKeys> }> = async (app, deps) => {
  const db = deps.database.db;
  const files = orderDownloads(db, {
    downloads: deps.config.downloads,
    basePath: deps.config.basePath,
    publicUrl: deps.config.orders.publicUrl,
  });
  registerNoStore(app);

  /** The order whose downloads the request's key gives now (gift-downloads.service.ts). */
  const giftOrder = (request: FastifyRequest & { params: { key: string } }) =>
    giftOrderOf(db, deps.giftKeys, deps.guesses, {
      key: request.params.key,
      storeCode: requestStore(request).code,
      ip: request.ip,
      now: request.actionTime,
    });

  app.get(
    '/gift-download/:key',
    {
      schema: {
        tags,
        summary: 'The e-books and audiobooks an order bought for someone else, for its receiver (the key of their order mail), paged',
        description:
          "The order's files as GET /order/{code}/download lists them, for whoever holds the receiver's key: nothing else of the order. " +
          'Empty once the order is given up (its downloads end). 404 for a key that is not genuine (counted against the address as a ' +
          "wrong checksum), or of an order of another store than the store header's; 403 for one past its time (GIFT_DOWNLOAD_TTL after the order's processing), or whose receiver's data was erased.",
        headers: StoreRequestHeaders,
        params: GiftKeyParams,
        querystring: PagingQuery,
        response: { 200: success(Type.Array(DownloadSchema), 'list'), ...errors(...storeRouteErrors, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const page = pageRequest(request.query);
      const { items, total } = await files.list({ id: await giftOrder(request), clientAccountId: null }, page);
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  app.get(
    '/gift-download/:key/:id/link',
    {
      schema: {
        tags,
        summary: 'A signed link to one of the files of GET /gift-download/{key}, valid for a few minutes',
        description:
          'As GET /order/{code}/download/{id}/link: the link counts one download of the purchase at its first use, against the same ' +
          "DOWNLOAD_LIMIT as the buyer's (403 past it). An id that is not one of the order's is a 404.",
        headers: StoreRequestHeaders,
        params: Type.Composite([GiftKeyParams, DownloadIdParams]),
        response: { 200: success(DownloadLinkSchema), ...errors(...storeRouteErrors, 403, 404, 429) },
      },
    },
    async (request) => files.giftLink(await giftOrder(request), request.params.id, request.actionTime),
  );
};
