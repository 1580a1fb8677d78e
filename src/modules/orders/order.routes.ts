import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { pageRequest, setPaginationHeaders } from '../../http/paging.js';
import { errors, storeRouteErrors, success } from '../../http/schemas.js';
import { translate } from '../../i18n/index.js';
import { basketHttp, topUpProducts } from '../basket/index.js';
import { productsWithFiles } from '../downloads/index.js';
import { boughtProductPage, clientOrderPage } from './order-history.repository.js';
import { guardedByChecksum, loggedInClient, orderReader, readableOrder } from './order-access.service.js';
import { orderDetail } from './order-detail.service.js';
import {
  BoughtProductSchema,
  OrderAccessQuery,
  OrderCodeParams,
  OrderHeaders,
  OrderRepeatHeaders,
  OrderListQuery,
  OrderSchema,
  OrderSummarySchema,
  RepeatAnswer,
} from './order.schemas.js';
import { toOrderSummary, toOrderWire } from './order.wire.js';
import type { OrdersHttp } from './orders.deps.js';
import { orderLines } from './orders.repository.js';
import { registerNoStore } from '../../http/http-cache.js';

const tags = ['orders'];
const SECURITY: Array<Record<string, string[]>> = [{}, { bearer: [] }];
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The customer's orders in the request's store: the list and the purchase history (logged-in
 * clients only), one order, and putting an order's products back in the basket. An order is read
 * by its client or with its checksum (a guest's only way). Every answer is `Cache-Control: no-store`.
 */
export const orderRoutes: FastifyPluginAsyncTypebox<OrdersHttp> = async (app, deps) => {
  const db = deps.database.db;
  const http = basketHttp(deps.database, deps.config.basket);
  registerNoStore(app);
  const byChecksum = guardedByChecksum(deps.guesses);

  app.get(
    '/order',
    {
      schema: {
        tags,
        summary: "The logged-in client's orders in this store, the newest first",
        headers: OrderHeaders,
        querystring: OrderListQuery,
        security: [{ bearer: [] }],
        response: { 200: success(Type.Array(OrderSummarySchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const { context } = await http.contextOf(request);
      const clientAccountId = loggedInClient(context.caller.clientAccountId);
      const page = pageRequest(request.query);
      const { rows, total } = await clientOrderPage(db, { clientAccountId, storeCode: context.store.code }, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(toOrderSummary);
    },
  );

  app.get(
    '/order/:code',
    {
      schema: {
        tags,
        summary: 'An order with its lines, amounts, VAT, delivery, payment and status history',
        description:
          "Its client reads it logged in; anybody with the order id's checksum (a guest's link: the front-end's pages after the bank, " +
          "and the order page the buyer's order mail links to) reads it too. 404 otherwise.",
        headers: OrderHeaders,
        params: OrderCodeParams,
        querystring: OrderAccessQuery,
        security: SECURITY,
        response: { 200: success(OrderSchema), ...errors(...storeRouteErrors, 401, 404, 429) },
      },
    },
    async (request) => {
      const { context } = await http.contextOf(request);
      const reader = orderReader(context, request.query.checksum);
      const order = await byChecksum(request, () => readableOrder(db, deps.checksum, reader, request.params.code));
      return toOrderWire(await orderDetail(db, order));
    },
  );

  app.post(
    '/order/:code/repeat',
    {
      schema: {
        tags,
        summary: "Puts the order's products back in the caller's basket",
        description:
          'Each product with its ordered quantity, under the basket rules (visibility, availability, quantity limits): a product ' +
          'the basket holds is topped up to the ordered quantity, one it holds as many of or more is left as it is, so the same ' +
          'call again (a double click, a retry) changes nothing. The ones refused are listed in notAdded with the reason. ' +
          'A guest without a basket-token gets a new basket and the basket-token header.',
        headers: OrderRepeatHeaders,
        params: OrderCodeParams,
        querystring: OrderAccessQuery,
        security: SECURITY,
        response: { 200: success(RepeatAnswer), ...errors(...storeRouteErrors, 401, 404, 412, 429) },
      },
    },
    async (request, reply) => {
      let notAdded: Array<{ productId: number; productCode: string; title: string; reason: string }> = [];
      const basket = await byChecksum(request, () =>
        http.writeLines(request, reply, async (trx, context, basket, queries) => {
          const order = await readableOrder(trx, deps.checksum, orderReader(context, request.query.checksum), request.params.code);
          const lines = await orderLines(trx, order.id);
          const quantities = new Map<number, number>();
          for (const line of lines) quantities.set(line.product_id, (quantities.get(line.product_id) ?? 0) + line.quantity);
          const items = [...quantities].map(([productId, quantity]) => ({ productId, quantity }));
          const result = await topUpProducts(trx, queries, context, basket, items);
          notAdded = result.refused.map(({ productId, reason }) => {
            const line = lines.find((entry) => entry.product_id === productId);
            return {
              productId,
              productCode: line?.product_code ?? '',
              title: line?.title ?? '',
              reason: translate(request.language, reason.messageKey, reason.params),
            };
          });
          return result.lines;
        }),
      );
      return { basket, notAdded };
    },
  );

  app.get(
    '/bought-product',
    {
      schema: {
        tags,
        summary: "The logged-in client's purchase history: products of its paid orders, the most recently bought first",
        headers: OrderHeaders,
        querystring: OrderListQuery,
        security: [{ bearer: [] }],
        response: { 200: success(Type.Array(BoughtProductSchema), 'list'), ...errors(...storeRouteErrors, 401) },
      },
    },
    async (request, reply) => {
      const { context } = await http.contextOf(request);
      const clientAccountId = loggedInClient(context.caller.clientAccountId);
      const page = pageRequest(request.query);
      const owner = { clientAccountId, storeCode: context.store.code };
      const { rows, total } = await boughtProductPage(db, owner, page);
      const withFiles = await productsWithFiles(
        db,
        owner,
        rows.filter((row) => row.download && row.entitled).map((row) => row.productId),
      );
      setPaginationHeaders(request, reply, page, total);
      return rows.map((row) => ({
        productId: row.productId,
        code: row.code,
        title: row.title,
        type: row.type,
        quantity: row.quantity,
        lastBoughtAt: iso(row.lastBoughtAt),
        orderCode: row.orderCode,
        download: row.download ? { entitled: row.entitled, available: withFiles.has(row.productId) } : null,
      }));
    },
  );
};
