import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, storeRouteErrors, success } from '../../http/schemas.js';
import { registerNoStore } from '../../http/http-cache.js';
import { forbidden, unauthenticated } from '../../infra/domain-error.js';
import { isErasedEmail } from '../../infra/personal-data.js';
import { basketHttp } from '../basket/index.js';
import { DownloadIdParams, DownloadLinkSchema, DownloadSchema, orderDownloads } from '../downloads/index.js';
import { guardedByChecksum, orderReader, readableOrder } from './order-access.service.js';
import { OrderAccessQuery, OrderCodeParams, OrderHeaders, OrderListQuery } from './order.schemas.js';
import type { OrdersHttp } from './orders.deps.js';

const tags = ['orders'];
const SECURITY: Array<Record<string, string[]>> = [{}, { bearer: [] }];

/**
 * One order's files to download: a guest's order for whoever holds its checksum (the link of the order
 * mail and of the pages after the bank; a guest has no account and so no GET /download), a client's for
 * the client logged in. What it lists and links is the downloads module's.
 */
export const orderDownloadsRoutes: FastifyPluginAsyncTypebox<OrdersHttp> = async (app, deps) => {
  const db = deps.database.db;
  const http = basketHttp(deps.database, deps.config.basket);
  const files = orderDownloads(db, {
    downloads: deps.config.downloads,
    basePath: deps.config.basePath,
    publicUrl: deps.config.orders.publicUrl,
  });
  const byChecksum = guardedByChecksum(deps.guesses);
  registerNoStore(app);

  const readOrder = async (request: FastifyRequest & { params: { code: string }; query: { checksum?: string } }) => {
    const { context } = await http.contextOf(request);
    const order = await readableOrder(db, deps.checksum, orderReader(context, request.query.checksum), request.params.code);
    // A client's purchases are downloaded logged in: the checksum travels in the order mail (forwarded, say)
    // and the gateway's return URL, and would hand out the client's files and downloads to whoever holds it.
    if (order.client_account_id !== null && order.client_account_id !== context.caller.clientAccountId) {
      throw unauthenticated('checkout.downloadsLoginRequired');
    }
    // A guest order whose buyer was erased since (its billing email the placeholder) is kept for accounting
    // only: its files end with the person, as an erased client's do, whoever holds the mail's link.
    if (order.client_account_id === null && isErasedEmail(order.billing_email)) throw forbidden('checkout.downloadsErased');
    return { id: order.id, clientAccountId: order.client_account_id };
  };

  app.get(
    '/order/:code/download',
    {
      schema: {
        tags,
        summary: "The order's files to download (its e-books and audiobooks once it is paid and processed), paged",
        description:
          "The same items as GET /download lists for a client, of this order alone. A guest's only list: read with the order's checksum. " +
          "A client's order is read by the client logged in: with its checksum and no bearer, or another client's, it is a 401. " +
          'An order with nothing to download, or not processed yet, has an empty list. 404 for whoever may not read the order; ' +
          "403 for a guest's order whose buyer's data was erased since (its files ended with the erasure).",
        headers: OrderHeaders,
        params: OrderCodeParams,
        querystring: Type.Composite([OrderAccessQuery, OrderListQuery]),
        security: SECURITY,
        response: { 200: success(Type.Array(DownloadSchema), 'list'), ...errors(...storeRouteErrors, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const page = pageRequest(request.query);
      const { items, total } = await byChecksum(request, async () => files.list(await readOrder(request), page));
      setPaginationHeaders(request, reply, page, total);
      return items;
    },
  );

  app.get(
    '/order/:code/download/:id/link',
    {
      schema: {
        tags,
        summary: "A signed link to one of the order's files, valid for a few minutes",
        description:
          'As GET /download/{id}/link, for an item of GET /order/{code}/download: the link works without a bearer token until it ' +
          "expires and counts one download of the purchase at its first use; past DOWNLOAD_LIMIT no link is given (403). A guest's " +
          "link is the order's, so it works whoever is logged in; a client's order needs the client logged in (401). " +
          "An id that is not one of the order's is a 404.",
        headers: OrderHeaders,
        params: Type.Composite([OrderCodeParams, DownloadIdParams]),
        querystring: OrderAccessQuery,
        security: SECURITY,
        response: { 200: success(DownloadLinkSchema), ...errors(...storeRouteErrors, 401, 403, 404, 429) },
      },
    },
    async (request) => byChecksum(request, async () => files.link(await readOrder(request), request.params.id, request.actionTime)),
  );
};
